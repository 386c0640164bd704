import { declareRoute, fixedPaths, type Route } from '../../../http/route.js';
import { openKiosk, purchaseAtKiosk, scanAtKiosk, showKiosk, undoAtKiosk } from '../handlers/kiosk.js';
import { KIOSK_OPEN_PATH, KIOSK_PATH, KIOSK_PURCHASE_PATH, KIOSK_SCAN_PATH, KIOSK_UNDO_PATH } from '../web/kiosk.js';

/** The kiosk's routes (ledger.md §4), in the order the router tries them: the page, its opening, and the changes it may make. */
export const KIOSK_ROUTES: readonly Route[] = [
  declareRoute({
    name: 'kiosk',
    template: KIOSK_PATH,
    methods: ['GET', 'HEAD'],
    page: true,
    slashRedirect: true,
    match: fixedPaths(KIOSK_PATH),
    handle: showKiosk,
  }),
  declareRoute({ name: 'kiosk open', template: KIOSK_OPEN_PATH, methods: ['POST'], page: true, match: fixedPaths(KIOSK_OPEN_PATH), handle: openKiosk }),
  declareRoute({ name: 'kiosk purchase', template: KIOSK_PURCHASE_PATH, methods: ['POST'], match: fixedPaths(KIOSK_PURCHASE_PATH), handle: purchaseAtKiosk }),
  declareRoute({ name: 'kiosk scan', template: KIOSK_SCAN_PATH, methods: ['POST'], match: fixedPaths(KIOSK_SCAN_PATH), handle: scanAtKiosk }),
  declareRoute({ name: 'kiosk undo', template: KIOSK_UNDO_PATH, methods: ['POST'], match: fixedPaths(KIOSK_UNDO_PATH), handle: undoAtKiosk }),
];

import type { Route } from '../../../http/route.js';

/** The kiosk's routes (ledger.md), in the order the router tries them. */
export const KIOSK_ROUTES: readonly Route[] = [];

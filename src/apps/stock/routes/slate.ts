import { fixedPaths, idPath, type Route } from '../../../http/route.js';
import { memberPage } from '../../users/index.js';
import { showSlate, submitKiosk, submitProduct, submitSpend, submitTop, submitTransfer, submitUndo } from '../handlers/slate.js';

/** A form's page of the slate: a member's, POST only. */
function slateForm(name: string, path: string, handle: Parameters<typeof memberPage<true>>[0]['handle']): Route {
  return memberPage({ name, template: path, match: fixedPaths(path), methods: ['POST'], requires: 'member', handle });
}

/** The slate's routes (ledger.md), in the order the router tries them. */
export const SLATE_ROUTES: readonly Route[] = [
  // The original's address has no final slash; with one, the same page.
  memberPage({
    name: 'slate',
    template: '/accounts/balance',
    match: fixedPaths('/accounts/balance', '/accounts/balance/'),
    methods: ['GET'],
    requires: 'member',
    handle: showSlate,
  }),
  slateForm('slate buy', '/accounts/balance/product', submitProduct),
  slateForm('slate spend', '/accounts/balance/spend', submitSpend),
  slateForm('slate top up', '/accounts/balance/top', submitTop),
  slateForm('slate transfer', '/accounts/balance/transfer', submitTransfer),
  slateForm('slate kiosk choice', '/accounts/balance/kiosk', submitKiosk),
  memberPage({
    name: 'slate undo',
    template: '/accounts/balance/undo/{id}',
    match: idPath(/^\/accounts\/balance\/undo\/([0-9]{1,18})\/?$/),
    methods: ['POST'],
    requires: 'member',
    handle: submitUndo,
  }),
];

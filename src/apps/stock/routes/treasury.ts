import type { Route } from '../../../http/route.js';

/** The treasury's routes (ledger.md), in the order the router tries them. */
export const TREASURY_ROUTES: readonly Route[] = [];

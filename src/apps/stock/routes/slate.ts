import type { Route } from '../../../http/route.js';

/** The slate's routes (ledger.md), in the order the router tries them. */
export const SLATE_ROUTES: readonly Route[] = [];

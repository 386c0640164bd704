/** What other apps may use of the stock app: its one public module. */
export { balanceOf } from './ledger.js';

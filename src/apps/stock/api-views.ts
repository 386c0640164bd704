import type { ApiView, ApiViewExchange } from '../../drf/api-view.js';
import { forbidden, notAuthenticated } from '../../drf/errors.js';
import { pageUrl, requireBase } from '../../drf/links.js';
import { PARSES } from '../../drf/metadata.js';
import { pageCount, pageNumberOf, pageSizeOf } from '../../drf/pagination.js';
import type { Resolved } from '../../drf/resolve.js';
import { sendJson } from '../../http/reply.js';
import { PRIVATE, wordsFor } from '../../http/viewing.js';
import { parameter } from '../../openapi/components.js';
import { jsonOrHtml, viewPathItem } from '../../openapi/operations.js';
import { browsablePage } from '../../web/browsable.js';
import { HTML_HEADERS, HTML_TYPE, siteFor } from '../../web/layout.js';
import { countEntriesOf, type LedgerEntry } from './ledger.js';
import { formatCents } from './money.js';
import { ownEntries, type ShownEntry } from './slate.js';

declare module '../../drf/routes.js' {
  /** The stock app's views, as their routes' matches name them. */
  interface ViewKinds {
    ledger: true;
  }
}

/**
 * `/api/stock/ledger/` (ledger.md §4): the caller's own entries, newest first, paginated as every
 * collection is. Only for a member: their session, or their personal token; anonymous is 401.
 * Built for one member, so never cached, by us or anyone (`Cache-Control: private, no-store`),
 * and not listed in the API root.
 */

const LEDGER_OPTIONS = {
  name: 'Ledger',
  description: "The caller's own ledger entries, newest first, paginated (a member's session or personal token).",
  renders: ['application/json', 'text/html'],
  parses: PARSES,
};

/** One entry as the API gives it; amounts as the original's decimal strings. */
export interface LedgerRecord {
  id: number;
  kind: LedgerEntry['kind'];
  /** The entry's change of the balance, signed: `"-1.50"`. */
  amount: string;
  /** What it does to the balance: `debit` (down) or `credit` (up). */
  balance_effect: 'debit' | 'credit';
  product: string | null;
  unit_price: string | null;
  quantity: number | null;
  location: string | null;
  info: string;
  counterpart: string | null;
  reverses: number | null;
  reversed: boolean;
  channel: string;
  created: string;
}

export function ledgerRecord(entry: ShownEntry, time: (micros: number) => string): LedgerRecord {
  return {
    id: entry.id,
    kind: entry.kind,
    amount: formatCents(entry.amount_cents),
    balance_effect: entry.amount_cents < 0 ? 'debit' : 'credit',
    product: entry.productName,
    unit_price: entry.unit_price_cents === null ? null : formatCents(entry.unit_price_cents),
    quantity: entry.quantity,
    location: entry.location,
    info: entry.info,
    counterpart: entry.counterpartName,
    reverses: entry.reverses_id,
    reversed: entry.reversed,
    channel: entry.channel,
    created: time(entry.created_us),
  };
}

const DECIMAL = { type: 'string', pattern: '^-?[0-9]+\\.[0-9]{2}$' };
const NULLABLE = (schema: Record<string, unknown>) => ({ oneOf: [schema, { type: 'null' }] });

const RECORD_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'kind', 'amount', 'balance_effect', 'product', 'unit_price', 'quantity', 'location', 'info', 'counterpart', 'reverses', 'reversed', 'channel', 'created'],
  properties: {
    id: { type: 'integer' },
    kind: { enum: ['purchase', 'spend', 'topup', 'transfer', 'reversal', 'correction', 'opening'] },
    amount: { ...DECIMAL, description: 'The change of the balance, signed' },
    balance_effect: { enum: ['debit', 'credit'] },
    product: NULLABLE({ type: 'string' }),
    unit_price: NULLABLE(DECIMAL),
    quantity: NULLABLE({ type: 'integer' }),
    location: NULLABLE({ enum: ['BANK', 'CASH'] }),
    info: { type: 'string' },
    counterpart: { ...NULLABLE({ type: 'string' }), description: "The other member's username (a transfer)" },
    reverses: NULLABLE({ type: 'integer' }),
    reversed: { type: 'boolean' },
    channel: { enum: ['web', 'kiosk', 'cli', 'import'] },
    created: { type: 'string', format: 'date-time' },
  },
};

const PAGE_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['count', 'next', 'previous', 'results'],
  properties: {
    count: { type: 'integer' },
    next: NULLABLE({ type: 'string', format: 'uri' }),
    previous: NULLABLE({ type: 'string', format: 'uri' }),
    results: { type: 'array', items: RECORD_SCHEMA },
  },
};

/** Whose ledger a request asks for: its member token's owner, else its session's member; null for anyone else. */
async function callerOf(ex: ApiViewExchange, resolved: Resolved): Promise<number | null> {
  const token = resolved.token;
  if (token !== null) return token.scope === 'member' ? token.userId : null;
  if (ex.facts.session === null) return null;
  const viewer = await ex.services.viewing.of(ex.facts);
  return viewer === null ? null : viewer.member.id;
}

async function answerLedger(ex: ApiViewExchange, resolved: Resolved) {
  const { reply, facts, services } = ex;
  const base = requireBase(facts.base);
  reply.header('cache-control', PRIVATE);
  const userId = await callerOf(ex, resolved);
  if (userId === null) {
    // A door or admin token has no ledger of its own: refused, as DRF refuses an authenticated caller without the permission.
    throw resolved.token !== null ? forbidden() : notAuthenticated();
  }
  const db = services.database.db;
  const size = pageSizeOf(resolved.query, services.config);
  const body = await db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const count = await countEntriesOf(trx, userId);
      const pages = pageCount(count, size);
      const page = pageNumberOf(resolved.query, pages);
      const entries = await ownEntries(trx, userId, { offset: (page - 1) * size, limit: size });
      return {
        count,
        next: page < pages ? pageUrl(base, resolved.rawPath, resolved.query, page + 1) : null,
        previous: page > 1 ? pageUrl(base, resolved.rawPath, resolved.query, page - 1) : null,
        results: entries.map((entry) => ledgerRecord(entry, (micros) => services.times.format(micros))),
      };
    });
  if (resolved.media !== 'html') return sendJson(reply, body);
  const viewer = facts.session === null ? null : await services.viewing.of(facts);
  const { rawPath, rawQuery } = facts.target;
  const page = browsablePage(siteFor(services.site, wordsFor(services.catalogue, services.viewing, facts, viewer), services.viewing.nav(facts, viewer)), {
    method: 'GET',
    target: rawPath + (rawQuery === '' ? '' : `?${rawQuery}`),
    base,
    status: 200,
    headers: [
      ['Allow', 'GET, HEAD, OPTIONS'],
      ['Content-Type', 'application/json'],
      ['Vary', reply.getHeader('vary') as string],
    ],
    body,
  });
  return reply.headers(HTML_HEADERS).header('content-type', HTML_TYPE).send(page);
}

/** The stock app's API views (drf/api-view.ts), beside its urtip stream (they read the ledger). */
export const STOCK_VIEWS: readonly ApiView[] = [
  {
    kind: 'ledger',
    path: 'stock/ledger',
    suffixes: true,
    vary: 'Accept, Accept-Encoding, Authorization, Cookie',
    options: LEDGER_OPTIONS,
    get: { answer: answerLedger },
    openapi: (methods) =>
      viewPathItem(
        '/api/stock/ledger/',
        {
          kind: 'ledger',
          // Beside the urtip stream, the collection it is declared with (both read the ledger).
          tag: 'streams/urtip',
          name: LEDGER_OPTIONS.name,
          description: LEDGER_OPTIONS.description,
          get: {
            description:
              "A page of the caller's own entries, newest first. A member's session or personal token (`Authorization: Token …`); anonymous is 401, a door or admin token 403. `Cache-Control: private, no-store`.",
            content: jsonOrHtml(PAGE_SCHEMA),
            cached: false,
          },
          parameters: [parameter('page'), parameter('page_size')],
          readErrors: { 403: 'Forbidden' },
        },
        methods,
        true,
      ),
  },
];

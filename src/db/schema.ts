import type { Generated } from 'kysely';

/** Row counts per collection, kept exact by triggers so that `count` never scans a table. */
export interface CollectionCountsTable {
  collection: string;
  n: number;
}

/** API tokens: only a hash of each secret is kept; revoked tokens stay, for the record. */
export interface ApiTokensTable {
  id: Generated<number>;
  name: string;
  scope: string;
  secret_hash: string;
  created_us: number;
  last_used_us: number | null;
  revoked_us: number | null;
}

/** One write made through the API: who (token), what (method, path, record) and when. */
export interface AuditLogTable {
  id: Generated<number>;
  time_us: number;
  token_id: number | null;
  token_name: string;
  method: string;
  path: string;
  collection: string;
  record_id: number | null;
  status: number;
}

/** SQLite only: the highest id ever deleted per table, so that ids are never reused. */
export interface DeletedIdHighWaterTable {
  collection: string;
  id: number;
}

/** Per table that responses are built from: bumped by triggers on every write (table-versions.ts). */
export interface TableVersionsTable {
  name: string;
  version: number;
  /** When the table last changed, in microseconds (the writer's clock). */
  changed_us: number;
}

/** The webhook outbox: one delivery of one change to one URL (live/webhook-outbox.ts). */
export interface WebhookDeliveriesTable {
  /** The X-Webhook-Delivery id (a UUID), fixed at insert. */
  id: string;
  event: string;
  event_id: number;
  /** The exact bytes POSTed (UTF-8 JSON), fixed at insert. */
  body: string;
  /** SHA-256 of the URL: the URL may hold a secret and is not stored. */
  url_key: string;
  /** The URL's origin, `scheme://host[:port]/…`, fit for logs and listings. */
  target: string;
  status: 'pending' | 'delivered' | 'abandoned';
  attempts: number;
  created_us: number;
  first_attempt_us: number | null;
  last_attempt_us: number | null;
  /** When a pending delivery is due (its next retry). */
  next_attempt_us: number;
  next_delay_ms: number;
  /** The process attempting it now, and until when its claim holds (a lease: a killed process lets go). */
  claimed_by: string | null;
  claimed_until_us: number | null;
  last_error: string | null;
  /** When it was delivered or abandoned. */
  finished_us: number | null;
}

/**
 * Every table, as Kysely sees it: the machinery's here, each app's added by its own schema.ts
 * (`declare module` augments this interface), so that every query is checked against all of them.
 */
export interface Database {
  collection_counts: CollectionCountsTable;
  api_tokens: ApiTokensTable;
  audit_log: AuditLogTable;
  deleted_id_high_water: DeletedIdHighWaterTable;
  table_versions: TableVersionsTable;
  webhook_deliveries: WebhookDeliveriesTable;
}

/** Ids are 32-bit on every engine, as Django's AutoField. */
export const MAX_ID = 2_147_483_647;

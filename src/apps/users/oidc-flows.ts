import { engineOf, type Db } from '../../db/connection.js';
import type { FlowChecks } from './oidc-client.js';
import { hashSecretId, newSecret } from './sessions.js';

/**
 * Single sign-ons begun and not yet finished (members.md §5), in the database so that any process
 * can finish one another began. The browser holds only the flow's id, in a short-lived cookie: the
 * callback finds the flow by its hash and takes it, once, so a replayed callback, a flow begun in
 * another browser (login CSRF) or an expired one finds nothing.
 */

/** How long a person has to log in at the provider. */
export const FLOW_SECONDS = 600;
const PRUNE_BATCH = 100;

export interface BegunFlow extends FlowChecks {
  /** Where to go afterwards: a path on this site, already checked (request/next-path.ts). */
  next: string;
}

/** Stores a flow and returns its id, for the cookie; prunes a bounded batch of expired ones. */
export async function storeFlow(db: Db, flow: BegunFlow, nowUs: number): Promise<string> {
  const id = newSecret();
  await db
    .insertInto('oidc_flows')
    .values({
      id_hash: hashSecretId(id),
      state: flow.state,
      nonce: flow.nonce,
      code_verifier: flow.codeVerifier,
      next_path: flow.next,
      expires_us: nowUs + FLOW_SECONDS * 1_000_000,
    })
    .execute();
  let expired = db.selectFrom('oidc_flows').select('id_hash').where('expires_us', '<=', nowUs).orderBy('expires_us').limit(PRUNE_BATCH);
  if (engineOf(db) === 'postgres') expired = expired.forUpdate().skipLocked();
  await db.deleteFrom('oidc_flows').where('id_hash', 'in', expired).execute();
  return id;
}

/** The flow this id names, deleted in the same statement (one use, whichever process asks first); null when unknown or expired. */
export async function takeFlow(db: Db, id: string, nowUs: number): Promise<BegunFlow | null> {
  if (!/^[A-Za-z0-9_-]{43}$/.test(id)) return null;
  const row = await db.deleteFrom('oidc_flows').where('id_hash', '=', hashSecretId(id)).returningAll().executeTakeFirst();
  if (row === undefined || row.expires_us <= nowUs) return null;
  return { state: row.state, nonce: row.nonce, codeVerifier: row.code_verifier, next: row.next_path };
}

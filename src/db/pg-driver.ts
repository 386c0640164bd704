import type pg from 'pg';

export type Pg = typeof pg;

/**
 * The pg driver, loaded when PostgreSQL is first used. Nothing imports it statically but
 * postgres.ts, which connection.ts loads only to open a PostgreSQL database: a server on SQLite
 * never loads it, nor Node's fetch stack (undici), which pg 8 touches as it loads (it builds a
 * `Response` to tell whether it runs on Cloudflare): about 23 ms of every start.
 */
export async function loadPg(): Promise<Pg> {
  return (await import('pg')).default;
}

// Shared by the bench helpers: database-level work (create, clone, drop) needs a connection to
// another database of the same server.

/** Runs fn with a client of the server's `postgres` database and the URL's database name, quoted. */
export async function withMaintenance(url, fn) {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  if (!name) throw new Error('the URL names no database');
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: maintenance.href });
  await client.connect();
  try {
    return await fn(client, client.escapeIdentifier(name));
  } finally {
    await client.end();
  }
}

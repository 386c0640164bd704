import { Writable } from 'node:stream';
import type { Db } from '../../src/db/connection.js';
import { exportFixture } from '../../src/installed-apps.js';

/** A database's fixture export (what `hackerspace-api export` writes), as text. */
export async function exportText(db: Db): Promise<string> {
  const chunks: Buffer[] = [];
  await exportFixture(
    db,
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(Buffer.from(chunk));
        done();
      },
    }),
  );
  return Buffer.concat(chunks).toString('utf8');
}

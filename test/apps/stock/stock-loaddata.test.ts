import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { sql } from 'kysely';
import { buy, transfer, undo, type LedgerRules } from '../../../src/apps/stock/ledger.js';
import type { Db } from '../../../src/db/connection.js';
import { freshDatabase } from '../../support/server.js';

/*
 * Django's own word on the slate's round trip (ledger.md §5): the original's stock models
 * (test/support/stock-judge, transcribed from the original's stock/models.py) make a full set of
 * records with Django's ORM, as the original's views do, and dump them; our CLI imports the dump,
 * the ledger records more, our CLI exports, and Django loads the export into a fresh database:
 * every row that came from the original comes back the same, and every member's balance is ours,
 * and is what the original's rows add up to. Runs wherever Debian's python3-django is installed
 * (CI installs it: scripts/test-prerequisites.mjs); skipped with the reason elsewhere.
 */

const REPO = path.resolve(import.meta.dirname, '../../..');
const JUDGE = path.join(REPO, 'test/support/stock-judge');
const CLI = path.join(REPO, 'bin/hackerspace-api.js');
/** Debian's python3-django installs for Debian's Python, which a python3 earlier on PATH may not be. */
const PYTHON = process.env.PYTHON ?? (fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');

function unavailable(): string | false {
  const django = spawnSync(PYTHON, ['-c', 'import django; assert django.VERSION >= (3, 2)'], { encoding: 'utf8' });
  return django.status === 0 ? false : 'Django is not installed (apt-get install python3-django)';
}

function judge(dir: string, ...args: string[]): void {
  const run = spawnSync(PYTHON, [path.join(JUDGE, 'judge.py'), ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, PYTHONPATH: JUDGE, PYTHONDONTWRITEBYTECODE: '1', DJANGO_SETTINGS_MODULE: 'settings', JUDGE_DATABASE: path.join(dir, `${args[0]}.sqlite3`) },
    maxBuffer: 64 << 20,
  });
  assert.equal(run.status, 0, `Django's judge.py ${args[0]} failed:\n${run.stderr.slice(-3000)}`);
}

function cli(dir: string, url: string, ...args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], { cwd: dir, env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'silent' }, encoding: 'utf8', timeout: 120_000 });
}

interface Rec {
  model: string;
  pk: number;
  fields: Record<string, unknown>;
}

interface Verdict {
  dump: Rec[];
  stored: Record<string, string>;
  recomputed: Record<string, string>;
  problems: string[];
}

const readJson = <T>(file: string): T => JSON.parse(fs.readFileSync(file, 'utf8')) as T;
const cents = (decimal: unknown) => Math.round(Number(decimal) * 100);
const RULES: LedgerRules = { maxAmountCents: 50_000, debtLimitCents: null, undoMinutes: 5 };

async function balances(db: Db): Promise<Map<number, number>> {
  const rows = await db.selectFrom('users').select(['id', 'balance_cents']).execute();
  return new Map(rows.map((r) => [r.id, Number(r.balance_cents)]));
}

describe("Django loads our export of the original's stock records: the same rows and balances", () => {
  it('a dump made with Django → our import → new entries → our export → loaddata', { skip: unavailable() }, async () => {
    const fresh = await freshDatabase();
    try {
      const { dir, url } = fresh;
      const { db } = fresh.handle;
      // (a) The original's records, made with Django's ORM.
      judge(dir, 'make', 'dump.json');
      const dump = readJson<Rec[]>(path.join(dir, 'dump.json'));
      const users = dump.filter((r) => r.model === 'users.user');
      for (const model of [
        'stock.transfertransaction',
        'stock.topuptransaction',
        'stock.producttransaction',
        'stock.misctransaction',
        'stock.fundzone',
        'stock.paymenttransaction',
        'stock.refundtransaction',
      ]) {
        assert.ok(
          dump.some((r) => r.model === model),
          `the dump has ${model}`,
        );
      }

      // (b) Our import: the original's balances, and the ledger adds up to them.
      const imported = cli(dir, url, 'import', 'dump.json');
      assert.equal(imported.status, 0, imported.stderr);
      assert.deepEqual(await balances(db), new Map(users.map((u) => [u.pk, cents(u.fields.balance)])));
      const checked = cli(dir, url, 'ledger', 'check');
      assert.equal(checked.status, 0, checked.stdout + checked.stderr);

      // New entries through the ledger: a purchase, another of two units, an undone purchase, a transfer.
      const pk = (username: string) => users.find((u) => u.fields.username === username)!.pk;
      const product = (name: string) => dump.find((r) => r.model === 'stock.product' && r.fields.name === name)!.pk;
      const by = { userId: null, channel: 'cli' as const };
      const nowUs = Date.now() * 1000;
      await db.transaction().execute(async (trx) => {
        await buy(trx, RULES, { userId: pk('alice'), key: 'k1', by, nowUs, productId: product('Club-Mate') });
        await buy(trx, RULES, { userId: pk('bob'), key: 'k2', by, nowUs, productId: product('Chips'), quantity: 2 });
        const tip = await buy(trx, RULES, { userId: pk('erin'), key: 'k3', by, nowUs, productId: product('Tip') });
        await undo(trx, RULES, { userId: pk('erin'), key: 'k4', by, nowUs: nowUs + 1, entryId: tip.entry.id });
        await transfer(trx, RULES, { userId: pk('carol'), key: 'k5', by, nowUs, recipientId: pk('erin'), amountCents: 125 });
      });
      const ours = await balances(db);
      const moved = new Map([...ours].map(([user, balance]) => [user, balance - cents(users.find((u) => u.pk === user)!.fields.balance)]));
      assert.deepEqual(
        moved,
        new Map([
          [pk('alice'), -150],
          [pk('bob'), -240],
          [pk('carol'), -125],
          [pk('dave'), 0],
          [pk('erin'), 125],
        ]),
      );

      // (c) Our export, loaded into a fresh database of the original's models (what Django knows of it).
      const exported = cli(dir, url, 'export', 'export.json');
      assert.equal(exported.status, 0, exported.stderr);
      const kept = readJson<Rec[]>(path.join(dir, 'export.json')).filter((r) => r.model === 'users.user' || r.model.startsWith('stock.'));
      fs.writeFileSync(path.join(dir, 'kept.json'), JSON.stringify(kept));
      judge(dir, 'check', 'kept.json', 'verdict.json');
      const verdict = readJson<Verdict>(path.join(dir, 'verdict.json'));

      // (d) Every row of the original the same (Django dumped both), every balance ours and what the rows add up to.
      assert.deepEqual(verdict.problems, []);
      const after = new Map(verdict.dump.map((r) => [`${r.model} ${r.pk}`, r]));
      for (const row of dump) {
        const back = after.get(`${row.model} ${row.pk}`);
        assert.ok(back, `${row.model} pk ${row.pk} came back`);
        if (row.model === 'users.user') assert.deepEqual({ ...back.fields, balance: null }, { ...row.fields, balance: null }, `users.user pk ${row.pk}`);
        else assert.deepEqual(back.fields, row.fields, `${row.model} pk ${row.pk}`);
      }
      for (const [user, balance] of ours) {
        assert.equal(cents(verdict.stored[String(user)]), balance, `member ${user}'s balance`);
        assert.equal(cents(verdict.recomputed[String(user)]), balance, `member ${user}'s rows add up to the balance`);
      }
      // What we added: the openings (carol's hand-edited balance, dave's), the purchases, the undo and the transfer, after the original's pks.
      const added = verdict.dump.filter((r) => r.model.startsWith('stock.') && !dump.some((o) => o.model === r.model && o.pk === r.pk));
      const highest = (model: string) => Math.max(0, ...dump.filter((r) => r.model === model).map((r) => r.pk));
      for (const row of added) assert.ok(row.pk > highest(row.model), `${row.model} pk ${row.pk} after the original's`);
      assert.deepEqual(added.map((r) => r.model).sort(), [
        'stock.misctransaction',
        'stock.misctransaction',
        'stock.misctransaction',
        'stock.misctransaction',
        'stock.producttransaction',
        'stock.producttransaction',
        'stock.transfertransaction',
      ]);
      const entries = await db
        .selectFrom('ledger_entries')
        .select(sql<number>`count(*)`.as('n'))
        .where('kind', '=', 'opening')
        .executeTakeFirstOrThrow();
      assert.equal(Number(entries.n), 2);
    } finally {
      await fresh.cleanup();
    }
  });
});

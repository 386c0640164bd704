/**
 * The treasury over real HTTP on the engine under test (ledger.md §1, §4): `/stock/transactions`
 * for the treasury only, its forms (zone, payment, refund, refund completed, correction) with
 * their refusals, the fund zones' estimates computed from the original's dumpdata records with
 * the original's formula (FundZone.balance), receipts checked by their bytes and served to the
 * treasury only, and the ledger as CSV with formulas neutralised.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { grantRights } from '../../../src/apps/users/rights.js';
import { addMember, Browser, csrfOf, logIn, noticeOf, TEST_ITERATIONS } from '../../support/members.js';
import { startServer, type TestServer } from '../../support/server.js';

const PASSWORD = 'correct horse battery';
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n');
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(32, 1)]);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(32, 2)]);
const HTML_AS_PDF = Buffer.from('<!doctype html><script>alert(1)</script>');

interface Record {
  model: string;
  pk: number;
  fields: { [name: string]: unknown };
}

/** "1.50" → 150, without floating point. */
function cents(text: string): number {
  const [units, decimals = ''] = text.split('.');
  const sign = units.startsWith('-') ? -1 : 1;
  return sign * (Math.abs(Number(units)) * 100 + Number(decimals.padEnd(2, '0')));
}

/** A multipart body: text fields, then files (name, filename, type, bytes). */
function multipart(fields: { [name: string]: string }, files: { name: string; filename: string; type: string; bytes: Buffer }[] = []): { body: Buffer; type: string } {
  const boundary = `----treasury${Math.random().toString(16).slice(2)}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  for (const f of files) {
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${f.name}"; filename="${f.filename}"\r\nContent-Type: ${f.type}\r\n\r\n`),
      f.bytes,
      Buffer.from('\r\n'),
    );
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), type: `multipart/form-data; boundary=${boundary}` };
}

describe('the treasury', () => {
  let server: TestServer;
  let base: string;
  let visitor: Browser;
  let member: Browser;
  let treasurer: Browser;
  let superuser: Browser;
  let memberId: number;
  let treasurerId: number;

  before(async () => {
    server = await startServer({ env: { PASSWORD_ITERATIONS: String(TEST_ITERATIONS), RECEIPT_MAX_MB: '1', LANGUAGE_CODE: 'fr' } });
    base = server.base;
    const db = server.database.db;
    memberId = await addMember(db, { username: 'mia', password: PASSWORD });
    treasurerId = await addMember(db, { username: 'tresorier', password: PASSWORD });
    await addMember(db, { username: 'root', password: PASSWORD, superuser: true });
    await grantRights(db, treasurerId, ['stock.view_paymenttransaction']);
    visitor = new Browser(base);
    member = await logIn(base, 'mia', PASSWORD);
    treasurer = await logIn(base, 'tresorier', PASSWORD);
    superuser = await logIn(base, 'root', PASSWORD);
  });

  after(async () => {
    await server?.close();
  });

  async function post(browser: Browser, path: string, fields: { [name: string]: string }) {
    const page = await browser.get('/stock/transactions');
    return browser.post(path, { csrfmiddlewaretoken: csrfOf(page.body), ...fields });
  }

  async function postFiles(browser: Browser, path: string, fields: { [name: string]: string }, files: Parameters<typeof multipart>[1]) {
    const page = await browser.get('/stock/transactions');
    const { body, type } = multipart({ csrfmiddlewaretoken: csrfOf(page.body), ...fields }, files);
    return browser.post(path, body, { 'content-type': type });
  }

  it('is for the treasury: a visitor is sent to log in, another member refused, treasurers and superusers see it', async () => {
    for (const path of ['/stock/transactions', '/stock/transactions/']) {
      const v = await visitor.get(path);
      assert.equal(v.status, 303, path);
      assert.match(v.headers.location as string, /^\/accounts\/login\/\?next=/);
      assert.equal((await member.get(path)).status, 403);
      for (const b of [treasurer, superuser]) {
        const page = await b.get(path);
        assert.equal(page.status, 200);
        assert.equal(page.headers['cache-control'], 'private, no-store');
        assert.match(page.body, /<h1 id="treasury-heading">/);
      }
    }
  });

  it('refuses every form to a member outside the treasury, recording nothing', async () => {
    const csrf = csrfOf((await member.get('/accounts/profile/')).body);
    const before = await server.database.db.selectFrom('stock_fund_zones').select('id').execute();
    assert.equal((await member.post('/stock/transactions/zones/', { csrfmiddlewaretoken: csrf, name: 'Caisse', method: 'CASH' })).status, 403);
    const { body, type } = multipart({ csrfmiddlewaretoken: csrf, zone: '1', way: 'a', amount: '1', payment_date: '2026-01-01' });
    assert.equal((await member.post('/stock/transactions/payments/', body, { 'content-type': type })).status, 403);
    assert.equal((await member.post('/stock/transactions/corrections/', { csrfmiddlewaretoken: csrf, entry: '1', reason: 'x' })).status, 403);
    assert.equal((await member.get('/stock/transactions/ledger.csv?from=2026-01-01&to=2026-12-31')).status, 403);
    assert.deepEqual(await server.database.db.selectFrom('stock_fund_zones').select('id').execute(), before);
    // Without the CSRF token, even the treasurer changes nothing.
    assert.equal((await treasurer.post('/stock/transactions/zones/', { name: 'Caisse', method: 'CASH' })).status, 403);
  });

  it('estimates each zone as the original does, on the original’s records, payments newest date first', async () => {
    // The original's fund zones, payments and top-ups as its dumpdata has them (the fields the formula reads).
    const records = JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../../fixtures/stock-fund-zones.json'), 'utf8')) as Record[];
    const zones = records.filter((r) => r.model === 'stock.fundzone');
    const payments = records.filter((r) => r.model === 'stock.paymenttransaction');
    const topups = records.filter((r) => r.model === 'stock.topuptransaction');
    const db = server.database.db;
    const zoneIds = new Map<number, number>();
    for (const z of zones) {
      const row = await db
        .insertInto('stock_fund_zones')
        .values({ name: z.fields.name as string, method: z.fields.method as string })
        .returning('id')
        .executeTakeFirstOrThrow();
      zoneIds.set(z.pk, row.id);
    }
    for (const p of payments) {
      await db
        .insertInto('stock_payments')
        .values({
          user_id: treasurerId,
          when_us: Date.parse(p.fields.when as string) * 1000,
          amount_cents: cents(p.fields.amount as string),
          way: p.fields.way as string,
          receipt: null,
          zone_id: p.fields.zone === null ? null : zoneIds.get(p.fields.zone as number)!,
          comments: null,
          payment_date: p.fields.payment_date as string,
        })
        .execute();
    }
    // The members' top-ups as the ledger keeps them (a top-up entry with its way in), on one member: only their sums by way count here.
    for (const t of topups) {
      await db
        .insertInto('ledger_entries')
        .values({
          user_id: memberId,
          kind: 'topup',
          amount_cents: cents(t.fields.amount as string),
          location: t.fields.topup_type as string,
          info: '',
          channel: 'import',
          created_us: Date.parse(t.fields.when as string) * 1000,
        })
        .execute();
    }
    const page = (await treasurer.get('/stock/transactions')).body;
    for (const z of zones) {
      // FundZone.balance: − expenses (a) + receipts (b) of the zone, + every top-up of the zone's method.
      let expected = 0;
      for (const p of payments.filter((p) => p.fields.zone === z.pk)) expected += (p.fields.way === 'a' ? -1 : 1) * cents(p.fields.amount as string);
      for (const t of topups.filter((t) => t.fields.topup_type === z.fields.method)) expected += cents(t.fields.amount as string);
      const shown = new RegExp(`data-zone="${zoneIds.get(z.pk)}">([^<]*)<`).exec(page)?.[1];
      const money = new Intl.NumberFormat('fr', { style: 'currency', currency: 'EUR' }).format(expected / 100);
      assert.ok(shown?.endsWith(money), `${z.fields.name as string}: ${shown} ends with ${money}`);
      const dates = [...(new RegExp(`id="zone-${zoneIds.get(z.pk)}"[\\s\\S]*?</section>`).exec(page)?.[0] ?? '').matchAll(/<td>(\d{4}-\d{2}-\d{2})<\/td>/g)].map((m) => m[1]);
      assert.deepEqual(
        dates,
        payments
          .filter((p) => p.fields.zone === z.pk)
          .map((p) => p.fields.payment_date as string)
          .sort()
          .reverse(),
      );
    }
  });

  it('adds a zone, and refuses a bad one with 422 and its message', async () => {
    const added = await post(treasurer, '/stock/transactions/zones/', { name: 'Caisse du frigo', method: 'CASH' });
    assert.equal(added.status, 303);
    const page = await treasurer.get('/stock/transactions');
    assert.equal(noticeOf(page.body), 'La zone de fonds a été ajoutée.');
    assert.match(page.body, /Caisse du frigo/);
    const bad = await post(treasurer, '/stock/transactions/zones/', { name: 'x', method: 'GOLD' });
    assert.equal(bad.status, 422);
    assert.match(bad.body, /Choisissez une caisse ou un compte en banque\./);
    const empty = await post(treasurer, '/stock/transactions/zones/', { name: '  ', method: 'BANK' });
    assert.equal(empty.status, 422);
  });

  async function zoneId(name: string): Promise<number> {
    return (await server.database.db.selectFrom('stock_fund_zones').select('id').where('name', '=', name).executeTakeFirstOrThrow()).id;
  }

  it('records payments with PDF, PNG and JPEG receipts, recognised by their bytes; refuses a fake PDF, a big file and bad fields', async () => {
    const zone = String(await zoneId('Caisse du frigo'));
    const fields = { zone, way: 'a', amount: '12,50', payment_date: '2026-11-30', comments: 'Filament' };
    for (const [bytes, filename, type] of [
      [PDF, 'ticket.pdf', 'application/pdf'],
      [PNG, 'photo.bin', 'application/octet-stream'],
      [JPEG, 'scan.jpeg', 'image/jpeg'],
    ] as const) {
      const res = await postFiles(treasurer, '/stock/transactions/payments/', fields, [{ name: 'receipt', filename, type, bytes }]);
      assert.equal(res.status, 303, `${filename}: ${res.body.slice(0, 200)}`);
    }
    const rows = await server.database.db.selectFrom('stock_payments').selectAll().where('zone_id', '=', Number(zone)).orderBy('id').execute();
    assert.equal(rows.length, 3);
    assert.deepEqual(
      rows.map((r) => [r.amount_cents, r.way, r.payment_date, r.comments, r.user_id]),
      Array(3).fill([1250, 'a', '2026-11-30', 'Filament', treasurerId]),
    );
    assert.deepEqual(
      rows.map((r) => /^souches\/[A-Za-z0-9_-]{22}\.(pdf|png|jpg)$/.exec(r.receipt ?? '')?.[1]),
      ['pdf', 'png', 'jpg'],
    );
    const before = rows.length;
    const fake = await postFiles(treasurer, '/stock/transactions/payments/', fields, [{ name: 'receipt', filename: 'ticket.pdf', type: 'application/pdf', bytes: HTML_AS_PDF }]);
    assert.equal(fake.status, 422);
    assert.match(fake.body, /Une souche doit être un fichier PDF, JPEG ou PNG\./);
    const big = Buffer.concat([PDF, Buffer.alloc(1024 * 1024, 0x20)]);
    const tooBig = await postFiles(treasurer, '/stock/transactions/payments/', fields, [{ name: 'receipt', filename: 'big.pdf', type: 'application/pdf', bytes: big }]);
    assert.equal(tooBig.status, 422);
    assert.match(tooBig.body, /Une souche ne peut pas dépasser 1 Mo\./);
    const huge = await postFiles(treasurer, '/stock/transactions/payments/', fields, [
      { name: 'receipt', filename: 'huge.pdf', type: 'application/pdf', bytes: Buffer.concat([PDF, Buffer.alloc(3 * 1024 * 1024)]) },
    ]);
    assert.equal(huge.status, 413);
    for (const [change, message] of [
      [{ amount: '0' }, /Entrez un montant supérieur à 0|0/],
      [{ amount: 'abc' }, /montant/],
      [{ way: 'c' }, /Choisissez une dépense ou une réception\./],
      [{ payment_date: '2026-02-30' }, /Entrez une date comme 2026-12-31\./],
      [{ comments: 'x'.repeat(201) }, /200 caractères au plus/],
      [{ zone: '999999' }, /Choisissez une zone de fonds existante\./],
    ] as const) {
      const res = await postFiles(treasurer, '/stock/transactions/payments/', { ...fields, ...change }, [
        { name: 'receipt', filename: 'ticket.pdf', type: 'application/pdf', bytes: PDF },
      ]);
      assert.equal(res.status, 422, JSON.stringify(change));
      assert.match(res.body, message);
    }
    const truncated = multipart({ csrfmiddlewaretoken: 'x', ...fields }, [{ name: 'receipt', filename: 'a.pdf', type: 'application/pdf', bytes: PDF }]);
    const cut = await treasurer.post('/stock/transactions/payments/', truncated.body.subarray(0, truncated.body.length - 40), { 'content-type': truncated.type });
    assert.ok(cut.status >= 400 && cut.status < 500, `a truncated body: ${cut.status}`);
    const noBoundary = await treasurer.post('/stock/transactions/payments/', 'garbage', { 'content-type': 'multipart/form-data' });
    assert.ok(noBoundary.status >= 400 && noBoundary.status < 500);
    const count = await server.database.db.selectFrom('stock_payments').select('id').where('zone_id', '=', Number(zone)).execute();
    assert.equal(count.length, before, 'nothing recorded by the refused forms');
    const receipts = await server.database.db.selectFrom('stock_receipts').select('path').execute();
    assert.equal(receipts.length, 3, 'no receipt kept for a refused payment');
  });

  it('serves a receipt to the treasury only, with its type and private headers; 404 to anyone else and under /media/', async () => {
    const row = await server.database.db.selectFrom('stock_payments').select('receipt').where('receipt', 'like', '%.pdf').executeTakeFirstOrThrow();
    const path = `/stock/receipts/${row.receipt!}`;
    for (const b of [treasurer, superuser]) {
      const res = await fetch(`${base}${path}`, { headers: { cookie: b.cookieHeader()! } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'application/pdf');
      assert.equal(res.headers.get('cache-control'), 'private, no-store');
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.match(res.headers.get('content-disposition') ?? '', /filename="[A-Za-z0-9_-]{22}\.pdf"/);
      assert.deepEqual(Buffer.from(await res.arrayBuffer()), PDF);
    }
    assert.equal((await visitor.get(path)).status, 404);
    assert.equal((await member.get(path)).status, 404);
    assert.equal((await treasurer.get('/stock/receipts/souches/AAAAAAAAAAAAAAAAAAAAAA.pdf')).status, 404);
    for (const b of [visitor, member, treasurer]) assert.equal((await b.get(`/media/${row.receipt!}`)).status, 404);
  });

  it('records a refund owed to a member and completes it by an expense from a zone, commented in the space’s language', async () => {
    const zone = await zoneId('Caisse du frigo');
    const res = await postFiles(treasurer, '/stock/transactions/refunds/', { member: String(memberId), title: 'Pizzas réunion', amount: '42.50' }, [
      { name: 'receipt', filename: 'r.png', type: 'image/png', bytes: PNG },
    ]);
    assert.equal(res.status, 303);
    const refund = await server.database.db.selectFrom('stock_refunds').selectAll().where('title', '=', 'Pizzas réunion').executeTakeFirstOrThrow();
    assert.equal(refund.amount_cents, 4250);
    assert.equal(refund.user_id, memberId);
    assert.equal(refund.payment_id, null);
    assert.match((await treasurer.get('/stock/transactions')).body, /Pizzas réunion/);
    const bad = await postFiles(treasurer, '/stock/transactions/refunds/', { member: String(memberId), title: '', amount: '1' }, []);
    assert.equal(bad.status, 422);
    const done = await post(treasurer, `/stock/transactions/refunds/${refund.id}/complete/`, { zone: String(zone) });
    assert.equal(done.status, 303);
    const after = await server.database.db.selectFrom('stock_refunds').selectAll().where('id', '=', refund.id).executeTakeFirstOrThrow();
    const payment = await server.database.db.selectFrom('stock_payments').selectAll().where('id', '=', after.payment_id!).executeTakeFirstOrThrow();
    assert.deepEqual(
      [payment.way, payment.amount_cents, payment.zone_id, payment.comments, payment.receipt, payment.user_id],
      ['a', 4250, zone, "Remboursement 'Pizzas réunion' à mia", refund.receipt, treasurerId],
    );
    const twice = await post(treasurer, `/stock/transactions/refunds/${refund.id}/complete/`, { zone: String(zone) });
    assert.equal(twice.status, 422);
    assert.match(twice.body, /Ce remboursement a déjà été payé\./);
  });

  it('corrects a ledger entry with a reason, recorded by the treasurer through the web; refuses without a reason or twice', async () => {
    const db = server.database.db;
    const entry = await db
      .insertInto('ledger_entries')
      .values({ user_id: memberId, kind: 'spend', amount_cents: -300, info: 'Café', channel: 'web', created_us: Date.now() * 1000 })
      .returning('id')
      .executeTakeFirstOrThrow();
    await db
      .updateTable('users')
      .set({ balance_cents: (eb) => eb('balance_cents', '-', 300) })
      .where('id', '=', memberId)
      .execute();
    const noReason = await post(treasurer, '/stock/transactions/corrections/', { entry: String(entry.id), reason: ' ' });
    assert.equal(noReason.status, 422);
    const res = await post(treasurer, '/stock/transactions/corrections/', { entry: String(entry.id), reason: 'Double compté' });
    assert.equal(res.status, 303);
    const correction = await db.selectFrom('ledger_entries').selectAll().where('reverses_id', '=', entry.id).executeTakeFirstOrThrow();
    assert.deepEqual(
      [correction.kind, correction.amount_cents, correction.info, correction.recorded_by, correction.channel],
      ['correction', 300, 'Double compté', treasurerId, 'web'],
    );
    const twice = await post(treasurer, '/stock/transactions/corrections/', { entry: String(entry.id), reason: 'Encore' });
    assert.equal(twice.status, 422);
  });

  it('shows the totals owed by and to members and the balances by member', async () => {
    const db = server.database.db;
    // Balances as the ledger leaves them: a debt for mia, a credit for the treasurer.
    await db.updateTable('users').set({ balance_cents: -725 }).where('id', '=', memberId).execute();
    await db.updateTable('users').set({ balance_cents: 1990 }).where('id', '=', treasurerId).execute();
    const rows = await db.selectFrom('users').select(['username', 'balance_cents']).execute();
    const owedBy = -rows.filter((r) => Number(r.balance_cents) < 0).reduce((s, r) => s + Number(r.balance_cents), 0);
    const owedTo = rows.filter((r) => Number(r.balance_cents) > 0).reduce((s, r) => s + Number(r.balance_cents), 0);
    const page = (await treasurer.get('/stock/transactions')).body;
    const fmt = (c: number) => new Intl.NumberFormat('fr', { style: 'currency', currency: 'EUR' }).format(c / 100);
    assert.ok(/id="owed-by-members">([^<]*)</.exec(page)![1].endsWith(fmt(owedBy)));
    assert.ok(/id="owed-to-members">([^<]*)</.exec(page)![1].endsWith(fmt(owedTo)));
    assert.match(page, /<table id="balances">[\s\S]*mia/);
  });

  it('gives the ledger of a period as CSV, times in the space’s zone, formulas neutralised', async () => {
    const db = server.database.db;
    await db
      .insertInto('ledger_entries')
      .values({ user_id: memberId, kind: 'spend', amount_cents: -150, info: '=HYPERLINK("http://evil")', channel: 'web', created_us: Date.parse('2026-06-15T10:00:00Z') * 1000 })
      .execute();
    await db
      .insertInto('ledger_entries')
      .values({ user_id: memberId, kind: 'spend', amount_cents: -5, info: 'hors période', channel: 'web', created_us: Date.parse('2026-07-01T12:00:00Z') * 1000 })
      .execute();
    const res = await treasurer.get('/stock/transactions/ledger.csv?from=2026-06-01&to=2026-06-30');
    assert.equal(res.status, 200);
    assert.match(res.headers['content-type'] as string, /^text\/csv/);
    assert.match(res.headers['content-disposition'] as string, /^attachment; filename="ledger-2026-06-01-2026-06-30\.csv"$/);
    const lines = res.body.trim().split('\r\n');
    assert.equal(lines[0], 'id,time,member,kind,amount,product,unit_price,quantity,location,info,counterpart,reverses,recorded_by,channel');
    assert.equal(lines.length, 2);
    // Europe/Brussels unless TIME_ZONE says otherwise: the test reads the server's zone as the config has it.
    const zone = server.config.timeZone;
    const time = new Intl.DateTimeFormat('sv-SE', { timeZone: zone, dateStyle: 'short', timeStyle: 'medium' }).format(Date.parse('2026-06-15T10:00:00Z'));
    assert.match(lines[1], new RegExp(`^\\d+,${time},mia,spend,-1\\.50,,,,,"'=HYPERLINK\\(""http://evil""\\)",,,,web$`));
    assert.equal((await treasurer.get('/stock/transactions/ledger.csv?from=2026-06-30&to=2026-06-01')).status, 422);
    assert.equal((await treasurer.get('/stock/transactions/ledger.csv')).status, 422);
    assert.equal((await visitor.get('/stock/transactions/ledger.csv?from=2026-06-01&to=2026-06-30')).status, 303);
  });
});

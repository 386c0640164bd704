/**
 * Members' passwords (docs: members.md §1): every hash format Django made in the fixture verifies,
 * new hashes are Django's pbkdf2_sha256 (checked against PBKDF2 computed here and, when Django is
 * installed, by Django itself), malformed hashes neither match nor throw, hashing is bounded, and
 * new passwords follow the rules. No database: the same on both engines.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { HashingBusy, HashingSlots, PasswordHasher, passwordProblem, type PasswordCheck } from '../../../src/apps/users/passwords.js';

interface FixtureEntry {
  format: string;
  password: string;
  hash: string;
  note: string;
}
const fixture = JSON.parse(fs.readFileSync(new URL('../../fixtures/django-password-hashes.json', import.meta.url), 'utf8')) as {
  made_with: string;
  unusable: string;
  hashes: FixtureEntry[];
};

/** The formats members.md §1 lists; the fixture must hold each. */
const FORMATS = ['pbkdf2_sha256', 'pbkdf2_sha1', 'argon2', 'bcrypt_sha256', 'bcrypt', 'scrypt', 'md5', 'mediawiki'];
/** Cheap iterations for tests that make many hashes; the fixture's Django hashes use 600,000. */
const FAST = 1000;

/** A new hash as members.md §1 states it: pbkdf2_sha256, the iterations, a 22-character salt of a-zA-Z0-9, 32 bytes in padded base64. */
const NEW_HASH = /^pbkdf2_sha256\$([0-9]+)\$([a-zA-Z0-9]{22})\$([A-Za-z0-9+/]{43}=)$/;

/** PBKDF2-HMAC-SHA256 as members.md §1 defines Django's: 32 bytes, the salt as UTF-8 text, base64. */
function djangoPbkdf2Sha256(password: string, salt: string, iterations: number): string {
  return crypto.pbkdf2Sync(Buffer.from(password, 'utf8'), Buffer.from(salt, 'utf8'), iterations, 32, 'sha256').toString('base64');
}

function recordingLog() {
  const lines: { obj: object; msg: string }[] = [];
  return { lines, log: { warn: (obj: object, msg: string) => lines.push({ obj, msg }) } };
}

describe('verifying the hashes Django made', () => {
  const hasher = new PasswordHasher({ iterations: FAST, concurrency: 4, queueLimit: 100 });

  it('the fixture holds every format of the table', () => {
    assert.deepEqual([...new Set(fixture.hashes.map((e) => e.format))].sort(), [...FORMATS].sort());
  });

  for (const entry of fixture.hashes) {
    it(`${entry.format}: ${entry.note || entry.hash.split('$').slice(0, 2).join('$')}`, async () => {
      const right = await hasher.verify(entry.hash, entry.password);
      assert.equal(right.matches, true, 'its password matches');
      for (const wrong of [`${entry.password}x`, entry.password.toUpperCase() === entry.password ? 'other' : entry.password.toUpperCase(), 'wrong password']) {
        assert.deepEqual(await hasher.verify(entry.hash, wrong), { matches: false, upgraded: null }, `${JSON.stringify(wrong)} does not`);
      }
    });
  }

  it("the fixture's PBKDF2 hashes are what the spec's definition gives (checked without the module)", () => {
    for (const entry of fixture.hashes.filter((e) => e.format === 'pbkdf2_sha256' && e.hash.split('$')[1] === '20000')) {
      const [, iterations, salt, encoded] = entry.hash.split('$');
      assert.equal(djangoPbkdf2Sha256(entry.password, salt, Number(iterations)), encoded);
    }
  });

  it('an unusable password never matches, whatever follows the "!"', async () => {
    const valid = fixture.hashes.find((e) => e.format === 'md5')!;
    for (const stored of [fixture.unusable, '!', `!${valid.hash}`]) {
      for (const password of ['', valid.password, stored, stored.slice(1)]) {
        assert.deepEqual(await hasher.verify(stored, password), { matches: false, upgraded: null });
      }
    }
  });
});

describe('upgrading and making hashes', () => {
  it('upgraded is null exactly for pbkdf2_sha256 at the configured iterations', async () => {
    const hasher = new PasswordHasher({ iterations: 600_000, concurrency: 4, queueLimit: 100 });
    for (const entry of fixture.hashes) {
      const check = await hasher.verify(entry.hash, entry.password);
      const current = entry.hash.startsWith('pbkdf2_sha256$600000$');
      assert.equal(check.matches, true);
      assert.equal(check.upgraded === null, current, `${entry.hash.split('$')[0]}: upgraded ${current ? 'null' : 'a new hash'}`);
      if (check.upgraded !== null) {
        const m = NEW_HASH.exec(check.upgraded);
        assert.ok(m, 'the upgraded hash has the new format');
        assert.equal(m[1], '600000');
        assert.equal(m[3], djangoPbkdf2Sha256(entry.password, m[2], 600_000), 'and is the password under the spec PBKDF2');
      }
    }
  });

  it('an upgraded hash verifies with the same password and is then current', async () => {
    const hasher = new PasswordHasher({ iterations: FAST, concurrency: 2, queueLimit: 100 });
    const entry = fixture.hashes.find((e) => e.format === 'mediawiki')!;
    const { upgraded } = await hasher.verify(entry.hash, entry.password);
    assert.ok(upgraded !== null);
    assert.deepEqual(await hasher.verify(upgraded, entry.password), { matches: true, upgraded: null });
    assert.equal((await hasher.verify(upgraded, `${entry.password}!`)).matches, false);
  });

  it('hash() gives the new format, the spec PBKDF2 of the password, a new salt each time', async () => {
    const hasher = new PasswordHasher({ iterations: FAST, concurrency: 2, queueLimit: 100 });
    for (const password of ['correct horse battery staple', 'Brüsselse wafel €5', '短い', '', 'p@$$w0rd']) {
      const first = NEW_HASH.exec(await hasher.hash(password));
      const second = NEW_HASH.exec(await hasher.hash(password));
      assert.ok(first && second, 'pbkdf2_sha256$<iterations>$<22-char salt>$<44-char base64>');
      assert.equal(first[1], String(FAST));
      assert.notEqual(first[2], second[2], 'two different salts');
      assert.equal(first[3], djangoPbkdf2Sha256(password, first[2], FAST));
      assert.equal(second[3], djangoPbkdf2Sha256(password, second[2], FAST));
    }
  });

  it("a hash at the original's 1,200,000 iterations verifies and is current", async () => {
    const hasher = new PasswordHasher({ iterations: 1_200_000, concurrency: 2, queueLimit: 10 });
    const salt = 'AbCdEfGhIjKlMnOpQrStUv';
    const stored = `pbkdf2_sha256$1200000$${salt}$${djangoPbkdf2Sha256('long enough', salt, 1_200_000)}`;
    assert.deepEqual(await hasher.verify(stored, 'long enough'), { matches: true, upgraded: null });
  });

  const django = spawnSync('/usr/bin/python3', ['-c', 'import django'], { stdio: 'ignore' });
  const noDjango = django.status === 0 ? false : 'Django is not installed (apt-get install python3-django)';
  it("Django's check_password accepts a hash made here, and rejects a wrong password", { skip: noDjango }, async () => {
    const hasher = new PasswordHasher({ iterations: FAST, concurrency: 2, queueLimit: 10 });
    const cases = await Promise.all(['correct horse battery staple', 'Brüsselse wafel €5', '短い'].map(async (password) => ({ password, hash: await hasher.hash(password) })));
    const script = [
      'import json, sys',
      'from django.conf import settings',
      'settings.configure()',
      'from django.contrib.auth.hashers import check_password, identify_hasher',
      'out = []',
      'for c in json.load(sys.stdin):',
      "    out.append([identify_hasher(c['hash']).algorithm, check_password(c['password'], c['hash']), check_password(c['password'] + 'x', c['hash'])])",
      'print(json.dumps(out))',
    ].join('\n');
    const result = spawnSync('/usr/bin/python3', ['-c', script], { input: JSON.stringify(cases), encoding: 'utf8' });
    assert.equal(result.status, 0, result.stderr);
    assert.deepEqual(
      JSON.parse(result.stdout),
      cases.map(() => ['pbkdf2_sha256', true, false]),
    );
  });
});

describe('malformed and unknown hashes', () => {
  const b64 = (n: number) => Buffer.alloc(n, 7).toString('base64');
  const phc = (n: number) => b64(n).replace(/=+$/, '');
  const bcryptTail = '$2b$12$fKihPc2s9OWMKmUr0.6IT.LbiW8pGwOozxOPFqKIE/mdUTlRdUUHe';
  const MALFORMED = [
    '',
    'pbkdf2_sha256',
    'pbkdf2_sha256$',
    'pbkdf2_sha256$$salt$' + b64(32),
    'pbkdf2_sha256$abc$salt$' + b64(32),
    'pbkdf2_sha256$-1$salt$' + b64(32),
    'pbkdf2_sha256$0$salt$' + b64(32),
    'pbkdf2_sha256$1e6$salt$' + b64(32),
    'pbkdf2_sha256$0x10$salt$' + b64(32),
    'pbkdf2_sha256$999999999999999999999$salt$' + b64(32),
    'pbkdf2_sha256$4000000000$salt$' + b64(32),
    'pbkdf2_sha256$1000$$' + b64(32),
    'pbkdf2_sha256$1000$salt$' + b64(31),
    'pbkdf2_sha256$1000$salt$not base64!',
    'pbkdf2_sha256$1000$salt$' + b64(32).replace(/=$/, ''),
    'pbkdf2_sha256$1000$salt$' + b64(32) + '$extra',
    'pbkdf2_sha1$1000$salt$' + b64(32),
    'pbkdf2_sha1$99999999999$salt$' + b64(20),
    'argon2',
    'argon2$argon2x$v=19$m=512,t=2,p=2$' + phc(16) + '$' + phc(16),
    'argon2$argon2id$v=18$m=512,t=2,p=2$' + phc(16) + '$' + phc(16),
    'argon2$argon2id$v=19$m=4194304,t=2,p=2$' + phc(16) + '$' + phc(16),
    'argon2$argon2id$v=19$m=512,t=100000,p=2$' + phc(16) + '$' + phc(16),
    'argon2$argon2id$v=19$m=512,t=2,p=100000$' + phc(16) + '$' + phc(16),
    'argon2$argon2id$v=19$m=512,t=0,p=2$' + phc(16) + '$' + phc(16),
    'argon2$argon2id$v=19$m=1,t=2,p=2$' + phc(16) + '$' + phc(16),
    'argon2$argon2id$v=19$t=2,m=512,p=2$' + phc(16) + '$' + phc(16),
    'argon2$argon2id$v=19$m=512,t=2,p=2$' + phc(4) + '$' + phc(16),
    'argon2$argon2id$v=19$m=512,t=2,p=2$' + phc(16) + '$' + phc(2),
    'argon2$argon2id$v=19$m=512,t=2,p=2$' + phc(16) + '$' + b64(16),
    'argon2$argon2id$v=19$m=512,t=2,p=2$!!!$' + phc(16),
    'argon2$argon2id$v=19$m=512,t=2,p=2$' + phc(16),
    'bcrypt$',
    'bcrypt$' + bcryptTail.slice(1),
    'bcrypt$$2b$31$fKihPc2s9OWMKmUr0.6IT.LbiW8pGwOozxOPFqKIE/mdUTlRdUUHe',
    'bcrypt$$2b$03$fKihPc2s9OWMKmUr0.6IT.LbiW8pGwOozxOPFqKIE/mdUTlRdUUHe',
    'bcrypt$$2b$xx$fKihPc2s9OWMKmUr0.6IT.LbiW8pGwOozxOPFqKIE/mdUTlRdUUHe',
    'bcrypt$$2z$12$fKihPc2s9OWMKmUr0.6IT.LbiW8pGwOozxOPFqKIE/mdUTlRdUUHe',
    'bcrypt$' + bcryptTail.slice(0, -1),
    'bcrypt$' + bcryptTail + 'x',
    'bcrypt_sha256$' + bcryptTail.replace('fKih', 'fK!h'),
    'scrypt$16384$salt$8$1',
    'scrypt$16383$salt$8$1$' + b64(64),
    'scrypt$1073741824$salt$8$1$' + b64(64),
    'scrypt$16384$salt$1024$1$' + b64(64),
    'scrypt$16384$salt$8$100000$' + b64(64),
    'scrypt$16384$salt$8$1$' + b64(32),
    'scrypt$16384$$8$1$' + b64(64),
    'scrypt$16384$salt$0$1$' + b64(64),
    'md5$salt',
    'md5$salt$' + 'A'.repeat(32),
    'md5$salt$' + 'a'.repeat(31),
    'md5$salt$' + 'g'.repeat(32),
    'md5$salt$extra$' + 'a'.repeat(32),
    'mediawiki$',
    'mediawiki$salt$' + '0'.repeat(33),
    'mediawiki$salt$xyz',
  ];

  it('never throw and never match', async () => {
    const { log } = recordingLog();
    const hasher = new PasswordHasher({ iterations: FAST, concurrency: 4, queueLimit: MALFORMED.length * 2, log });
    const checks: PasswordCheck[] = await Promise.all(MALFORMED.flatMap((stored) => [hasher.verify(stored, ''), hasher.verify(stored, 'password')]));
    checks.forEach((check, i) => assert.deepEqual(check, { matches: false, upgraded: null }, MALFORMED[Math.floor(i / 2)]));
  });

  it('an unknown format never matches and is logged once, by its name only', async () => {
    const { lines, log } = recordingLog();
    const hasher = new PasswordHasher({ iterations: FAST, concurrency: 2, queueLimit: 10, log });
    const sha1 = 'sha1$somesalt$' + crypto.createHash('sha1').update('somesaltsecret').digest('hex');
    const crypt = 'abQ9KY.KfrYrc'; // a DES crypt(3) hash: no algorithm prefix at all
    for (const stored of [sha1, sha1, crypt, crypt, 'unsalted_sha1$$' + 'a'.repeat(40)]) {
      assert.deepEqual(await hasher.verify(stored, 'secret'), { matches: false, upgraded: null });
    }
    assert.deepEqual(
      lines.map((line) => line.obj),
      [{ format: 'sha1' }, { format: '(no algorithm prefix)' }, { format: 'unsalted_sha1' }],
    );
    const logged = JSON.stringify(lines);
    for (const secret of ['somesalt', 'abQ9KY', 'secret', 'aaaa']) assert.ok(!logged.includes(secret), `${secret} is not logged`);
  });

  it('a malformed hash is logged once per format, without the hash', async () => {
    const { lines, log } = recordingLog();
    const hasher = new PasswordHasher({ iterations: FAST, concurrency: 2, queueLimit: 10, log });
    const stored = 'md5$pepper$' + 'z'.repeat(32);
    await hasher.verify(stored, 'x');
    await hasher.verify(stored, 'x');
    assert.deepEqual(
      lines.map((line) => line.obj),
      [{ format: 'md5' }],
    );
    assert.ok(!JSON.stringify(lines).includes('pepper') && !JSON.stringify(lines).includes('zzzz'));
  });
});

describe('bounded hashing', () => {
  it('at most concurrency + queueLimit verifications are taken; the rest get HashingBusy', async () => {
    const hasher = new PasswordHasher({ iterations: FAST, concurrency: 2, queueLimit: 3 });
    const stored = await hasher.hash('right');
    const results = await Promise.allSettled(Array.from({ length: 12 }, () => hasher.verify(stored, 'right')));
    const fulfilled = results.filter((r) => r.status === 'fulfilled');
    const rejected = results.filter((r) => r.status === 'rejected');
    assert.equal(fulfilled.length, 5);
    for (const r of fulfilled) assert.equal(r.value.matches, true);
    assert.equal(rejected.length, 7);
    for (const r of rejected) {
      assert.ok(r.reason instanceof HashingBusy, String(r.reason));
      assert.ok(Number.isInteger(r.reason.retryAfterSeconds) && r.reason.retryAfterSeconds >= 1);
    }
    // The slots are given back: the next one is taken.
    assert.equal((await hasher.verify(stored, 'right')).matches, true);
  });

  it('hash() takes a slot like verify()', async () => {
    const hasher = new PasswordHasher({ iterations: FAST, concurrency: 1, queueLimit: 0 });
    const results = await Promise.allSettled([hasher.hash('a'), hasher.hash('b'), hasher.verify(null, 'c')]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'rejected'],
    );
  });

  it('an unknown account does not match, and takes a slot as a real check does', async () => {
    const hasher = new PasswordHasher({ iterations: FAST, concurrency: 1, queueLimit: 0 });
    const stored = await hasher.hash('right');
    assert.deepEqual(await hasher.verify(null, 'right'), { matches: false, upgraded: null });
    assert.deepEqual(await hasher.verify(null, ''), { matches: false, upgraded: null });
    const [unknown, real] = await Promise.allSettled([hasher.verify(null, 'right'), hasher.verify(stored, 'right')]);
    assert.equal(unknown.status, 'fulfilled');
    assert.equal(real.status, 'rejected', 'the unknown account held the only slot');
    assert.ok(real.reason instanceof HashingBusy);
  });
});

describe('hashing slots under a queue', () => {
  /** A task that holds its slot for `ms` and records when it ran. */
  const held = (ms: number, runs: { start: number; end: number }[]) => async () => {
    const start = performance.now();
    await new Promise((resolve) => setTimeout(resolve, ms));
    runs.push({ start, end: performance.now() });
  };

  it('a slot others wait for rests as long as its task took before the next one starts', async () => {
    const slots = new HashingSlots(1, 5);
    const runs: { start: number; end: number }[] = [];
    await Promise.all([slots.run(held(40, runs)), slots.run(held(40, runs)), slots.run(held(40, runs))]);
    assert.equal(runs.length, 3);
    for (let i = 1; i < runs.length; i++) {
      const busy = runs[i - 1].end - runs[i - 1].start;
      // Node's timers may fire up to a millisecond early.
      assert.ok(runs[i].start - runs[i - 1].end >= busy - 1, `task ${i} started ${runs[i].start - runs[i - 1].end} ms after a task of ${busy} ms`);
    }
  });

  it('with nobody waiting the slot is free at once', async () => {
    const slots = new HashingSlots(1, 0);
    const runs: { start: number; end: number }[] = [];
    await slots.run(held(20, runs));
    // queueLimit 0: a slot still resting would refuse this one with HashingBusy.
    await slots.run(held(1, runs));
    assert.equal(runs.length, 2);
  });
});

describe('passwordProblem: the rules for a new password', () => {
  const account = { username: 'ada_lovelace', email: 'countess.ada@analytical.example' };
  const cases: [password: string, problem: RegExp | null][] = [
    ['short1!', /too short.*at least 8 characters/],
    ['', /too short/],
    ['€€€€€€€', /too short/],
    ['84736251', /entirely numeric/],
    ['8473625190123', /entirely numeric/],
    ['ada_lovelace', /similar to the username/],
    ['ADA_LOVELACE', /similar to the username/],
    ['lovelace1', /similar to the username/],
    ['countess.ada@analytical.example', /similar to the e-mail address/],
    ['Countess.Ada', /similar to the e-mail address/],
    ['analytical', /similar to the e-mail address/],
    ['password1234', /too common/],
    ['Password1234', /too common/],
    ['qwertyuiop', /too common/],
    ['iloveyou', /too common/],
    ['  iloveyou ', /too common/],
    ['correct horse battery staple', null],
    ['Brüsselse wafel €5', null],
    ['8473625x', null],
  ];
  for (const [password, problem] of cases) {
    it(`${JSON.stringify(password)}: ${problem === null ? 'accepted' : String(problem)}`, () => {
      const message = passwordProblem(password, account);
      if (problem === null) assert.equal(message, null);
      else assert.match(message ?? '(accepted)', problem);
    });
  }

  it('an account without an e-mail address', () => {
    assert.equal(passwordProblem('correct horse battery staple', { username: 'ada', email: '' }), null);
  });
});

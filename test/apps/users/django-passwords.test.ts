import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { exportFixture, importRecords } from '../../../src/installed-apps.js';
import { logIn } from '../../../src/apps/users/login.js';
import { PasswordHasher } from '../../../src/apps/users/passwords.js';
import { freshDatabase } from '../../support/server.js';

/*
 * Django's own word on what members bring and take back (members.md §1, §3): Debian's
 * python3-django (with python3-bcrypt and python3-argon2, which `npm test` installs) makes the
 * members of support/django-auth/people.json with each hasher the original may have used, their
 * groups and rights, and dumps them as the original's `dumpdata` does, by number and with
 * --natural-foreign. We import that, log every member in here (which upgrades their hash), export,
 * and Django loads our export into a new database: every password still logs in with Django's
 * check_password, as pbkdf2_sha256 at our iterations, and every has_perm is what Django said
 * before. The expected values are Django's, never ours.
 */

const JUDGE = path.join(import.meta.dirname, '../../support/django-auth');
const PEOPLE_FILE = path.join(JUDGE, 'people.json');
/** Debian's python3-django installs for Debian's Python, which a python3 earlier on PATH may not be. */
const PYTHON = process.env.PYTHON ?? (fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');
/** The original's default, which an export must keep (members.md §1). */
const ITERATIONS = 1_200_000;

interface Person {
  username: string;
  password: string;
  active: boolean;
}
interface Verdict {
  password: boolean;
  algorithm: string;
  iterations: number | null;
  rights: Record<string, boolean>;
  groups: string[];
}

function unavailable(): string | false {
  const django = spawnSync(PYTHON, ['-c', 'import django, bcrypt, argon2; assert django.VERSION >= (3, 2)'], { encoding: 'utf8' });
  return django.status === 0 ? false : 'Django with its bcrypt and argon2 hashers is not installed (apt-get install python3-django python3-bcrypt python3-argon2)';
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

const readJson = <T>(file: string): T => JSON.parse(fs.readFileSync(file, 'utf8')) as T;

describe("Django's check_password and has_perm judge the members' round trip", { skip: unavailable() }, () => {
  for (const dump of ['by number', 'with natural foreign keys'] as const) {
    it(`hashes and rights Django made (dumped ${dump}) log in here, and our export logs in with Django, with the same rights`, async () => {
      const fresh = await freshDatabase();
      try {
        const { db } = fresh.handle;
        judge(fresh.dir, 'make', PEOPLE_FILE, 'dump.json', 'natural.json', 'before.json');
        const before = readJson<Record<string, Verdict>>(path.join(fresh.dir, 'before.json'));
        await importRecords(db, readJson<unknown[]>(path.join(fresh.dir, dump === 'by number' ? 'dump.json' : 'natural.json')));

        const people = readJson<{ members: Person[] }>(PEOPLE_FILE).members;
        const hasher = new PasswordHasher({ iterations: ITERATIONS, queueLimit: 100 });
        const nowUs = Date.now() * 1000;
        for (const person of people) {
          const wrong = await logIn(db, hasher, { username: person.username, password: `${person.password}!`, client: '192.0.2.1' }, nowUs);
          assert.equal(wrong.kind, 'wrong', person.username);
          // The original's login is case-insensitive on the username.
          const right = await logIn(db, hasher, { username: person.username.toUpperCase(), password: person.password, client: '192.0.2.1' }, nowUs);
          assert.equal(right.kind, person.active ? 'ok' : 'wrong', person.username);
        }

        const chunks: Buffer[] = [];
        const out = new Writable({
          write(chunk, _encoding, done) {
            chunks.push(Buffer.from(chunk));
            done();
          },
        });
        await exportFixture(db, out);
        fs.writeFileSync(path.join(fresh.dir, 'export.json'), Buffer.concat(chunks));
        judge(fresh.dir, 'check', PEOPLE_FILE, path.join(fresh.dir, 'export.json'), 'after.json');
        const after = readJson<Record<string, Verdict>>(path.join(fresh.dir, 'after.json'));

        for (const person of people) {
          const was = before[person.username];
          const is = after[person.username];
          assert.ok(was && is, person.username);
          assert.equal(is.password, true, `${person.username}: Django's check_password of our export`);
          // A login upgrades the hash; an inactive member never logged in, so theirs is as Django made it.
          if (person.active) assert.deepEqual([is.algorithm, is.iterations], ['pbkdf2_sha256', ITERATIONS], person.username);
          else assert.deepEqual([is.algorithm, is.iterations], [was.algorithm, was.iterations], person.username);
          assert.deepEqual(is.rights, was.rights, `${person.username}: has_perm`);
          assert.deepEqual(is.groups, was.groups, `${person.username}: groups`);
        }
      } finally {
        await fresh.cleanup();
      }
    });
  }
});

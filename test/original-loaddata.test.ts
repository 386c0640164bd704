import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { demoRecords, exportFixture } from '../src/installed-apps.js';
import { createToken } from '../src/resources/tokens.js';
import { parseIsoMicros } from '../src/time.js';
import { request } from './support/http.js';
import { ORIGINAL_MODELS } from './support/original-models.js';
import { sampleRecords, startServer } from './support/server.js';

/*
 * The real judge of issue 18's second direction: the original's own models and migrations, under
 * Django, load our export. Needs python3-django and the original's source (ORIGINAL_SOURCE: a
 * clone or a bare repository of UrLab/incubator), whose apps are copied into a temporary
 * directory at test time (we do not ship the original's code). Without either it is skipped with
 * the reason; test/migration.test.ts checks the same constraints with support/original-models.ts.
 */

const JUDGE = path.join(import.meta.dirname, 'support/original-judge');
const APPS = ['users', 'space', 'projects', 'events'];
/** Debian's python3-django installs for Debian's Python, which a python3 earlier on PATH may not be. */
const PYTHON = process.env.PYTHON ?? (fs.existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');

function unavailable(): string | false {
  const django = spawnSync(PYTHON, ['-c', 'import django; assert django.VERSION >= (3, 2)'], { encoding: 'utf8' });
  if (django.status !== 0) return 'Django is not installed (apt-get install python3-django)';
  const source = process.env.ORIGINAL_SOURCE;
  if (!source) return "ORIGINAL_SOURCE does not name the original's source (a clone or bare repository of UrLab/incubator)";
  if (!fs.existsSync(source)) return `ORIGINAL_SOURCE=${source} does not exist`;
  return false;
}

/** The five models' apps and the incubator app's models, from a checkout or a bare repository. */
function copyOriginal(source: string, into: string): void {
  const paths = [...APPS, 'incubator/__init__.py', 'incubator/models.py', 'incubator/migrations'];
  if (fs.existsSync(path.join(source, 'users/models.py'))) {
    for (const p of paths) fs.cpSync(path.join(source, p), path.join(into, p), { recursive: true });
  } else {
    const archive = execFileSync('git', ['--git-dir', source, 'archive', 'HEAD', ...paths], { maxBuffer: 64 << 20, stdio: ['ignore', 'pipe', 'ignore'] });
    execFileSync('tar', ['-x', '-C', into], { input: archive });
  }
  fs.copyFileSync(path.join(JUDGE, 'settings.py'), path.join(into, 'incubator/settings.py'));
  fs.copyFileSync(path.join(JUDGE, 'judge_apps.py'), path.join(into, 'judge_apps.py'));
  fs.mkdirSync(path.join(into, 'django_resized'));
  fs.copyFileSync(path.join(JUDGE, 'django_resized.py'), path.join(into, 'django_resized/__init__.py'));
  fs.writeFileSync(path.join(into, 'django_resized/forms.py'), 'from django_resized import ResizedImageField  # noqa: F401\n');
}

interface FixtureRecord {
  model: string;
  pk: number;
  fields: Record<string, unknown>;
}

describe("the original's loaddata judges our export", () => {
  it('an export of the sample, the demo and records made through the API loads, with the same counts, and dumps back the same', { skip: unavailable() }, async () => {
    const records = [...(sampleRecords() as FixtureRecord[]), ...[...demoRecords({ users: 20, openings: 300, projects: 8, events: 10, meetings: 5 }, 11)].map(shifted)];
    const server = await startServer({ records });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hackerspace-original-'));
    try {
      const { secret } = await createToken(server.database.db, 'judge', 'admin', Date.now() * 1000);
      const post = async (collection: string, json: unknown) => {
        const res = await request(server.base, `/api/${collection}/`, {
          method: 'POST',
          headers: { authorization: `Token ${secret}`, 'content-type': 'application/json' },
          body: JSON.stringify(json),
        });
        assert.equal(res.status, 201, res.body);
        return JSON.parse(res.body) as { id?: number };
      };
      await post('users', { username: 'sans-adresse' });
      await post('users', { username: 'double', email: 'alice@example.org' });
      await post('users', { username: 'triple', email: 'alice@example.org' });
      await post('users', { username: `${'long'.repeat(20)}`, email: 'long@example.org' });
      const event = await post('events', { title: 'Sans organisateur', status: 'i', organizer: null });
      await post('meetings', { event: `${server.base}/api/events/${event.id}/` });

      const chunks: Buffer[] = [];
      await exportFixture(
        server.database.db,
        new Writable({
          write(chunk, _e, done) {
            chunks.push(Buffer.from(chunk));
            done();
          },
        }),
      );
      const exportFile = path.join(dir, 'export.json');
      fs.writeFileSync(exportFile, Buffer.concat(chunks));
      const exported = JSON.parse(fs.readFileSync(exportFile, 'utf8')) as FixtureRecord[];

      copyOriginal(process.env.ORIGINAL_SOURCE!, dir);
      fs.copyFileSync(path.join(JUDGE, 'judge.py'), path.join(dir, 'judge.py'));
      const dumpFile = path.join(dir, 'dump.json');
      const run = spawnSync(PYTHON, ['judge.py', exportFile, dumpFile], {
        cwd: dir,
        encoding: 'utf8',
        env: { ...process.env, PYTHONPATH: dir, DJANGO_SETTINGS_MODULE: 'incubator.settings', JUDGE_DATABASE: path.join(dir, 'original.sqlite3') },
        maxBuffer: 64 << 20,
      });
      assert.equal(run.status, 0, `the original refused the export:\n${run.stderr.slice(-3000)}`);
      const verdict = JSON.parse(run.stdout.trim().split('\n').pop()!) as { counts: Record<string, number>; problems: string[] };
      assert.deepEqual(verdict.problems, []);
      const counts = Object.fromEntries(Object.keys(ORIGINAL_MODELS).map((model) => [model, exported.filter((r) => r.model === model).length]));
      assert.deepEqual(verdict.counts, counts);

      // What the original holds now, dumped by the original: our export field for field, with
      // times as the instant to the millisecond (Django writes milliseconds).
      const dumped = new Map((JSON.parse(fs.readFileSync(dumpFile, 'utf8')) as FixtureRecord[]).map((r) => [`${r.model} ${r.pk}`, r.fields]));
      assert.equal(dumped.size, exported.length);
      for (const record of exported) {
        const key = `${record.model} ${record.pk}`;
        const theirs = dumped.get(key);
        assert.ok(theirs, key);
        for (const [name, value] of Object.entries(record.fields)) {
          const field = ORIGINAL_MODELS[record.model][name];
          const kind = field.kind;
          const other: unknown = theirs[name];
          if (kind === 'datetime' && value !== null) {
            assert.equal(Math.floor(parseIsoMicros(other as string)! / 1000), Math.floor(parseIsoMicros(value as string)! / 1000), `${key}.${name}`);
          } else if (kind === 'm2m') {
            assert.deepEqual(
              [...(other as number[])].sort((a, b) => a - b),
              value,
              `${key}.${name}`,
            );
          } else if (field.kind === 'char' && field.file === true && value === null) {
            // Django's FileField saves "no file" as '' whatever it was given (str() of an empty FieldFile).
            assert.equal(other, '', `${key}.${name}`);
          } else {
            assert.deepEqual(other, value, `${key}.${name}`);
          }
        }
      }
    } finally {
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A demo record moved above the sample's pks (the demo's start at 1 too). */
function shifted(record: FixtureRecord): FixtureRecord {
  const by = 1000;
  const fields = { ...record.fields };
  for (const key of ['maintainer', 'organizer', 'event']) if (typeof fields[key] === 'number') fields[key] = fields[key] + by;
  for (const key of ['participants', 'members']) if (Array.isArray(fields[key])) fields[key] = (fields[key] as number[]).map((id) => id + by);
  if (record.model === 'users.user') fields.username = `${String(fields.username)}~d`;
  return { ...record, pk: record.pk + by, fields };
}

import type { Config } from '../config.js';
import { openDatabase } from '../db/connection.js';
import { loadDemo, migrate } from '../installed-apps.js';
import type { CountedTable } from '../db/tables.js';
import { DEFAULT_DEMO_SEED, demoRecordCount, demoSizesProblem, describeDemoSizes, SMALL_DEMO, type DemoSizes } from '../demo/generate.js';
import type { LoadDemoOutcome } from '../demo/load.js';
import { demoNowProblem } from '../demo/openings.js';
import { ImportError } from '../interchange/import-error.js';
import { formatIsoUtc, parseIsoMicros } from '../time.js';
import { integerOption, UsageError, type Command } from '../command.js';
import { serve } from './serve.js';

/** Below this many records the load takes well under a second: a progress line would only flicker. */
const PROGRESS_THRESHOLD = 50_000;
const PROGRESS_INTERVAL_MS = 200;

const SIZE_NAMES = ['users', 'openings', 'projects', 'events', 'meetings'] as const;

export const demoCommand: Command = {
  name: 'demo',
  summary: 'Fill the database with a generated demo dataset (optionally then serve it)',
  usage: `hackerspace-api demo [--users N] [--openings N] [--projects N] [--events N] [--meetings N]
                     [--seed N] [--now INSTANT] [--replace] [--serve]

Generates a reproducible dataset full of edge cases (odd usernames, DST-boundary door times,
CRLF Markdown, …) and loads it into DATABASE_URL through the same validating importer as
\`import\`, in a single transaction. Its history ends at the moment it is generated: the door
changed a few hours before, the weeks before follow a weekly routine, events are coming.

  --users N, --openings N, …   how many records of each kind (default ${describeDemoSizes(SMALL_DEMO)});
                               at most one meeting per event
  --seed N                     the same sizes, seed and --now always give the same data (default ${DEFAULT_DEMO_SEED})
  --now INSTANT                the moment the history ends, ISO 8601 with its offset
                               (e.g. 2026-11-26T19:00:00Z; default: the current time)
  --replace                    delete ALL existing data in the database first (in the same
                               transaction). Without it, a database that holds any record is left
                               untouched and the command fails.
  --serve                      start the API afterwards, as \`serve\` does

\`npm run demo\` does this on its own database file (data/demo.sqlite), never on the default one.`,
  options: {
    users: { type: 'string' },
    openings: { type: 'string' },
    projects: { type: 'string' },
    events: { type: 'string' },
    meetings: { type: 'string' },
    seed: { type: 'string' },
    now: { type: 'string' },
    replace: { type: 'boolean' },
    serve: { type: 'boolean' },
  },
  async run(values, _positionals, config) {
    const sizes = readSizes(values);
    const seed = integerOption(values, 'seed', DEFAULT_DEMO_SEED);
    const nowUs = readNow(values.now);
    // `serve` opens its own connection, and a second :memory: connection is a different, empty database.
    const target = config.database;
    if (values.serve && target.engine === 'sqlite' && target.path === ':memory:') {
      throw new UsageError('--serve needs a database file: with DATABASE_URL=sqlite::memory: the server would start empty');
    }
    if (!(await fillDatabase(config, sizes, seed, nowUs, values.replace === true))) return 1;
    if (values.serve) await serve(config);
  },
};

function readSizes(values: Record<string, unknown>): DemoSizes {
  const sizes: DemoSizes = { ...SMALL_DEMO };
  for (const name of SIZE_NAMES) sizes[name] = integerOption(values, name, SMALL_DEMO[name]);
  const problem = demoSizesProblem(sizes);
  if (problem) throw new UsageError(problem);
  return sizes;
}

function readNow(raw: string | boolean | undefined): number {
  if (raw === undefined) return Date.now() * 1000;
  const nowUs = typeof raw === 'string' ? parseIsoMicros(raw) : null;
  if (nowUs === null) throw new UsageError(`--now expects an ISO 8601 instant with its offset (e.g. 2026-11-26T19:00:00Z), got ${JSON.stringify(raw)}`);
  const problem = demoNowProblem(nowUs);
  if (problem) throw new UsageError(`--now: ${problem}`);
  return nowUs;
}

/** Returns false when the database already held data and --replace was not given. */
async function fillDatabase(config: Config, sizes: DemoSizes, seed: number, nowUs: number, replace: boolean): Promise<boolean> {
  const database = await openDatabase(config.database);
  const progress = progressLine(demoRecordCount(sizes));
  try {
    await migrate(database.db);
    const outcome = await loadOrExplain(() => loadDemo(database.db, sizes, seed, { replace, nowUs, onProgress: progress?.update }));
    progress?.clear();
    if (!outcome.loaded) {
      process.stderr.write(
        `demo: refusing to touch ${database.location}: it already holds ${describeCounts(outcome.existing)}.\n` +
          'Run again with --replace to delete all of it and load the demo, or point DATABASE_URL at another file.\n',
      );
      return false;
    }
    const replaced = outcome.replaced.length ? ` (replacing ${describeCounts(outcome.replaced)})` : '';
    process.stderr.write(
      `demo: loaded ${describeDemoSizes(sizes)} (seed ${seed}, now ${formatIsoUtc(nowUs)}) into ${database.location}${replaced} ` + `in ${outcome.seconds.toFixed(2)} s\n`,
    );
    return true;
  } finally {
    progress?.clear();
    await database.close();
  }
}

/** The importer refusing generated data is a bug in the generator: say so rather than blame the user. */
async function loadOrExplain(load: () => Promise<LoadDemoOutcome>): Promise<LoadDemoOutcome> {
  try {
    return await load();
  } catch (error) {
    if (error instanceof ImportError) {
      throw new Error(`the importer refused the generated demo data (a bug in src/demo/): ${error.message}`, { cause: error });
    }
    throw error;
  }
}

function describeCounts(counts: Array<{ collection: CountedTable; count: number }>): string {
  return counts.map(({ collection, count }) => `${count} ${collection}`).join(', ');
}

/** A self-overwriting progress line, only on a terminal and only for loads long enough to need one. */
function progressLine(total: number): { update: (read: number) => void; clear: () => void } | null {
  if (!process.stderr.isTTY || total < PROGRESS_THRESHOLD) return null;
  let last = 0;
  let shown = false;
  return {
    update(read: number) {
      const now = performance.now();
      if (now - last < PROGRESS_INTERVAL_MS) return;
      last = now;
      shown = true;
      const percent = Math.min(100, Math.floor((read / total) * 100));
      process.stderr.write(`\rdemo: ${read.toLocaleString('en')} / ${total.toLocaleString('en')} records (${percent}%)\x1b[K`);
    },
    clear() {
      if (shown) process.stderr.write('\r\x1b[K');
      shown = false;
    },
  };
}

// The response cache as it is (a Map kept in LRU order by hand) against the same cache on
// lru-cache (bench/micro/lru-response-cache.ts), for what the server does with it: a cached read
// (has, observe, get: src/cache/fast-path.ts), an insert that evicts, a resize, and a write's purge.
//
//   node --import tsx bench/micro/response-cache.ts        (ROUNDS=n to change the 7 rounds)
//
// lru-cache is not a dependency: install it beside this script first, without touching the
// project's package.json (bench/micro/node_modules is ignored by git):
//   npm install --prefix bench/micro --no-save lru-cache@11
import type { Representation } from '../../src/cache/representation.js';
import { ResponseCache } from '../../src/cache/response-cache.js';
import { snapshotOf, VERSIONED_TABLES, versionsOf, type VersionedTable, type VersionSnapshot } from '../../src/db/table-versions.js';
import { LruPeekResponseCache, LruResponseCache, useLruCache, type LRUCacheClass } from './lru-response-cache.js';
import { clock, measure, report, type Contender } from './rounds.js';

interface Cache {
  observe(snapshot: VersionSnapshot): void;
  has(key: string): boolean;
  get(key: string, snapshot: VersionSnapshot): Representation | undefined;
  set(key: string, representation: Representation): void;
  resize(key: string, representation: Representation): void;
  readonly size: { entries: number; bytes: number };
}

type Implementation = new (maxBytes: number) => Cache;
// Not a dependency: loaded by a name TypeScript does not resolve, so that typecheck passes without it.
const LRU_CACHE: string = 'lru-cache';
try {
  useLruCache((await import(LRU_CACHE)).LRUCache as LRUCacheClass);
} catch (error) {
  console.error(`lru-cache is not installed here (${(error as Error).message.split('\n')[0]}):\n  npm install --prefix bench/micro --no-save lru-cache@11`);
  process.exit(1);
}

const IMPLEMENTATIONS: Array<[string, Implementation]> = [
  ['ours (Map, src/cache/response-cache.ts)', ResponseCache],
  ['lru-cache (get moves on every hit)', LruResponseCache],
  ['lru-cache (peek; moves as ours does)', LruPeekResponseCache],
];

const ENTRIES = 10_000;
const HOT = 50;
const BODY = 2000;
const KEY = (i: number) => `http://127.0.0.1:8080 /api/space/openings/?page=${i}&page_size=10`;
/** What the routes read: an entry reads one of these sets (openings alone for one in seven). */
const READS: VersionedTable[][] = [
  ['openings'],
  ['users'],
  ['projects', 'project_participants', 'users'],
  ['events'],
  ['meetings', 'meeting_members', 'users'],
  ['users'],
  ['events'],
];

const snapshot = (changes: Partial<Record<VersionedTable, number>> = {}) => snapshotOf(VERSIONED_TABLES.map((name) => ({ name, version: changes[name] ?? 1, changed_us: 0 })));

/** Only what the cache reads of a representation: its source and its size (which `resize` sees grow). */
function fake(i: number, under: VersionSnapshot, size = BODY): Representation & { size: number } {
  const reads = READS[i % READS.length];
  return { source: { reads, versions: versionsOf(under, reads), changedUs: 0, allow: 'GET', vary: 'Accept' }, size } as unknown as Representation & { size: number };
}

const keys = Array.from({ length: ENTRIES }, (_, i) => KEY(i));
const bound = Math.floor(ENTRIES * (BODY + 2 * keys[ENTRIES - 1].length) * 1.1); // all of them fit, with room to grow

function filled(Implementation: Implementation, now: VersionSnapshot, maxBytes = bound): Cache {
  const cache = new Implementation(maxBytes);
  cache.observe(now);
  for (let i = 0; i < ENTRIES; i++) cache.set(keys[i], fake(i, now));
  if (cache.size.entries !== ENTRIES) throw new Error(`${cache.size.entries} entries kept, not ${ENTRIES}`);
  return cache;
}

const now = snapshot();
// The hot keys are spread over the cache, so that they are not all among the most recently set.
const hot = Array.from({ length: HOT }, (_, i) => keys[Math.floor((i * ENTRIES) / HOT) + 7]);

function readCase(pick: (i: number) => string): Contender[] {
  return IMPLEMENTATIONS.map(([name, Implementation]) => {
    const cache = filled(Implementation, now);
    return {
      name,
      run(ops) {
        let hits = 0;
        for (let i = 0; i < ops; i++) {
          const key = pick(i);
          if (!cache.has(key)) continue;
          cache.observe(now);
          if (cache.get(key, now) !== undefined) hits++;
        }
        if (hits !== ops) throw new Error(`${name}: ${ops - hits} misses`);
        return hits;
      },
    };
  });
}

report(
  `cached read: has + observe + get, ${HOT} hot keys among ${ENTRIES} entries`,
  measure(
    readCase((i) => hot[i % HOT]),
    2_000_000,
  ),
);
let seed = 1;
const random = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % ENTRIES;
report(
  `cached read: has + observe + get, any of ${ENTRIES} entries (pseudo-random)`,
  measure(
    readCase(() => keys[random()]),
    1_000_000,
  ),
);

// A full cache: every insert evicts the least recently used entry.
const inserts = IMPLEMENTATIONS.map(([name, Implementation]): Contender => {
  const cache = filled(Implementation, now, ENTRIES * (BODY + 2 * keys[ENTRIES - 1].length));
  let next = ENTRIES;
  return {
    name,
    run(ops) {
      const made = Array.from({ length: ops }, (_, i) => [KEY(next + i), fake(next + i, now)] as const);
      next += ops;
      const start = clock();
      for (const [key, representation] of made) cache.set(key, representation);
      const elapsed = clock() - start;
      if (cache.size.entries > ENTRIES) throw new Error(`${name}: ${cache.size.entries} entries`);
      return elapsed;
    },
  };
});
report(`insert into a full cache of ${ENTRIES} entries (each evicts one)`, measure(inserts, 200_000));

// A compressed variant is added to an entry (it grows), or replaced in the next round (it shrinks).
const resizes = IMPLEMENTATIONS.map(([name, Implementation]): Contender => {
  const cache = new Implementation(bound);
  cache.observe(now);
  const representations = keys.map((key, i) => fake(i, now));
  keys.forEach((key, i) => cache.set(key, representations[i]));
  let grow = true;
  return {
    name,
    run(ops) {
      for (let i = 0; i < ops; i++) {
        const j = i % ENTRIES;
        representations[j].size = grow ? BODY + 600 : BODY;
        cache.resize(keys[j], representations[j]);
        if (j === ENTRIES - 1) grow = !grow;
      }
      return cache.size.bytes;
    },
  };
});
report(`resize: an entry's size changes (${ENTRIES} entries)`, measure(resizes, 500_000));

// A write to the openings: observe drops the 1 in 7 entries built from them. Only observe is timed.
const purges = IMPLEMENTATIONS.map(([name, Implementation]): Contender => {
  const cache = filled(Implementation, now);
  let version = 1;
  return {
    name,
    run(ops) {
      let elapsed = 0n;
      for (let i = 0; i < ops; i++) {
        const before = snapshot({ openings: version });
        const after = snapshot({ openings: ++version });
        cache.observe(before);
        for (let j = 0; j < ENTRIES; j += READS.length) cache.set(keys[j], fake(j, before));
        const start = clock();
        cache.observe(after);
        elapsed += clock() - start;
        if (cache.size.entries !== ENTRIES - Math.ceil(ENTRIES / READS.length)) throw new Error(`${name}: ${cache.size.entries} left`);
      }
      return elapsed;
    },
  };
});
report(`a write's purge: observe drops ${Math.ceil(ENTRIES / READS.length)} of ${ENTRIES} entries`, measure(purges, 40), 'ns/purge');

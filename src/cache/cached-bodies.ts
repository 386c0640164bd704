import type { VersionedTable, VersionSnapshot } from '../db/table-versions.js';
import { readAnswer, readAnswerWhenReady, type ReadAnswer, type ReadConditions, type ReadOptions } from './read-answer.js';
import { Representation, sourceOf, type BodyKind, type RepresentationSource } from './representation.js';
import type { ResponseCache } from './response-cache.js';
import { SharedBuilds } from './shared-builds.js';

/** What a body is built from and how: the tables it reads, what kind of body it is, and its builder. */
export interface BodyRecipe {
  reads: readonly VersionedTable[];
  kind: BodyKind;
  build: () => Promise<Buffer>;
}

/**
 * The full path's side of the response cache, for every cached GET (the API's reads, its
 * browsable pages, the web pages and the calendar): the kept body when the tables it was built
 * from have not changed since, else one build however many requests ask at the same time, kept
 * for the next ones and for the fast path. (Written with promises rather than async functions:
 * every read that misses the cache comes this way, and each async layer costs it allocations.)
 */
export class CachedBodies {
  private readonly builds = new SharedBuilds<Representation>();

  constructor(
    private readonly cache: ResponseCache,
    private readonly options: ReadOptions,
  ) {}

  /** The answer to a GET or HEAD of `key` under `snapshot` (versions read after the request arrived, before the body is built). */
  answer(key: string, snapshot: VersionSnapshot, conditions: ReadConditions, recipe: BodyRecipe): Promise<ReadAnswer> {
    const { cache } = this;
    cache.observe(snapshot);
    const kept = cache.get(key, snapshot);
    if (kept !== undefined) {
      cache.reads.hits++;
      return this.answerFrom(key, kept, conditions);
    }
    cache.reads.misses++;
    const source = sourceOf(snapshot, recipe.reads, recipe.kind);
    return this.builds.run(`${key}\n${source.versions.join('.')}`, () => this.build(key, source, recipe)).then((built) => this.answerFrom(key, built, conditions));
  }

  /** The answer to a GET or HEAD that no cache may keep (built for a member): built now, filed nowhere. */
  fresh(snapshot: VersionSnapshot, conditions: ReadConditions, recipe: BodyRecipe): Promise<ReadAnswer> {
    const source = sourceOf(snapshot, recipe.reads, recipe.kind);
    return recipe.build().then((body) => this.answerFrom(null, new Representation(body, source), conditions));
  }

  private build(key: string, source: RepresentationSource, recipe: BodyRecipe): Promise<Representation> {
    return recipe.build().then((body) => {
      const built = new Representation(body, source);
      this.cache.set(key, built);
      return built;
    });
  }

  private answerFrom(key: string | null, representation: Representation, conditions: ReadConditions): Promise<ReadAnswer> {
    const answer = readAnswer(representation, conditions, this.options, Date.now());
    if (answer !== undefined) return Promise.resolve(answer);
    // A coding not made yet: made once, then counted against the cache's bound.
    return readAnswerWhenReady(representation, conditions, this.options).then((ready) => {
      if (key !== null) this.cache.resize(key, representation);
      return ready;
    });
  }
}

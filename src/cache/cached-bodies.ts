import type { VersionedTable, VersionSnapshot } from '../db/table-versions.js';
import { readAnswerWhenReady, type ReadAnswer, type ReadConditions, type ReadOptions } from './read-answer.js';
import { Representation, sourceOf, type BodyKind } from './representation.js';
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
 * for the next ones and for the fast path.
 */
export class CachedBodies {
  private readonly builds = new SharedBuilds<Representation>();

  constructor(
    private readonly cache: ResponseCache,
    private readonly options: ReadOptions,
  ) {}

  /** The answer to a GET or HEAD of `key` under `snapshot` (versions read after the request arrived, before the body is built). */
  async answer(key: string, snapshot: VersionSnapshot, conditions: ReadConditions, recipe: BodyRecipe): Promise<ReadAnswer> {
    const { cache } = this;
    cache.observe(snapshot);
    let representation = cache.get(key, snapshot);
    if (representation === undefined) {
      const source = sourceOf(snapshot, recipe.reads, recipe.kind);
      representation = await this.builds.run(`${key}\n${source.versions.join('.')}`, async () => {
        const built = new Representation(await recipe.build(), source);
        cache.set(key, built);
        return built;
      });
    }
    const answer = await readAnswerWhenReady(representation, conditions, this.options);
    cache.resize(key, representation);
    return answer;
  }
}

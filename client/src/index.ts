import type { components, paths } from './schema.js';
import { readEvents } from './sse.js';

export type { components, operations, paths } from './schema.js';
export { readEvents, type ServerSentEvent } from './sse.js';

type Schemas = components['schemas'];

/** The records, as the OpenAPI document defines them (generated into schema.d.ts). */
export type User = Schemas['User'];
export type Project = Schemas['Project'];
export type Meeting = Schemas['Meeting'];
export type Event = Schemas['Event'];
export type Opening = Schemas['Openings'];
/** The shop's (read-only): a category `{ name }`, a product `{ name, price: "1.50", category }`, a purchase in the urtip stream `{ username, price: "1.50€" }`. */
export type Category = Schemas['Category'];
export type Product = Schemas['Product'];
export type Urtip = Schemas['Urtip'];
export type SpaceStatus = Schemas['SpaceStatus'];
export type SpaceHours = Schemas['SpaceHours'];
/** `/spaceapi.json`: the space in the SpaceAPI format (version 15), as the official schema defines it. */
export type SpaceApi = Schemas['SpaceApi'];
/** The body of an error answer: `{ detail }`, or `{ field: [messages] }` for invalid fields. */
export type ErrorBody = Schemas['Error'] | Schemas['FieldErrors'];

/** What each collection reads and writes: its record, a page of them, the fields of a create (or PUT) and of a PATCH. */
export interface Collections {
  users: { record: User; page: Schemas['UserPage']; fields: Schemas['UserFields']; patch: Schemas['UserPatch'] };
  openings: { record: Opening; page: Schemas['OpeningsPage']; fields: Schemas['OpeningsFields']; patch: Schemas['OpeningsPatch'] };
  projects: { record: Project; page: Schemas['ProjectPage']; fields: Schemas['ProjectFields']; patch: Schemas['ProjectPatch'] };
  meetings: { record: Meeting; page: Schemas['MeetingPage']; fields: Schemas['MeetingFields']; patch: Schemas['MeetingPatch'] };
  events: { record: Event; page: Schemas['EventPage']; fields: Schemas['EventFields']; patch: Schemas['EventPatch'] };
}
export type CollectionName = keyof Collections;

/** What each read-only collection reads (the original's ReadOnlyPermission: no writes, whatever the token). */
export interface ReadOnlyCollections {
  stockCategories: { record: Category; page: Schemas['CategoryPage'] };
  stockProducts: { record: Product; page: Schemas['ProductPage'] };
  urtip: { record: Urtip; page: Schemas['UrtipPage'] };
}
export type ReadOnlyCollectionName = keyof ReadOnlyCollections;

/** The service's collections, as the OpenAPI document has them: each path that has an `{id}/` below it. */
type CollectionRoot = { [P in keyof paths]: P extends `${infer Root}{id}/` ? Root : never }[keyof paths];

/**
 * Each collection's path under the base URL. The client cannot import the service's registry, and
 * schema.d.ts holds types only: the compiler checks this list against the document's paths both ways.
 */
export const COLLECTION_PATHS = Object.freeze({
  users: '/api/users/',
  openings: '/api/space/openings/',
  projects: '/api/projects/',
  meetings: '/api/meetings/',
  events: '/api/events/',
  stockCategories: '/api/stock/categories/',
  stockProducts: '/api/stock/products/',
  urtip: '/api/streams/urtip/',
} as const satisfies Record<CollectionName | ReadOnlyCollectionName, CollectionRoot>);

/** The compiler names a collection of the OpenAPI document that has no entry above. */
type AssertNone<T extends never> = T;
export type EveryCollectionListed = AssertNone<Exclude<CollectionRoot, (typeof COLLECTION_PATHS)[CollectionName | ReadOnlyCollectionName]>>;
/** A read-only collection is one whose path in the document has no POST: the compiler checks the two lists above against it. */
type WritableRoot = { [P in CollectionRoot]: paths[P]['post'] extends undefined ? never : P }[CollectionRoot];
export type ReadOnlyListed = AssertNone<Exclude<(typeof COLLECTION_PATHS)[ReadOnlyCollectionName], Exclude<CollectionRoot, WritableRoot>>>;
export type WritableListed = AssertNone<Exclude<(typeof COLLECTION_PATHS)[CollectionName], WritableRoot>>;

/** A record's id, or the hyperlink to it that another record holds (`"https://space.example.org/api/users/7/"`). */
export type RecordRef = number | string;

export interface ClientOptions {
  /** Where the service is: `https://space.example.org` (a path prefix is kept: `https://example.org/space`). */
  baseUrl: string;
  /** An API token (`hackerspace-api token create …`), sent as `Authorization: Token …`; reads need none. */
  token?: string | undefined;
  /** The `fetch` to use (default: the global one). */
  fetch?: typeof fetch;
}

export interface ListOptions {
  /** 1-based page number. */
  page?: number;
  /** Records per page (the service caps it at MAX_PAGE_SIZE). */
  pageSize?: number;
  signal?: AbortSignal;
}

export interface RequestOptions {
  signal?: AbortSignal;
}

/** A collection's reads. */
export interface ReadCollection<C extends { record: unknown; page: unknown }> {
  /** One page: `{ count, next, previous, results }`. */
  list(options?: ListOptions): Promise<C['page']>;
  /** Every record, page after page, following each page's `next` link. */
  all(options?: Omit<ListOptions, 'page'>): AsyncGenerator<C['record'], void, undefined>;
  /** One record, by id or by the hyperlink to it (which must be this collection's, under baseUrl). */
  get(ref: RecordRef, options?: RequestOptions): Promise<C['record']>;
}

export interface Collection<K extends CollectionName> extends ReadCollection<Collections[K]> {
  /** Creates a record (admin token); answers it as stored. */
  create(fields: Collections[K]['fields'], options?: RequestOptions): Promise<Collections[K]['record']>;
  /** Changes the fields given (PATCH; admin token). */
  update(ref: RecordRef, changes: Collections[K]['patch'], options?: RequestOptions): Promise<Collections[K]['record']>;
  /** Replaces the record's writable fields (PUT; admin token). */
  replace(ref: RecordRef, fields: Collections[K]['fields'], options?: RequestOptions): Promise<Collections[K]['record']>;
  /** Deletes the record (admin token). */
  remove(ref: RecordRef, options?: RequestOptions): Promise<void>;
}

/** A door report's outcome: `created` (201) when it changed the state, else (200) the latest opening, unchanged. */
export interface DoorReport {
  created: boolean;
  opening: Opening;
}

export interface WatchOptions {
  /** Called for each failed connection (the watcher goes on reconnecting) and for an error thrown by the listener. */
  onError?: (error: unknown) => void;
  /** Resume after this event id (as `Last-Event-ID`): the changes made since it, instead of the current state. */
  lastEventId?: string;
  /** The first reconnection delay, doubled after each failure up to maxDelayMs, and reset by a successful connection (default 250). */
  minDelayMs?: number;
  /** Default 10,000. */
  maxDelayMs?: number;
  /**
   * A connection that brings nothing, not even the server's heartbeat (every 15 s by default), for
   * this long is taken as lost and replaced (default 45,000; 0: never).
   */
  idleTimeoutMs?: number;
  /** Ends the watch, like the function watch returns. */
  signal?: AbortSignal;
}

/** The stream's events give the state and the id of the opening that holds it. */
export type StateListener = (state: SpaceStatus, event: { id: string | undefined }) => void;

export interface Space {
  /** `{ is_open, since }`; both null before the first opening. */
  status(options?: RequestOptions): Promise<SpaceStatus>;
  /** Share of time open per weekday and local hour over the last `weeks` (1..104). */
  hours(options?: RequestOptions & { weeks?: number }): Promise<SpaceHours>;
  /** A door report (door or admin token): 201 when the state changed, 200 when it repeated it. Admins may give a past `time`. */
  record(isOpen: boolean, options?: RequestOptions & { time?: string }): Promise<DoorReport>;
  /**
   * Follows `/api/space/stream/`: the listener gets the current state, then each change.
   * Reconnects after a failure with backoff, resuming with `Last-Event-ID` (no gap, no repeat).
   * Gives up on an answer that will not change by retrying (a 4xx other than 408 and 429).
   * Returns stop(), which aborts the request and ends the watch.
   */
  watch(listener: StateListener, options?: WatchOptions): () => void;
}

/** `client.users`, `client.projects`, …, `client.stockProducts`: one property per collection (the shop's read only). */
export type Client = { readonly baseUrl: string; space: Space } & { [K in CollectionName]: Collection<K> } & {
  [K in ReadOnlyCollectionName]: ReadCollection<ReadOnlyCollections[K]>;
};

/** Any answer other than 2xx: its status and its body (JSON when it was JSON, else text). */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly method: string,
    readonly url: string,
  ) {
    super(`${method} ${url}: ${status}${detailOf(body)}`);
  }
}

function detailOf(body: unknown): string {
  if (typeof body === 'string') return body ? ` ${body.slice(0, 200)}` : '';
  if (body && typeof body === 'object' && typeof (body as { detail?: unknown }).detail === 'string') return ` ${(body as { detail: string }).detail}`;
  return body === undefined ? '' : ` ${JSON.stringify(body).slice(0, 200)}`;
}

async function bodyOf(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  if (/[/+]json\b/.test(response.headers.get('content-type') ?? '')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}

export function createClient(options: ClientOptions): Client {
  const base = new URL(options.baseUrl);
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new TypeError(`baseUrl must be an http(s) URL: ${options.baseUrl}`);
  base.search = '';
  base.hash = '';
  const prefix = base.pathname.replace(/\/+$/, '');
  const baseUrl = base.origin + prefix;
  const doFetch = options.fetch ?? globalThis.fetch;
  const token = options.token;

  const headers = (accept: string, extra: Record<string, string> = {}): Record<string, string> => ({
    Accept: accept,
    ...(token ? { Authorization: `Token ${token}` } : {}),
    ...extra,
  });

  /** The path (with query) of an address under baseUrl, or undefined for any other address. */
  const pathUnder = (address: string): string | undefined => {
    let url: URL;
    try {
      url = new URL(address);
    } catch {
      return undefined;
    }
    if (url.origin !== base.origin || !url.pathname.startsWith(`${prefix}/`) || url.username || url.password) return undefined;
    return url.pathname.slice(prefix.length) + url.search;
  };

  async function call<T>(method: string, path: string, body: unknown, signal: AbortSignal | undefined): Promise<{ status: number; body: T }> {
    const url = baseUrl + path;
    const init: RequestInit = { method, headers: headers('application/json', body === undefined ? {} : { 'Content-Type': 'application/json' }), redirect: 'error' };
    if (body !== undefined) init.body = JSON.stringify(body);
    if (signal) init.signal = signal;
    const response = await doFetch(url, init);
    const content = await bodyOf(response);
    if (!response.ok) throw new ApiError(response.status, content, method, url);
    return { status: response.status, body: content as T };
  }

  /** A collection's reads, and the path of one of its records by id or hyperlink. */
  function reads<C extends { record: unknown; page: { next: string | null; results: unknown[] } }>(
    name: CollectionName | ReadOnlyCollectionName,
  ): { read: ReadCollection<C>; instancePath: (ref: RecordRef) => string } {
    const root = COLLECTION_PATHS[name];
    const escaped = (prefix + root).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const instancePattern = new RegExp(`^${escaped}(\\d+)/$`);

    const instancePath = (ref: RecordRef): string => {
      if (typeof ref === 'number' || /^\d+$/.test(ref)) {
        const id = Number(ref);
        if (!Number.isSafeInteger(id) || id < 0) throw new TypeError(`Not a record id: ${ref}`);
        return `${root}${id}/`;
      }
      let url: URL;
      try {
        url = new URL(ref);
      } catch {
        throw new TypeError(`Neither an id nor a hyperlink: ${ref}`);
      }
      const match = url.origin === base.origin && !url.search && !url.username && !url.password ? instancePattern.exec(url.pathname) : null;
      if (!match) throw new TypeError(`Not a link to ${name} under ${baseUrl}: ${ref}`);
      return `${root}${match[1]}/`;
    };

    const query = (page: number | undefined, pageSize: number | undefined) => {
      const params = new URLSearchParams();
      if (page !== undefined) params.set('page', String(page));
      if (pageSize !== undefined) params.set('page_size', String(pageSize));
      const text = params.toString();
      return text ? `?${text}` : '';
    };

    const read: ReadCollection<C> = {
      async list({ page, pageSize, signal } = {}) {
        return (await call<C['page']>('GET', root + query(page, pageSize), undefined, signal)).body;
      },
      async *all({ pageSize, signal } = {}) {
        let path: string | undefined = root + query(undefined, pageSize);
        while (path !== undefined) {
          const page: C['page'] = (await call<C['page']>('GET', path, undefined, signal)).body;
          for (const record of page.results as C['record'][]) yield record;
          if (page.next === null) return;
          path = pathUnder(page.next);
          if (path === undefined) throw new TypeError(`The next page is not under ${baseUrl}: ${page.next}`);
        }
      },
      async get(ref, { signal } = {}) {
        return (await call<C['record']>('GET', instancePath(ref), undefined, signal)).body;
      },
    };
    return { read, instancePath };
  }

  function collection<K extends CollectionName>(name: K): Collection<K> {
    type C = Collections[K];
    const root = COLLECTION_PATHS[name];
    const { read, instancePath } = reads<C>(name);
    return {
      ...read,
      async create(fields, { signal } = {}) {
        return (await call<C['record']>('POST', root, fields, signal)).body;
      },
      async update(ref, changes, { signal } = {}) {
        return (await call<C['record']>('PATCH', instancePath(ref), changes, signal)).body;
      },
      async replace(ref, fields, { signal } = {}) {
        return (await call<C['record']>('PUT', instancePath(ref), fields, signal)).body;
      },
      async remove(ref, { signal } = {}) {
        await call<undefined>('DELETE', instancePath(ref), undefined, signal);
      },
    };
  }

  const space: Space = {
    async status({ signal } = {}) {
      return (await call<SpaceStatus>('GET', '/api/space/status/', undefined, signal)).body;
    },
    async hours({ signal, weeks } = {}) {
      return (await call<SpaceHours>('GET', `/api/space/hours/${weeks === undefined ? '' : `?weeks=${weeks}`}`, undefined, signal)).body;
    },
    async record(isOpen, { signal, time } = {}) {
      const answer = await call<Opening>('POST', COLLECTION_PATHS.openings, time === undefined ? { is_open: isOpen } : { is_open: isOpen, time }, signal);
      return { created: answer.status === 201, opening: answer.body };
    },
    watch(listener, { onError, lastEventId, minDelayMs = 250, maxDelayMs = 10_000, idleTimeoutMs = 45_000, signal } = {}) {
      const controller = new AbortController();
      const stop = () => controller.abort();
      if (signal?.aborted) stop();
      signal?.addEventListener('abort', stop, { once: true });
      const report = (error: unknown) => {
        try {
          onError?.(error);
        } catch {
          // an error handler's own failure must not end the watch
        }
      };
      let resumeFrom = lastEventId;
      void (async () => {
        let delay = minDelayMs;
        while (!controller.signal.aborted) {
          // One connection: ended by stop(), or by a silence longer than idleTimeoutMs.
          const connection = new AbortController();
          const end = () => connection.abort();
          controller.signal.addEventListener('abort', end);
          let idle: ReturnType<typeof setTimeout> | undefined;
          const alive = () => {
            clearTimeout(idle);
            if (idleTimeoutMs > 0) idle = setTimeout(() => connection.abort(new Error(`No data from the stream for ${idleTimeoutMs} ms`)), idleTimeoutMs);
          };
          try {
            const url = `${baseUrl}/api/space/stream/`;
            alive();
            const response = await doFetch(url, {
              headers: headers('text/event-stream', resumeFrom === undefined ? {} : { 'Last-Event-ID': resumeFrom }),
              signal: connection.signal,
              redirect: 'error',
            });
            if (!response.ok || !response.body || !/^text\/event-stream\b/.test(response.headers.get('content-type') ?? '')) {
              throw new ApiError(response.status, await bodyOf(response), 'GET', url);
            }
            delay = minDelayMs;
            for await (const event of readEvents(response.body, resumeFrom, alive)) {
              if (event.retry !== undefined) delay = Math.max(minDelayMs, Math.min(event.retry, maxDelayMs));
              resumeFrom = event.id;
              if (event.event !== 'state') continue;
              try {
                listener(JSON.parse(event.data) as SpaceStatus, { id: event.id });
              } catch (error) {
                report(error);
              }
            }
          } catch (error) {
            if (controller.signal.aborted) break;
            report(connection.signal.aborted ? connection.signal.reason : error);
            if (error instanceof ApiError && error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429) break;
          } finally {
            clearTimeout(idle);
            controller.signal.removeEventListener('abort', end);
          }
          await pause(delay, controller.signal);
          delay = Math.min(delay * 2, maxDelayMs);
        }
        signal?.removeEventListener('abort', stop);
      })();
      return stop;
    },
  };

  // Every name, the compiler checks: the read-only ones are given reads only.
  const READ_ONLY = {
    users: false,
    openings: false,
    projects: false,
    meetings: false,
    events: false,
    stockCategories: true,
    stockProducts: true,
    urtip: true,
  } as const satisfies Record<CollectionName | ReadOnlyCollectionName, boolean>;
  const names = Object.keys(READ_ONLY) as (CollectionName | ReadOnlyCollectionName)[];
  const WRITABLE = names.filter((name): name is CollectionName => !READ_ONLY[name]);
  const READ = names.filter((name): name is ReadOnlyCollectionName => READ_ONLY[name]);
  const collections = Object.fromEntries(WRITABLE.map((name) => [name, collection(name)])) as { [K in CollectionName]: Collection<K> };
  const readOnly = Object.fromEntries(READ.map((name) => [name, reads(name).read])) as { [K in ReadOnlyCollectionName]: ReadCollection<ReadOnlyCollections[K]> };
  return { baseUrl, space, ...collections, ...readOnly };
}

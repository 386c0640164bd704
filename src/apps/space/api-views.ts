import type { ApiView } from '../../drf/api-view.js';
import { ApiError } from '../../drf/errors.js';
import { STREAM_VARY, VARY } from '../../drf/headers.js';
import { PARSES } from '../../drf/metadata.js';
import { lastValue } from '../../drf/query.js';
import { parameter, ref } from '../../openapi/components.js';
import { jsonOrHtml, viewPathItem } from '../../openapi/operations.js';
import { stream } from './handlers/stream.js';
import { openingHours, parseWeeks, spaceHoursRecord, WEEKS_MESSAGE } from './opening-hours.js';
import { currentSpaceState, spaceStatusRecord } from './openings.js';

declare module '../../drf/routes.js' {
  /** The space's views, as their routes' matches name them. */
  interface ViewKinds {
    status: true;
    hours: true;
    stream: true;
  }
}

const STATUS_OPTIONS = {
  name: 'Space Status',
  description: 'Whether the space is open, and since when (the latest opening; nulls before the first).',
  renders: ['application/json'],
  parses: PARSES,
};

const HOURS_OPTIONS = {
  name: 'Space Hours',
  description: 'The share of time the space was open, per weekday and local hour, over the last weeks (weeks=1 to 104, default 12).',
  renders: ['application/json'],
  parses: PARSES,
};

/** The event stream's OPTIONS: it renders Server-Sent Events and parses nothing. */
const STREAM_OPTIONS = {
  name: 'Space Stream',
  description: 'The space\'s state as Server-Sent Events: the current state, then one "state" event per change; Last-Event-ID resumes.',
  renders: ['text/event-stream'],
  parses: [] as string[],
};

/** The space's API views beside its openings (drf/api-view.ts), in the order the API routes them. */
export const SPACE_VIEWS: readonly ApiView[] = [
  // The space's current state: `/api/space/status/`.
  {
    kind: 'status',
    path: 'space/status',
    suffixes: true,
    vary: VARY,
    options: STATUS_OPTIONS,
    get: {
      body: {
        reads: ['openings'],
        build: async ({ services: { database, times } }) => spaceStatusRecord(await currentSpaceState(database.db), { time: (micros) => times.format(micros) }),
      },
    },
    openapi: (methods) =>
      viewPathItem(
        '/api/space/status/',
        {
          kind: 'status',
          tag: 'space',
          name: STATUS_OPTIONS.name,
          description: STATUS_OPTIONS.description,
          get: {
            description: 'The latest opening\'s state and time; `{"is_open": null, "since": null}` before the first',
            content: jsonOrHtml(ref('SpaceStatus')),
            cached: true,
          },
        },
        methods,
        true,
      ),
  },
  // The share of time the space was open per weekday and hour: `/api/space/hours/`.
  {
    kind: 'hours',
    path: 'space/hours',
    suffixes: true,
    vary: VARY,
    options: HOURS_OPTIONS,
    get: {
      body: {
        reads: ['openings'],
        // The opening hours end at the time of the request: they may be served for a minute (web.md §3).
        maxAgeMs: 60_000,
        build: async ({ services: { database, times } }, resolved) => {
          // Over the weeks before now (the clock the door's records are timed by); a body up to 60 s old may be served.
          const weeks = parseWeeks(lastValue(resolved.query, 'weeks'));
          if (weeks === null) throw new ApiError(400, WEEKS_MESSAGE);
          const untilUs = Date.now() * 1000;
          return spaceHoursRecord(weeks, times.format(untilUs), times.timeZone, await openingHours(database.db, times, untilUs, weeks));
        },
      },
    },
    openapi: (methods) =>
      viewPathItem(
        '/api/space/hours/',
        {
          kind: 'hours',
          tag: 'space',
          name: HOURS_OPTIONS.name,
          description: HOURS_OPTIONS.description,
          get: { description: 'Per weekday (Monday first) and local hour, the share of the time the space was open', content: jsonOrHtml(ref('SpaceHours')), cached: true },
          parameters: [parameter('weeks')],
          readErrors: { 400: 'BadRequest' },
        },
        methods,
        true,
      ),
  },
  // Server-Sent Events (handlers/stream.ts): no format suffix; it negotiates its own media type.
  {
    kind: 'stream',
    path: 'space/stream',
    suffixes: false,
    vary: STREAM_VARY,
    eventStream: true,
    options: STREAM_OPTIONS,
    get: { answer: ({ request, reply, services }, resolved) => stream(request, reply, resolved, services.feed) },
    openapi: (methods) =>
      viewPathItem(
        '/api/space/stream/',
        {
          kind: 'stream',
          tag: 'space',
          name: STREAM_OPTIONS.name,
          description: STREAM_OPTIONS.description,
          get: {
            description:
              'Server-Sent Events. On connect the current state (or, with `Last-Event-ID`, the changes since that event, oldest first, at most 1,000), then one event per change:\n\n' +
              "```\nevent: state\nid: <the opening's id; 0 before the first>\ndata: <the body of /api/space/status/, see SpaceStatus>\n\n```\n\n" +
              'A comment line `: heartbeat` keeps idle connections open. `Accept` must admit `text/event-stream` (`*/*` and `text/*` do), else 406.',
            content: { 'text/event-stream': { schema: { type: 'string', description: 'event: state / id: <id> / data: <SpaceStatus JSON>, one blank line after each' } } },
            cached: false,
          },
          parameters: [parameter('Last-Event-ID'), parameter('lastEventId')],
        },
        methods,
        false,
      ),
  },
];

import type { ApiView } from '../../drf/api-view.js';
import { ApiError } from '../../drf/errors.js';
import { STREAM_VARY, VARY } from '../../drf/headers.js';
import { lastValue } from '../../drf/query.js';
import { singlePathItem, streamPathItem } from '../../openapi/operations.js';
import { stream } from './handlers/stream.js';
import { openingHours, parseWeeks, spaceHoursRecord, WEEKS_MESSAGE } from './opening-hours.js';
import { currentSpaceState, spaceStatusRecord } from './openings.js';

/** The space's API views beside its openings (drf/api-view.ts), in the order the API routes them. */
export const SPACE_VIEWS: readonly ApiView[] = [
  // The space's current state: `/api/space/status/`.
  {
    kind: 'status',
    path: 'space/status',
    suffixes: true,
    vary: VARY,
    get: {
      body: {
        reads: ['openings'],
        build: async ({ services: { database, times } }) => spaceStatusRecord(await currentSpaceState(database.db), { time: (micros) => times.format(micros) }),
      },
    },
    openapi: (methods) => singlePathItem('status', methods),
  },
  // The share of time the space was open per weekday and hour: `/api/space/hours/`.
  {
    kind: 'hours',
    path: 'space/hours',
    suffixes: true,
    vary: VARY,
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
    openapi: (methods) => singlePathItem('hours', methods),
  },
  // Server-Sent Events (handlers/stream.ts): no format suffix; it negotiates its own media type.
  {
    kind: 'stream',
    path: 'space/stream',
    suffixes: false,
    vary: STREAM_VARY,
    get: { answer: ({ request, reply, services }, resolved) => stream(request, reply, resolved, services.feed) },
    openapi: streamPathItem,
  },
];

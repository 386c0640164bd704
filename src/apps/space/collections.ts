import { collection, type CollectionPost, type CollectionPosted } from '../../drf/collections.js';
import { forbidden } from '../../drf/errors.js';
import { FieldErrors } from '../../resources/write-errors.js';
import { SPACE_VIEWS } from './api-views.js';
import { reportDoor } from './handlers/door.js';
import * as openings from './openings.js';
import { SPACE_TABLES } from './tables.js';

/** History is about the past: a future opening would also stamp every later door report. */
export function refuseFutureTime(input: Partial<openings.OpeningInput>, nowUs: number): void {
  if (input.time !== undefined && input.time > nowUs) throw new FieldErrors({ time: ['This time is in the future.'] });
}

/** The API's POST on the openings: a door report (or, with a time, an admin's backfill), by the door's transaction. */
async function postOpening({ writes, fields, scope, audit, nowUs, ctx }: CollectionPost): Promise<CollectionPosted> {
  const input = fields() as openings.OpeningInput;
  if (input.time !== undefined && scope !== 'admin') throw forbidden();
  refuseFutureTime(input, nowUs);
  const recorded = await reportDoor(writes, { isOpen: input.is_open, timeUs: input.time }, audit);
  return { created: recorded.created, id: recorded.id, record: openings.openingRecord(recorded.row, ctx) };
}

/** `/api/space/openings/`, last in the API root. */
export const OPENINGS = collection(SPACE_TABLES, {
  viewName: 'Openings',
  rootOrder: 8,
  table: 'openings',
  reads: ['openings'],
  record: openings.OpeningRecord,
  fields: openings.OpeningFields,
  count: openings.countOpenings,
  list: openings.listOpenings,
  find: openings.findOpening,
  toRecord: openings.openingRecord,
  // A POST is a door report, under the door's rule (apps/space/handlers/door.ts).
  create: null,
  post: postOpening,
  update: (db, id, input: Partial<openings.OpeningInput>, nowUs) => {
    refuseFutureTime(input, nowUs);
    return openings.updateOpening(db, id, input);
  },
  remove: openings.deleteOpening,
  // The space's status, hours and stream: other reads of the openings, at paths of their own.
  views: SPACE_VIEWS,
});

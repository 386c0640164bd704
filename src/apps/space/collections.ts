import { collection } from '../../drf/collections.js';
import { FieldErrors } from '../../resources/write-errors.js';
import * as openings from './openings.js';
import { SPACE_TABLES } from './tables.js';

/** History is about the past: a future opening would also stamp every later door report. */
export function refuseFutureTime(input: Partial<openings.OpeningInput>, nowUs: number): void {
  if (input.time !== undefined && input.time > nowUs) throw new FieldErrors({ time: ['This time is in the future.'] });
}

/** `/api/space/openings/`, last in the API root. */
export const OPENINGS = collection(SPACE_TABLES, {
  viewName: 'Openings',
  rootOrder: 5,
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
  update: (db, id, input: Partial<openings.OpeningInput>, nowUs) => {
    refuseFutureTime(input, nowUs);
    return openings.updateOpening(db, id, input);
  },
  remove: openings.deleteOpening,
});

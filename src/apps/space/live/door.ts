import { recordAudit, type AuditEntry } from '../../../resources/audit.js';
import { backfillOpening, recordDoorReport, type RecordedOpening } from '../openings.js';
import type { AnnouncedWrites } from '../../../live/writes.js';

/** A report of the door's state: now, or (an admin filling in history) at a past time. */
export interface DoorReport {
  isOpen: boolean;
  timeUs?: number;
}

/**
 * The door's transaction, for every way a door reports: the API's `POST /api/space/openings/`,
 * the original's `POST /space/change_status` (both through apps/space/handlers/door.ts) and the MQTT door
 * topic (mqtt.ts). The report is recorded under the door's rule (nothing when it repeats the
 * state), with its audit entry, and announced when it changed the space's state.
 */
export function reportDoor(writes: AnnouncedWrites, report: DoorReport, audit: Omit<AuditEntry, 'recordId'>): Promise<RecordedOpening> {
  return writes.run(async (trx, { spaceBefore }) => {
    // "Now" is read under the write lock: a report timed before taking it could land behind one
    // recorded meanwhile and be compared with the state before that one.
    const recorded =
      report.timeUs === undefined ? await recordDoorReport(trx, report.isOpen, Date.now() * 1000, spaceBefore) : await backfillOpening(trx, report.isOpen, report.timeUs);
    if (recorded.created) await recordAudit(trx, { ...audit, recordId: recorded.id });
    return recorded;
  });
}

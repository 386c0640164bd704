import type { PageTimes } from '../../../web/format.js';
import type { EventSummary } from '../pages.js';

export const EVENT_STATUS_NAMES: Readonly<Record<string, string>> = { r: 'Ready', i: 'Incubating' };

/** When an event takes place, in the space's time zone. */
export function eventWhen(event: Pick<EventSummary, 'start_us' | 'stop_us'>, times: PageTimes): string {
  if (event.start_us === null) return event.stop_us === null ? 'date to be announced' : `until ${times.date(event.stop_us)}`;
  return event.stop_us === null ? times.date(event.start_us) : `${times.date(event.start_us)} – ${times.date(event.stop_us)}`;
}

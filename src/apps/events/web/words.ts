import type { MessageKey, Words } from '../../../i18n/words.js';
import type { EventSummary } from '../pages.js';

/** Event status letters as people read them (the original's names in French). */
export const EVENT_STATUS_NAMES: Readonly<Record<string, MessageKey>> = { r: 'events.status.r', i: 'events.status.i' };

/** An event's status as people read it. */
export function eventStatus(words: Words, status: string): string {
  const key = EVENT_STATUS_NAMES[status];
  return key === undefined ? status : words.t(key);
}

/** When an event takes place, in the space's time zone: `3 déc. 2026, 19:00`, or `long` `jeudi 3 décembre 2026 à 19:00`. */
export function eventWhen(event: Pick<EventSummary, 'start_us' | 'stop_us'>, words: Words, long = false): string {
  const date = (micros: number) => (long ? words.longDateTime(micros) : words.dateTime(micros));
  if (event.start_us === null) return event.stop_us === null ? words.t('events.when.unknown') : words.t('events.when.until', { date: date(event.stop_us) });
  return event.stop_us === null ? date(event.start_us) : `${date(event.start_us)} – ${date(event.stop_us)}`;
}

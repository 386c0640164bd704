import { formatIsoUtc } from '../time.js';
import { emailFor, UsernameSource } from './names.js';
import { DAY, demoNowProblem, HISTORY_START_US, HOUR, isOpenAt, MINUTE, openingTimes } from './openings.js';
import { streamRandom, type Random } from './random.js';
import { agenda, article, markdown, sentence } from './text.js';

/**
 * The demo dataset, as Django dumpdata records: the demo is loaded by the same validating
 * importer as a real fixture, and can be exported like one. Records are produced lazily so a
 * million openings never sit in memory at once. The history ends at the moment it is generated
 * (`now`): the door changed a few hours ago, events are coming, the last meetings are recent.
 */

export interface DemoSizes {
  users: number;
  openings: number;
  projects: number;
  events: number;
  meetings: number;
}

export interface DemoRecord {
  model: string;
  pk: number;
  fields: Record<string, unknown>;
}

/** The original's choices the demo picks from, handed in by the apps whose models they are. */
export interface DemoChoices {
  /** projects.project's `status` codes. */
  readonly projectStatuses: readonly string[];
  /** events.event's `status` codes. */
  readonly eventStatuses: readonly string[];
}

export const SMALL_DEMO: Readonly<DemoSizes> = Object.freeze({
  users: 40,
  openings: 3000,
  projects: 20,
  events: 30,
  meetings: 20,
});

export const DEFAULT_DEMO_SEED = 1;

/** Why these sizes cannot make a consistent dataset, or null when they can. */
export function demoSizesProblem(sizes: DemoSizes): string | null {
  for (const [name, value] of Object.entries(sizes)) {
    if (!Number.isSafeInteger(value) || value < 0) return `${name} must be a whole number, got ${value}`;
  }
  if (sizes.meetings > sizes.events) {
    return `meetings (${sizes.meetings}) cannot exceed events (${sizes.events}): each meeting belongs to its own event`;
  }
  if (sizes.users === 0 && (sizes.projects > 0 || sizes.events > 0)) {
    return 'projects and events need at least one user (their maintainer or organizer)';
  }
  return null;
}

export function demoRecordCount(sizes: DemoSizes): number {
  return sizes.users + sizes.openings + sizes.projects + sizes.events + sizes.meetings;
}

/**
 * Same sizes, seed and `nowUs` (microseconds since the epoch, the end of the history), same
 * records. Users come first, then what refers to them, so each reference points backwards.
 * Throws a RangeError for sizes that `demoSizesProblem` rejects or a moment `demoNowProblem` does.
 */
export function* demoRecords(choices: DemoChoices, sizes: DemoSizes, seed: number = DEFAULT_DEMO_SEED, nowUs: number = Date.now() * 1000): Generator<DemoRecord> {
  const problem = demoSizesProblem(sizes) ?? demoNowProblem(nowUs);
  if (problem) throw new RangeError(problem);
  yield* userRecords(streamRandom(seed, 'users'), sizes.users);
  yield* openingRecords(seed, sizes.openings, nowUs);
  yield* projectRecords(streamRandom(seed, 'projects'), choices.projectStatuses, sizes.projects, sizes.users, nowUs);
  yield* eventRecords(streamRandom(seed, 'events'), choices.eventStatuses, sizes.events, sizes.users, nowUs);
  yield* meetingRecords(streamRandom(seed, 'meetings'), sizes.meetings, sizes.events, sizes.users);
}

function* userRecords(rng: Random, count: number): Generator<DemoRecord> {
  const names = new UsernameSource(rng);
  for (let pk = 1; pk <= count; pk++) {
    const username = names.next(pk - 1);
    yield {
      model: 'users.user',
      pk,
      fields: { username, email: emailFor(rng, username, pk), has_key: rng.chance(0.3) },
    };
  }
}

function* openingRecords(seed: number, count: number, nowUs: number): Generator<DemoRecord> {
  let index = 0;
  for (const micros of openingTimes(seed, count, nowUs)) {
    yield {
      model: 'space.spacestatus',
      pk: index + 1,
      fields: { time: formatIsoUtc(micros), is_open: isOpenAt(index) },
    };
    index++;
  }
}

const PROJECT_TITLES = [
  'Imprimante 3D',
  'HAL 9000',
  'Fourmilière 🐜',
  "Borne d'arcade",
  'Station météo',
  'Découpe laser',
  'Serveur de fichiers',
  'Robot suiveur de ligne',
  'Radio logicielle',
  'Lampe « intelligente »',
  'Projet "secret"',
  'Back\\slash tool',
  '<b>HTML</b> injection',
  'Ünïcödé title',
  '黑客空间 项目',
] as const;

/** Moments when something happened, whole seconds or with a fraction as Django stored them. */
function randomInstant(rng: Random, from: number, to: number): number {
  const micros = from + Math.floor(rng.next() * (to - from));
  const roll = rng.below(4);
  if (roll === 0) return micros;
  if (roll === 1) return micros - (micros % 1000);
  return micros - (micros % 1_000_000);
}

/** A list of user ids, sometimes empty, sometimes including `alsoMaybe` (a maintainer may participate). */
function userIds(rng: Random, users: number, emptyChance: number, alsoMaybe?: number): number[] {
  if (users === 0 || rng.chance(emptyChance)) return [];
  const ids = rng.distinctIds(rng.between(1, 15), users);
  if (alsoMaybe !== undefined && rng.chance(0.3) && !ids.includes(alsoMaybe)) ids.splice(rng.below(ids.length + 1), 0, alsoMaybe);
  return ids;
}

function* projectRecords(rng: Random, statuses: readonly string[], count: number, users: number, nowUs: number): Generator<DemoRecord> {
  for (let i = 0; i < count; i++) {
    const maintainer = rng.between(1, users);
    let participants = userIds(rng, users, 0.2, maintainer);
    let content = rng.chance(0.2) ? '' : article(rng);
    let status: string = rng.pick(statuses);
    let progress = rng.chance(0.1) ? rng.pick([0, 100]) : rng.between(0, 100);
    // The first few are pinned so that even a small demo shows each edge case.
    if (i === 0) [participants, content] = [[], ''];
    if (i === 1) [participants, content] = [[...participants.filter((id) => id !== maintainer), maintainer], markdown(rng, 200)];
    if (i === 2) [status, progress] = ['f', 100];
    if (i === 3) [status, progress] = ['p', 0];
    const created = randomInstant(rng, HISTORY_START_US, nowUs - 60 * DAY);
    // Half of them were touched in the last three months, as projects in progress are.
    const modified = rng.chance(0.5) ? randomInstant(rng, Math.max(created, nowUs - 90 * DAY), nowUs - HOUR) : randomInstant(rng, created, nowUs - HOUR);
    yield {
      model: 'projects.project',
      pk: i + 1,
      fields: {
        title: projectTitle(i),
        maintainer,
        participants,
        status,
        progress,
        short_description: rng.chance(0.1) ? '' : sentence(rng, 3, 30),
        content,
        created: formatIsoUtc(created),
        modified: formatIsoUtc(Math.max(created, modified)),
      },
    };
  }
}

function projectTitle(index: number): string {
  const title = PROJECT_TITLES[index % PROJECT_TITLES.length];
  const round = Math.floor(index / PROJECT_TITLES.length);
  return round === 0 ? title : `${title} ${round + 1}`;
}

const EVENT_TITLES = ['Smart Monday', 'CTF night 🏁', 'Meetup Python', 'Hacker Privacy Party', 'Install party Linux', 'Workshop soudure', 'Réunion', 'Apéro 🍻', 'AG'] as const;

const PLACES = ['Bâtiment U, 2ème étage', 'Room "42"', 'Online 🌐', 'UB2.126', 'ULB — Solbosch', '', 'Salle « U »', 'UrLab'] as const;

/** Stored paths below the media root, as Django keeps them: spaces, accents and URL-special characters included. */
const PICTURES = ['event_pictures/affiche été 2019.png', 'event_pictures/poster.jpg', 'event_pictures/CTF #3 (final).jpeg', 'event_pictures/ポスター 春.png'] as const;

function eventPicture(rng: Random): string | null {
  const roll = rng.below(10);
  if (roll < 6) return '';
  if (roll < 7) return null;
  return rng.pick(PICTURES);
}

const MEETING_TITLES = ['Réunion', 'AG'] as const;

/**
 * When an event takes place, by its index alone (so that meetings can choose events without
 * reading them): one in five in the coming six weeks, one in five in the last ten, the rest
 * over the whole history; a few unscheduled, and one on the night the clocks went back in 2021.
 */
type EventPlacement = 'unscheduled' | 'clocks-back' | 'upcoming' | 'recent' | 'past';

function eventPlacement(index: number): EventPlacement {
  if (index % 25 === 0) return 'unscheduled';
  if (index === 3) return 'clocks-back';
  if (index % 5 === 2) return 'upcoming';
  if (index % 5 === 4) return 'recent';
  return 'past';
}

/** The event that the first meeting, the one still to come, is about: the first upcoming one. */
const NEXT_MEETING_EVENT_INDEX = 2;

const QUARTER = 15 * MINUTE;
const UPCOMING_DAYS = 42;
const RECENT_DAYS = 70;

/** An evening start on the quarter hour (18:00 to 19:30 UTC) `days` days from the day of `nowUs`, and a stop two to four hours later. */
function eveningTimes(rng: Random, nowUs: number, days: number): [number, number] {
  const start = (Math.floor(nowUs / DAY) + days) * DAY + 18 * HOUR + rng.below(7) * QUARTER;
  return [start, start + rng.between(8, 16) * QUARTER];
}

/** Start and stop on the quarter hour, as people schedule them; the start sometimes with milliseconds, the stop sometimes unknown. */
function eventTimes(rng: Random, placement: EventPlacement, nowUs: number): [number | null, number | null] {
  let start: number;
  let stop: number;
  if (placement === 'unscheduled') return [null, null];
  // 02:30 in Brussels twice over: before and after the clocks go back.
  if (placement === 'clocks-back') return [Date.UTC(2021, 9, 31, 0, 30) * 1000, Date.UTC(2021, 9, 31, 1, 30) * 1000];
  if (placement === 'upcoming') [start, stop] = eveningTimes(rng, nowUs, rng.between(1, UPCOMING_DAYS));
  else if (placement === 'recent') [start, stop] = eveningTimes(rng, nowUs, -rng.between(1, RECENT_DAYS));
  else {
    const before = nowUs - RECENT_DAYS * DAY;
    start = HISTORY_START_US + rng.below((before - HISTORY_START_US) / QUARTER) * QUARTER;
    stop = start + rng.between(2, 40) * QUARTER;
    if (rng.chance(0.1)) start += rng.below(1000) * 1000;
  }
  return rng.chance(0.1) ? [start, null] : [start, stop];
}

function* eventRecords(rng: Random, statuses: readonly string[], count: number, users: number, nowUs: number): Generator<DemoRecord> {
  for (let i = 0; i < count; i++) {
    const placement = eventPlacement(i);
    const [start, scheduledStop] = eventTimes(rng, placement, nowUs);
    const stop = i === 1 ? null : scheduledStop;
    let picture = eventPicture(rng);
    if (i === 2) picture = PICTURES[0];
    if (i === 4) picture = '';
    const meetingLike = placement === 'recent' || i === NEXT_MEETING_EVENT_INDEX;
    const title = meetingLike ? rng.pick(MEETING_TITLES) : rng.pick(EVENT_TITLES);
    const status = rng.pick(statuses);
    yield {
      model: 'events.event',
      pk: i + 1,
      fields: {
        title: rng.chance(0.5) ? `${title} #${i + 1}` : title,
        place: rng.pick(PLACES),
        start: start === null ? null : formatIsoUtc(start),
        stop: stop === null ? null : formatIsoUtc(stop),
        // What is coming is announced: the dashboard lists only ready events.
        status: placement === 'upcoming' ? 'r' : status,
        organizer: rng.between(1, users),
        description: rng.chance(0.1) ? '' : markdown(rng, rng.between(1, 10)),
        picture,
      },
    };
  }
}

/**
 * Meetings take distinct events (a meeting is the minutes of one event), in this order: the next
 * meeting's event, then recent events, then older ones (each group shuffled), unscheduled ones,
 * and the other upcoming ones last. 4 bytes per event, not a list of records.
 */
function meetingEventIds(rng: Random, events: number): Uint32Array {
  const ids = new Uint32Array(events);
  let filled = 0;
  const take = (wanted: (index: number) => boolean, shuffled: boolean) => {
    const from = filled;
    for (let index = 0; index < events; index++) if (wanted(index)) ids[filled++] = index + 1;
    if (!shuffled) return;
    for (let i = from; i < filled - 1; i++) {
      const j = i + rng.below(filled - i);
      [ids[i], ids[j]] = [ids[j], ids[i]];
    }
  };
  take((index) => index === NEXT_MEETING_EVENT_INDEX, false);
  take((index) => eventPlacement(index) === 'recent', true);
  take((index) => eventPlacement(index) === 'past' || eventPlacement(index) === 'clocks-back', true);
  take((index) => eventPlacement(index) === 'unscheduled', false);
  take((index) => eventPlacement(index) === 'upcoming' && index !== NEXT_MEETING_EVENT_INDEX, false);
  return ids;
}

function* meetingRecords(rng: Random, count: number, events: number, users: number): Generator<DemoRecord> {
  const eventIds = meetingEventIds(rng, events);
  for (let i = 0; i < count; i++) {
    const pk = i + 1;
    const event = eventIds[i];
    let oj = rng.chance(0.08) ? '' : agenda(rng, rng.chance(0.25));
    let pv = rng.chance(0.1) ? '' : markdown(rng, rng.between(1, 12));
    let members = userIds(rng, users, 0.2);
    // A meeting still to come has its agenda, but neither minutes nor attendance yet.
    if (eventPlacement(event - 1) === 'upcoming') [pv, members] = ['', []];
    if (i === 0) [oj, pv, members] = [agenda(rng, true), '', []];
    yield {
      model: 'events.meeting',
      pk,
      fields: {
        event,
        OJ: oj,
        PV: pv,
        members,
        pad: rng.chance(0.2) ? '' : `https://pad.example.org/p/meeting-notes-${pk}`,
        ongoing: false,
      },
    };
  }
}

/** A short line for a summary, e.g. in the CLI. */
export function describeDemoSizes(sizes: DemoSizes): string {
  return `${sizes.users} users, ${sizes.openings} openings, ${sizes.projects} projects, ${sizes.events} events, ${sizes.meetings} meetings`;
}

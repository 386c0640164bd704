import type { Random } from './random.js';

/**
 * Usernames and e-mail addresses. The hand-picked names come first so that even a tiny demo
 * holds the cases that break sorting, case folding, URL building and avatar hashing; the rest
 * are drawn from mixed-script pools.
 */

/** In order of importance: a demo with N users gets the first N. */
export const EDGE_USERNAMES = [
  ' leadingspace', // leading space: kept verbatim, sorts before everything printable
  '🐜ant', // above U+FFFF at the start: code-point order differs from UTF-16 order
  'jane.doe@example.org', // looks like an e-mail address
  'x🐜y', // astral character inside a name
  '42', // digits only
  'Alice', // upper-case initial…
  'alice_w', // …and lower-case, which sort apart in code-point order
  'zoé', // é
  'Zoë', // ë with an upper-case initial
  'über', // ü
  'Дмитрий', // Cyrillic
  '王小明', // CJK
  'ΟΔΥΣΣΕΥΣ', // Greek capitals (final sigma when lower-cased)
  'straße', // ß upper-cases to SS
  'İstanbul', // İ lower-cases to two code points
  '0day',
  'ZORRO',
  'e\u0301lodie_nfd', // decomposed é (NFD), unlike the composed one below
  'élodie',
  'ﬁnn_ligature', // a ligature that NFKC folds to "fi"
  'ｚｅｄ', // full-width letters
  'Zoltán 太郎', // inner space and mixed scripts
  '👩‍💻dev', // a ZWJ emoji sequence
  '45Αλέξης', // leading digits then Greek
  'Nguyễn-太郎',
  'שרה', // right-to-left
] as const;

const FIRST_NAMES = [
  'adrien',
  'amélie',
  'björn',
  'camille',
  'chloé',
  'damien',
  'fatima',
  'françois',
  'gaëlle',
  'hugo',
  'inès',
  'joão',
  'jörg',
  'josé',
  'karim',
  'léa',
  'manon',
  'mikołaj',
  'océane',
  'pierre',
  'raphaël',
  'søren',
  'thaïs',
  'ursula',
  'valérie',
  'wim',
  'xavier',
  'yasmine',
  'ævar',
  'đorđe',
  'łukasz',
  'ştefan',
  'željko',
  'þór',
  'сергей',
  'наташа',
  'μαρία',
  'αλέξης',
  'さくら',
  '太郎',
  '민수',
  '陈明',
  'ليلى',
  'đạt',
  'noé',
  'benoît',
  'loïc',
  'zoë',
] as const;

const LAST_NAMES = [
  'dupont',
  'martin',
  'peeters',
  'janssens',
  'müller',
  'nguyễn',
  'kowalski',
  'ivanov',
  'papadopoulos',
  'garcía',
  'øberg',
  'smith',
  '山田',
  '김',
  'ahmed',
  'de smet',
] as const;

const EMOJI = ['🐜', '🦊', '🚀', '🎉', '☕', '🔥'] as const;

/**
 * The key two names must not share: full case folding approximated by upper- then lower-casing
 * (so "straße" meets "STRASSE"), after NFKC (so "ﬁ" meets "fi" and full-width meets ASCII).
 */
export function usernameKey(name: string): string {
  return name.normalize('NFKC').toUpperCase().toLowerCase();
}

function recase(rng: Random, word: string): string {
  const roll = rng.below(10);
  if (roll < 5) return word;
  if (roll < 9) return word.charAt(0).toUpperCase() + word.slice(1);
  return word.toUpperCase();
}

/** One candidate name; may collide, the caller retries. */
function candidateName(rng: Random): string {
  const first = recase(rng, rng.pick(FIRST_NAMES));
  const roll = rng.below(20);
  if (roll < 6) return first + rng.between(1, 9999);
  if (roll < 9) return `${first}_${rng.pick([...'abcdefghijklmnopqrstuvwxyz'])}`;
  if (roll < 11) return `${first}-${recase(rng, rng.pick(FIRST_NAMES))}`;
  if (roll < 13) return `${first}.${rng.pick(LAST_NAMES)}@example.org`;
  if (roll < 14) return `${first} ${recase(rng, rng.pick(LAST_NAMES))}`;
  if (roll < 15) return `${rng.between(0, 99)}${first}`;
  if (roll < 16) return rng.chance(0.5) ? rng.pick(EMOJI) + first : first + rng.pick(EMOJI);
  return first;
}

/** Hands out usernames that are unique exactly and case-insensitively. */
export class UsernameSource {
  private readonly taken = new Set<string>();

  constructor(private readonly rng: Random) {}

  next(index: number): string {
    if (index < EDGE_USERNAMES.length && this.claim(EDGE_USERNAMES[index])) return EDGE_USERNAMES[index];
    for (let attempt = 0; attempt < 8; attempt++) {
      const name = candidateName(this.rng);
      if (this.claim(name)) return name;
    }
    // The pools are exhausted for this draw: a number suffix that grows until free always ends it.
    const base = candidateName(this.rng);
    for (let n = index + 1; ; n++) {
      const name = `${base}${n}`;
      if (this.claim(name)) return name;
    }
  }

  private claim(name: string): boolean {
    const key = usernameKey(name);
    if (this.taken.has(key)) return false;
    this.taken.add(key);
    return true;
  }
}

const ASCII_DOMAINS = ['example.org', 'example.net', 'Example.COM', 'mail.example.co.uk', 'ulb.example.be'] as const;
const UNICODE_DOMAINS = ['exämple.be', 'пример.рф', '例子.中国', 'παράδειγμα.ελ'] as const;

function asciiFold(text: string): string {
  return text.normalize('NFKD').replace(/[^A-Za-z0-9._-]/g, '');
}

/**
 * Every user has an address (the avatar hash needs one), in mixed case and sometimes non-ASCII,
 * since the hash must lower-case with full Unicode rules.
 */
export function emailFor(rng: Random, username: string, pk: number): string {
  if (username.includes('@')) return rng.chance(0.5) ? username : username.toUpperCase();
  const local = username.trim().replace(/[^\p{L}\p{N}._-]/gu, '');
  const roll = rng.below(10);
  if (roll < 2 && local) return `${local}@${rng.pick(UNICODE_DOMAINS)}`;
  if (roll < 3 && local) return `${local}@${rng.pick(UNICODE_DOMAINS)}`.toUpperCase();
  const ascii = asciiFold(local) || 'member';
  if (roll < 4) return `${ascii}@${rng.pick(ASCII_DOMAINS)}`.toUpperCase();
  if (roll < 6) return `${ascii.charAt(0).toUpperCase()}${ascii.slice(1)}.${pk}@${rng.pick(ASCII_DOMAINS)}`;
  return `${ascii.toLowerCase()}.${pk}@${rng.pick(ASCII_DOMAINS)}`;
}

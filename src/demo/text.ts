import type { Random } from './random.js';

/**
 * Made-up Markdown in the style of the original's content: French with other scripts mixed in,
 * CRLF line ends (what browsers submit from a <textarea>, so what a real database holds), and
 * the characters that trip up encoders and renderers.
 */

export const CRLF = '\r\n';

const WORDS = [
  'atelier',
  'imprimante',
  'réunion',
  'café',
  'bière',
  'soude',
  'fraiseuse',
  'découpe',
  'laser',
  'arduino',
  'raspberry',
  'Python',
  'Rust',
  'Linux',
  'LEDs',
  'serveur',
  'réseau',
  'données',
  'sécurité',
  'conférence',
  'électronique',
  'projet',
  'wiki',
  'hackerspace',
  'club-mate',
  'soir',
  'ouvert',
  'fourmis',
  'façade',
  'crème',
  'brûlée',
  'naïve',
  'déjà',
  'über',
  'straße',
  'Ωmega',
  '測試',
  'テスト',
  '黑客空间',
  'сергей',
  'Αλέξης',
  '민수',
  '🐜',
  '👩‍💻',
  '«',
  '»',
  'le',
  'des',
  'est',
  'on',
  'ce',
  'vu',
  '3D',
  'ëvérÿwhérê',
  'Ñandú',
  'Łukasz',
  'Þór',
] as const;

/** Lines that exercise escaping and Unicode handling, dropped in now and then. */
const ODD_LINES = [
  'Ligne avec séparateur\u2028Unicode et paragraphe\u2029fin.',
  '<script>alert(\'xss\')</script> & "guillemets" \\ antislash',
  '   espaces autour   ',
  'Tabulation\tau\tmilieu',
  'Emoji mix: 😀🎉🔥 et ZWJ 👩‍💻',
  '[lien](https://urlab.be/projects/720/) et **gras** et _italique_ et `code`',
] as const;

export function words(rng: Random, min: number, max: number): string {
  const count = rng.between(min, max);
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(rng.pick(WORDS));
  return out.join(' ');
}

export function sentence(rng: Random, min = 6, max = 30): string {
  const text = words(rng, min, max);
  return text.charAt(0).toUpperCase() + text.slice(1) + '.';
}

function bullets(rng: Random, ordered: boolean): string {
  const count = rng.between(2, 8);
  const lines: string[] = [];
  for (let i = 1; i <= count; i++) lines.push(`${ordered ? `${i}.` : '*'} ${words(rng, 1, 9)}`);
  return lines.join(CRLF);
}

function codeBlock(rng: Random): string {
  const lines = ['```'];
  const count = rng.between(1, 5);
  for (let i = 0; i < count; i++) lines.push(`    printf("%d\\n", x[${i}]); // ${words(rng, 1, 2)}`);
  lines.push('```');
  return lines.join(CRLF);
}

function table(rng: Random): string {
  return ['| a | b |', '|---|---|', `| ${words(rng, 1, 1)} | ${words(rng, 1, 1)} |`].join(CRLF);
}

function quote(rng: Random): string {
  return `> ${words(rng, 5, 15)}${CRLF}> — ${rng.pick(['민수', 'Søren', 'Zoltán', 'さくら'])}`;
}

function block(rng: Random): string {
  const roll = rng.below(20);
  if (roll < 7) return Array.from({ length: rng.between(1, 3) }, () => sentence(rng)).join(' ');
  if (roll < 11) return bullets(rng, false);
  if (roll < 13) return bullets(rng, true);
  if (roll < 14) return codeBlock(rng);
  if (roll < 15) return table(rng);
  if (roll < 16) return quote(rng);
  if (roll < 17) return `## ${words(rng, 1, 4)}`;
  return rng.pick(ODD_LINES);
}

/** Markdown of `blocks` blocks separated by blank lines, CRLF throughout. */
export function markdown(rng: Random, blocks: number): string {
  const out: string[] = [];
  for (let i = 0; i < blocks; i++) out.push(block(rng));
  return out.join(CRLF + CRLF);
}

/** Usually a few paragraphs, sometimes a long page (tens of kB) like the original's biggest. */
export function article(rng: Random): string {
  return markdown(rng, rng.chance(0.1) ? rng.between(150, 400) : rng.between(2, 12));
}

/** An agenda (OJ): a bullet list, which the original's editors often began with a line break. */
export function agenda(rng: Random, leadingBreak: boolean): string {
  return (leadingBreak ? CRLF : '') + bullets(rng, false);
}

// The catalogues' check (languages.md, "Quality"), run by scripts/test-checks.mjs: every owner of
// words (src/web/, each src/apps/<app>/) has one catalogue per shipped language with exactly the
// English one's keys, every message parses as ICU MessageFormat with the same placeholders and tags
// as the English, every key starts with its owner's name, and every English key is used by the code
// (as a literal string: a key made by concatenation could not be checked).
//
//   node scripts/check-catalogues.mjs
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parse, TYPE } from '@formatjs/icu-messageformat-parser';

export const SHIPPED = ['en', 'fr', 'nl', 'de'];

/** The owners of words: the site's, then each app's, with the prefix their keys carry. */
export function owners(root = '.') {
  const apps = readdirSync(path.join(root, 'src/apps')).sort();
  return [{ prefix: 'site', folder: path.join(root, 'src/web/locale') }, ...apps.map((app) => ({ prefix: app, folder: path.join(root, 'src/apps', app, 'locale') }))];
}

/** The placeholders and tags of a message, as a sorted list (`{count}` and `<link>` alike). */
export function namesOf(message) {
  const names = new Set();
  const walk = (elements) => {
    for (const element of elements) {
      if (element.type === TYPE.literal || element.type === TYPE.pound) continue;
      if (element.type === TYPE.tag) {
        names.add(`<${element.value}>`);
        walk(element.children);
        continue;
      }
      names.add(`{${element.value}}`);
      if (element.type === TYPE.plural || element.type === TYPE.select) for (const option of Object.values(element.options)) walk(option.value);
    }
  };
  walk(parse(message));
  return [...names].sort();
}

function readJson(file, problems) {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8'));
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error('not an object of messages');
    return value;
  } catch (error) {
    problems.push(`${file}: ${error.code === 'ENOENT' ? 'missing' : error.message}`);
    return null;
  }
}

/** Every TypeScript source under src/ but the catalogues, as one text to look keys up in. */
function sourcesOf(root) {
  const files = readdirSync(path.join(root, 'src'), { recursive: true }).filter((file) => file.endsWith('.ts'));
  return files.map((file) => readFileSync(path.join(root, 'src', file), 'utf8')).join('\n');
}

/** The problems of the catalogues under `root`: an empty list when all is well. */
export function catalogueProblems(root = '.') {
  const problems = [];
  const sources = sourcesOf(root);
  for (const { prefix, folder } of owners(root)) {
    let files;
    try {
      files = readdirSync(folder).filter((file) => file.endsWith('.json'));
    } catch {
      problems.push(`${folder}: no catalogues (one <language>.json per language, ${SHIPPED.join(', ')})`);
      continue;
    }
    const english = readJson(path.join(folder, 'en.json'), problems);
    if (english === null) continue;
    const englishNames = new Map();
    for (const [key, message] of Object.entries(english)) {
      if (!key.startsWith(`${prefix}.`)) problems.push(`${folder}/en.json: the key ${key} does not start with ${prefix}.`);
      if (!sources.includes(`'${key}'`) && !sources.includes(`"${key}"`)) problems.push(`${folder}/en.json: the key ${key} is used nowhere in src/ (as a literal string)`);
      try {
        englishNames.set(key, namesOf(message).join(' '));
      } catch (error) {
        problems.push(`${folder}/en.json: ${key}: ${error.message}`);
      }
    }
    const languages = new Set([...SHIPPED, ...files.map((file) => file.slice(0, -5))]);
    for (const language of [...languages].filter((l) => l !== 'en').sort()) {
      const file = path.join(folder, `${language}.json`);
      const messages = readJson(file, problems);
      if (messages === null) continue;
      for (const key of Object.keys(english)) if (!(key in messages)) problems.push(`${file}: missing ${key}`);
      for (const [key, message] of Object.entries(messages)) {
        if (!(key in english)) {
          problems.push(`${file}: ${key} is no key of en.json`);
          continue;
        }
        if (typeof message !== 'string' || message.trim() === '') {
          problems.push(`${file}: ${key} is empty`);
          continue;
        }
        let names;
        try {
          names = namesOf(message).join(' ');
        } catch (error) {
          problems.push(`${file}: ${key}: ${error.message}`);
          continue;
        }
        if (englishNames.has(key) && names !== englishNames.get(key)) problems.push(`${file}: ${key} has the placeholders [${names}], the English [${englishNames.get(key)}]`);
      }
    }
  }
  return problems;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const problems = catalogueProblems();
  for (const problem of problems) process.stderr.write(`${problem}\n`);
  if (problems.length > 0) {
    process.stderr.write(`\n${problems.length} problem(s) in the catalogues\n`);
    process.exit(1);
  }
  process.stdout.write('catalogues: every key translated, used, with the English placeholders\n');
}

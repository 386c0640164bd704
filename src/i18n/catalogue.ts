import { readdirSync, readFileSync } from 'node:fs';
import { parse, TYPE, type MessageFormatElement } from '@formatjs/icu-messageformat-parser';
import { printAST } from '@formatjs/icu-messageformat-parser/printer.js';
import { ConfigError } from '../config.js';
import { matchLanguage, PSEUDO_LANGUAGE } from './languages.js';
import { Words, type Messages } from './words.js';

/** The languages shipped complete; a catalogue file of another language adds it (LANGUAGES offers it). */
export const SHIPPED_LANGUAGES: readonly string[] = ['en', 'fr', 'nl', 'de'];

/** What is offered: LANGUAGES (null: every language with a catalogue) and LANGUAGE_CODE, the space's own. */
export interface LanguageSettings {
  readonly languageCode: string;
  readonly languages: readonly string[] | null;
  readonly timeZone: string;
}

/** Thrown at start for a catalogue that is no flat map of messages, or a language no catalogue has. */
export class CatalogueError extends Error {
  override name = 'CatalogueError';
}

/**
 * Reads the catalogues of one folder: one `<language>.json` per language, a flat object of ICU
 * messages by key. Folders may repeat (the bundle's one folder holds every owner's words).
 */
export function readCatalogues(folders: readonly URL[]): Map<string, Record<string, string>> {
  const languages = new Map<string, Record<string, string>>();
  for (const href of new Set(folders.map((folder) => folder.href))) {
    const folder = new URL(href);
    for (const file of readdirSync(folder).sort()) {
      if (!file.endsWith('.json')) continue;
      const language = file.slice(0, -'.json'.length).toLowerCase();
      const messages = JSON.parse(readFileSync(new URL(file, folder), 'utf8')) as unknown;
      if (typeof messages !== 'object' || messages === null || Array.isArray(messages))
        throw new CatalogueError(`${new URL(file, folder).pathname}: expected an object of messages by key`);
      const into = languages.get(language) ?? {};
      for (const [key, text] of Object.entries(messages)) {
        if (typeof text !== 'string') throw new CatalogueError(`${new URL(file, folder).pathname}: the message ${JSON.stringify(key)} is not a string`);
        into[key] = text;
      }
      languages.set(language, into);
    }
  }
  return languages;
}

/**
 * Every language's words: the catalogues read once at start, the languages offered and the
 * space's own. `words(language)` is made once per language and shared by every request.
 */
export class Catalogue {
  /** LANGUAGES: the languages a visitor's Accept-Language is matched against and a member chooses among. */
  readonly offered: readonly string[];
  /** LANGUAGE_CODE matched among them: the pages' language when a browser asks for none of ours. */
  readonly defaultLanguage: string;
  private readonly made = new Map<string, Words>();

  constructor(
    private readonly messages: ReadonlyMap<string, Messages>,
    private readonly settings: LanguageSettings,
  ) {
    if (!messages.has('en')) throw new CatalogueError('no English catalogue: every other falls back to it');
    const available = [...messages.keys(), PSEUDO_LANGUAGE];
    const asked = settings.languages ?? [...messages.keys()].sort((a, b) => SHIPPED_LANGUAGES.indexOf(a) - SHIPPED_LANGUAGES.indexOf(b));
    this.offered = asked.map((tag) => {
      const language = matchLanguage(tag, available);
      if (language === null) throw new ConfigError('LANGUAGES', `names ${JSON.stringify(tag)}, which no catalogue has (${available.join(', ')})`);
      return language;
    });
    const space = matchLanguage(settings.languageCode, this.offered) ?? matchLanguage(settings.languageCode, available);
    if (space === null) throw new ConfigError('LANGUAGE_CODE', `no catalogue has the language ${JSON.stringify(settings.languageCode)} (${available.join(', ')})`);
    this.defaultLanguage = space;
  }

  static read(folders: readonly URL[], settings: LanguageSettings): Catalogue {
    return new Catalogue(readCatalogues(folders), settings);
  }

  /** The words of a language among those offered or LANGUAGE_CODE's; others get LANGUAGE_CODE's. */
  words(language: string): Words {
    const known = this.made.get(language);
    if (known !== undefined) return known;
    const lang = language === this.defaultLanguage || this.offered.includes(language) ? language : this.defaultLanguage;
    let words = this.made.get(lang);
    if (words === undefined) {
      words = new Words(this.speech(lang));
      this.made.set(lang, words);
    }
    return words;
  }

  /** The space's own words (LANGUAGE_CODE): mails to members without a choice, the API's pages. */
  get spaceWords(): Words {
    return this.words(this.defaultLanguage);
  }

  /** A language's name in itself, for the language switch (`Français`, `Nederlands`). */
  nameOf(language: string): string {
    if (language === PSEUDO_LANGUAGE) return `⟦${pseudoText('Pseudo')}⟧`;
    const name = new Intl.DisplayNames([language], { type: 'language' }).of(language) ?? language;
    return name.charAt(0).toLocaleUpperCase(language) + name.slice(1);
  }

  private speech(lang: string) {
    const english = this.messages.get('en')!;
    const space = this.messages.get(this.defaultLanguage);
    const chain: Messages[] = [];
    if (lang === PSEUDO_LANGUAGE) chain.push(pseudoMessages(english));
    else if (this.messages.has(lang)) chain.push(this.messages.get(lang)!);
    if (space !== undefined && lang !== this.defaultLanguage) chain.push(space);
    chain.push(english);
    const pseudo = lang === PSEUDO_LANGUAGE;
    return { lang, locale: pseudo ? 'en' : lang, chain, wrap: pseudo ? (text: string) => `⟦${text}⟧` : null, timeZone: this.settings.timeZone };
  }
}

const ACCENTED: Readonly<Record<string, string>> = Object.fromEntries(
  [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'].map((c, i) => [c, [...'àƀçđéƒĝĥîĵķĺɱñöþǫŕšţûṽŵẋýžÀƁÇĐÉƑĜĤÎĴĶĹṀÑÖÞǪŔŠŢÛṼŴẊÝŽ'][i]]),
);

/** Text accented and stretched by about 40 %, as German and Dutch stretch a sentence. */
function pseudoText(text: string): string {
  let out = '';
  let vowels = 0;
  for (const c of text) {
    out += ACCENTED[c] ?? c;
    if ('aeiouAEIOU'.includes(c) && vowels++ % 2 === 0) out += ACCENTED[c];
  }
  return out;
}

function pseudoElements(elements: MessageFormatElement[]): MessageFormatElement[] {
  return elements.map((element) => {
    if (element.type === TYPE.literal) return { ...element, value: pseudoText(element.value) };
    if (element.type === TYPE.tag) return { ...element, children: pseudoElements(element.children) };
    if (element.type === TYPE.plural || element.type === TYPE.select) {
      const options = Object.fromEntries(Object.entries(element.options).map(([name, option]) => [name, { ...option, value: pseudoElements(option.value) }]));
      return { ...element, options };
    }
    return element;
  });
}

/** The pseudo-language's messages, made from English: the text accented and stretched, placeholders and tags kept. */
function pseudoMessages(english: Messages): Messages {
  return Object.fromEntries(Object.entries(english).map(([key, text]) => [key, printAST(pseudoElements(parse(text)))]));
}

/**
 * The catalogues' machinery (languages.md): language tags matched as Django and browsers match
 * them, messages with plurals and placeholders, the fallbacks, dates, numbers and money in the
 * space's zone, numbers typed as people of each language type them, the pseudo-language, and the
 * catalogues' own check. Expected texts are written here from the spec, never computed by the code.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.js';
import { Catalogue } from '../../src/i18n/catalogue.js';
import { acceptedLanguage, matchLanguage } from '../../src/i18n/languages.js';
import { readDecimal, type MessageKey, type Messages } from '../../src/i18n/words.js';
// @ts-expect-error -- a script of the repository, plain JavaScript
import { catalogueProblems } from '../../scripts/check-catalogues.mjs';

/** A message key of these tests' own catalogues, which the compiler does not know. */
const key = (name: string) => name as MessageKey;

function catalogue(messages: Record<string, Messages>, settings: { languageCode?: string; languages?: string[] | null } = {}) {
  return new Catalogue(new Map(Object.entries(messages)), {
    languageCode: settings.languageCode ?? 'en',
    languages: settings.languages ?? null,
    timeZone: 'Europe/Brussels',
  });
}

describe('language tags', () => {
  const offered = ['en', 'fr', 'nl', 'de'];
  it('matches a regional tag to its language, and a language to an offered variant', () => {
    assert.equal(matchLanguage('fr-BE', offered), 'fr');
    assert.equal(matchLanguage('NL_be', offered), 'nl');
    assert.equal(matchLanguage('de', offered), 'de');
    assert.equal(matchLanguage('pt', ['en', 'pt-br']), 'pt-br');
    assert.equal(matchLanguage('es', offered), null);
    assert.equal(matchLanguage('<script>', offered), null);
  });
  it('reads Accept-Language in quality order, refusing q=0 and ignoring *', () => {
    const cases: [string, string | null][] = [
      ['fr-BE,fr;q=0.9,en-US;q=0.8,en;q=0.7', 'fr'],
      ['en;q=0.5, nl-BE;q=0.8', 'nl'],
      ['es, de;q=0.1', 'de'],
      ['fr;q=0, en', 'en'],
      ['*', null],
      ['es-ES,es;q=0.9', null],
      [';;;,,=q', null],
      ['fr;q=abc, de', 'de'],
      ['', null],
    ];
    for (const [header, expected] of cases) assert.equal(acceptedLanguage(header, offered), expected, header);
  });
});

describe('numbers as people type them', () => {
  it('reads a comma or a point as the decimal mark, and grouping in either style', () => {
    const cases: [string, number | null][] = [
      ['1,50', 1.5],
      ['1.50', 1.5],
      [' 12 ', 12],
      ['-0,25', -0.25],
      ['1 234,5', 1234.5],
      ['1.234,5', 1234.5],
      ['1,234.5', 1234.5],
      ['1\u202f234,56', 1234.56],
      ['1,2,3', null],
      ['12,34.5,6', null],
      ['abc', null],
      ['', null],
      ['1e3', null],
      [',', null],
    ];
    for (const [text, expected] of cases) assert.equal(readDecimal(text), expected, JSON.stringify(text));
  });
});

describe('words of a language', () => {
  const messages = {
    en: { 'x.members': '{count, plural, one {# member} other {# members}}', 'x.hello': 'Hello {name}', 'x.only-english': 'Only in English' },
    fr: { 'x.members': '{count, plural, one {# membre} other {# membres}}', 'x.hello': 'Bonjour {name}' },
    nl: { 'x.members': '{count, plural, one {# lid} other {# leden}}', 'x.hello': 'Hallo {name}', 'x.only-english': 'Alleen in het Nederlands' },
    de: { 'x.members': '{count, plural, one {# Mitglied} other {# Mitglieder}}', 'x.hello': 'Hallo {name}' },
  };
  it('plurals follow each language’s rules (French: 0 and 1 are singular)', () => {
    const c = catalogue(messages);
    const count = (lang: string, n: number) => c.words(lang).t(key('x.members'), { count: n });
    assert.deepEqual([count('en', 0), count('en', 1), count('en', 2)], ['0 members', '1 member', '2 members']);
    assert.deepEqual([count('fr', 0), count('fr', 1), count('fr', 2)], ['0 membre', '1 membre', '2 membres']);
    assert.deepEqual([count('nl', 1), count('nl', 2)], ['1 lid', '2 leden']);
    assert.deepEqual([count('de', 1), count('de', 2)], ['1 Mitglied', '2 Mitglieder']);
    assert.equal(c.words('fr').t(key('x.hello'), { name: 'Ada' }), 'Bonjour Ada');
  });
  it('falls back to LANGUAGE_CODE, then English, never to the key', () => {
    assert.equal(catalogue(messages, { languageCode: 'nl' }).words('fr').t(key('x.only-english')), 'Alleen in het Nederlands');
    assert.equal(catalogue(messages, { languageCode: 'fr' }).words('de').t(key('x.only-english')), 'Only in English');
    assert.throws(() => catalogue(messages).words('fr').t(key('x.nowhere')), /no catalogue has the message/);
  });
  it('gives a language not offered the words of LANGUAGE_CODE', () => {
    const c = catalogue(messages, { languageCode: 'fr-be', languages: ['fr', 'en'] });
    assert.equal(c.defaultLanguage, 'fr');
    assert.deepEqual(c.offered, ['fr', 'en']);
    assert.equal(c.words('nl').lang, 'fr');
  });
  it('formats dates in the space’s zone, numbers and money for the language', () => {
    const c = catalogue(messages);
    // 2026-12-01 18:00 UTC is 19:00 in Brussels, a Tuesday.
    const micros = Date.UTC(2026, 11, 1, 18, 0) * 1000;
    assert.equal(c.words('fr').longDateTime(micros), 'mardi 1 décembre 2026 à 19:00');
    assert.equal(c.words('nl').longDateTime(micros), 'dinsdag 1 december 2026 om 19:00');
    assert.equal(c.words('de').longDateTime(micros), 'Dienstag, 1. Dezember 2026 um 19:00');
    assert.equal(c.words('fr').money(1.5), '1,50\u00a0€');
    assert.equal(c.words('en').money(1.5), '€1.50');
    assert.equal(c.words('fr').number(1234.5), '1\u202f234,5');
    const nowMs = Date.UTC(2026, 11, 1, 18, 3);
    assert.equal(c.words('fr').ago(micros, nowMs), 'il y a 3 minutes');
    assert.equal(c.words('nl').ago(micros, nowMs), '3 minuten geleden');
    assert.equal(c.words('en').ago(micros, nowMs + 3 * 3_600_000 - 3 * 60_000), '3 hours ago');
  });
  it('wraps and stretches every message of the pseudo-language, placeholders kept', () => {
    const c = catalogue(messages, { languages: ['en', 'qps-ploc'] });
    const pseudo = c.words('qps-ploc');
    const hello = pseudo.t(key('x.hello'), { name: 'Ada' });
    assert.match(hello, /^⟦.*Ada⟧$/);
    assert.doesNotMatch(hello, /Hello/);
    assert.ok(hello.length > 'Hello Ada'.length + 2, hello);
    assert.match(pseudo.t(key('x.members'), { count: 2 }), /^⟦2 .+⟧$/);
    assert.match(pseudo.money(1.5), /^⟦€1\.50⟧$/);
  });
  it('refuses LANGUAGES or LANGUAGE_CODE naming a language no catalogue has', () => {
    assert.throws(
      () => catalogue(messages, { languages: ['fr', 'xx'] }),
      (error) => error instanceof ConfigError && error.variable === 'LANGUAGES',
    );
    assert.throws(
      () => catalogue(messages, { languageCode: 'es' }),
      (error) => error instanceof ConfigError && error.variable === 'LANGUAGE_CODE',
    );
    assert.throws(
      () => loadConfig({ LANGUAGE_CODE: 'fr be!' }),
      (error) => error instanceof ConfigError && error.variable === 'LANGUAGE_CODE',
    );
    assert.throws(
      () => loadConfig({ LANGUAGES: 'fr,,en' }),
      (error) => error instanceof ConfigError && error.variable === 'LANGUAGES',
    );
    assert.deepEqual(loadConfig({ LANGUAGES: 'FR, nl-BE' }).languages, ['fr', 'nl-be']);
  });
});

describe('the catalogues’ check', () => {
  it('finds a missing, an extra, an unused key, a foreign prefix and placeholders that differ', () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'catalogues-'));
    try {
      const write = (file: string, content: unknown) => {
        fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
        fs.writeFileSync(path.join(root, file), typeof content === 'string' ? content : JSON.stringify(content));
      };
      write('src/web/site.ts', "t('site.used'); t('site.count'); t('tools.misplaced');");
      write('src/web/locale/en.json', { 'site.used': 'Used', 'site.unused': 'Unused', 'site.count': '{n, plural, one {# tool} other {# tools}}' });
      write('src/web/locale/fr.json', {
        'site.used': 'Utilisé',
        'site.unused': 'Inutilisé',
        'site.count': '{count, plural, one {# outil} other {# outils}}',
        'site.extra': 'En trop',
      });
      write('src/web/locale/nl.json', { 'site.used': 'Gebruikt', 'site.count': '{n, plural, one {# ding} other {# dingen}}' });
      write('src/web/locale/de.json', { 'site.used': 'Benutzt {', 'site.unused': 'Unbenutzt', 'site.count': '{n, plural, one {# Ding} other {# Dinge}}' });
      write('src/apps/tools/locale/en.json', { 'tools.misplaced': 'Here', 'web.wrong': 'Wrong prefix' });
      const problems: string[] = catalogueProblems(root);
      const expect = [
        /en\.json: the key site\.unused is used nowhere/,
        /fr\.json: site\.count has the placeholders \[\{count\}\], the English \[\{n\}\]/,
        /fr\.json: site\.extra is no key of en\.json/,
        /nl\.json: missing site\.unused/,
        /de\.json: site\.used: /,
        /tools\/locale\/en\.json: the key web\.wrong does not start with tools\./,
        /tools\/locale\/fr\.json: missing/,
      ];
      for (const pattern of expect)
        assert.ok(
          problems.some((problem) => pattern.test(problem)),
          `${pattern} in\n${problems.join('\n')}`,
        );
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});

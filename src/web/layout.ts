import type { Words, MessageKey } from '../i18n/words.js';
import { CSRF_FIELD } from '../request/csrf.js';
import { loginUrl } from '../request/next-path.js';
import type { Assets } from './assets.js';
import { html, type Html } from './html.js';
import { wordsHtml } from './words-html.js';

/**
 * The headers of every HTML page: scripts and styles from this origin only, no inline script or
 * style, no framing, no base tag, no plugins (web.md §6). Images are SVG inline or data: never
 * another origin.
 */
export const HTML_HEADERS = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; font-src 'self'; object-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
} as const;

export const HTML_TYPE = 'text/html; charset=utf-8';

/** What every page shares: the site's name and its assets; and, for one request, who looks at it and in which language. */
export interface Site {
  name: string;
  assets: Assets;
  /** The words of the page's language (the space's own on the shared site). */
  words: Words;
  /** The languages offered by the switch on every page: each tag with its name in itself. */
  languages: readonly LanguageName[];
  /** The page's own path and query, where the language switch comes back to; null when it is no GET page. */
  here?: string | null;
  /** The site's navigation, from the apps that are on (http/app-declaration.ts). */
  links: readonly NavLink[];
  /** The names of the apps that are on (APPS): a page names no record of an app that is off. */
  appsOn: ReadonlySet<string>;
  /** The navigation's account part; a visitor's (with no way back) when absent. */
  nav?: AccountNav;
  /** A short confirmation for the member after a form (members.md §4), shown once at the top of the page. */
  notice?: MessageKey | null;
}

/** A link of the site's navigation; `order` places it among the apps' links. A calendar feed's link is also every page's alternate, under its `calendar` title. */
export interface NavLink {
  readonly href: string;
  readonly label: MessageKey;
  readonly order: number;
  readonly calendar?: MessageKey;
}

/** A language the switch offers: its tag and its name in itself (`Nederlands`). */
export interface LanguageName {
  readonly tag: string;
  readonly name: string;
}

/**
 * The account part of the navigation (members.md §2): a member's name, profile link and log-out
 * button (a form with its CSRF token), or a visitor's log-in link, with `next` = the page when it
 * is a GET page. A visitor's is the same for every visitor of a page: anonymous pages stay cached.
 */
export type AccountNav = { member: { name: string; csrf: string } } | { member: null; next: string | null };

/** The site as a page built for one request shows it: in the request's language, for who looks at it. */
export function siteFor(site: Site, words: Words, nav: AccountNav, notice: MessageKey | null = null, here: string | null = null): Site {
  return { ...site, words, nav, notice, here };
}

function accountNav(words: Words, nav: AccountNav | undefined): Html {
  if (nav?.member) {
    return html`<ul class="account"><li><a href="/accounts/profile/" id="member">${nav.member.name}</a></li><li><form method="post" action="/accounts/logout/" class="logout"><input type="hidden" name="${CSRF_FIELD}" value="${nav.member.csrf}"><button type="submit">${words.t('site.logout')}</button></form></li></ul>`;
  }
  return html`<ul class="account"><li><a href="${loginUrl(nav?.next ?? '/')}" id="login">${words.t('site.login')}</a></li></ul>`;
}

/** The language switch of every page (Django's `set_language`): a form, no script needed; a member's choice also goes to their profile. */
function languageSwitch(site: Site): Html | '' {
  if (site.languages.length < 2) return '';
  const { words } = site;
  const next = site.here ?? (site.nav?.member === null ? site.nav.next : null);
  return html`<form method="post" action="/i18n/setlang/" class="language-switch">${
    site.nav?.member ? html`<input type="hidden" name="${CSRF_FIELD}" value="${site.nav.member.csrf}">` : ''
  }${next === null || next === undefined ? '' : html`<input type="hidden" name="next" value="${next}">`}<label for="language-choice">${words.t('site.language')}</label> <select name="language" id="language-choice">${site.languages.map(
    ({ tag, name }) => html`<option value="${tag}" lang="${tag}"${tag === words.lang ? ' selected' : ''}>${name}</option>`,
  )}</select> <button type="submit">${words.t('site.language.change')}</button></form>`;
}

/** The page's scripts, one per line. */
function scripts(site: Site, names: readonly string[]): Html[] {
  return names.map((name, i) => html`${i > 0 ? '\n' : ''}<script src="${site.assets.url(name)}" defer></script>`);
}

export interface PageParts {
  /** The document's title, before the site's name (already in the page's language). */
  title: string;
  main: Html;
  /** The page's scripts, by their assets' names, in the order they run (the live dashboard's, an app's). */
  scripts?: readonly string[];
  mainClass?: string;
}

/** A whole HTML document: header with the site's navigation, the page's main part, footer. */
export function layout(site: Site, { title, main, scripts: names = [], mainClass }: PageParts): Buffer {
  const { words } = site;
  const page = html`<!doctype html>
<html lang="${words.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${title} · ${site.name}</title>
<link rel="stylesheet" href="${site.assets.url('style.css')}">
<link rel="icon" type="image/svg+xml" href="${site.assets.url('icon.svg')}">
${site.links.flatMap((link) =>
  link.calendar === undefined
    ? []
    : [
        html`<link rel="alternate" type="text/calendar" title="${words.t(link.calendar)}" href="${link.href}">
`,
      ],
)}${scripts(site, names)}
</head>
<body>
<a class="skip-link" href="#main">${words.t('site.skip')}</a>
<header class="site-header">
<a class="site-name" href="/">${site.name}</a>
<nav aria-label="${words.t('site.nav')}"><ul>${site.links.map((link) => html`<li><a href="${link.href}">${words.t(link.label)}</a></li>`)}</ul>${accountNav(words, site.nav)}</nav>
</header>
<main id="main"${mainClass ? html` class="${mainClass}"` : ''}>
${
  site.notice
    ? html`<p class="notice" role="status" id="notice">${words.t(site.notice)}</p>
`
    : ''
}${main}
</main>
<footer class="site-footer"><p>${wordsHtml(words, 'site.footer', {}, { api: (chunks) => html`<a href="/api/">${chunks}</a>` })}</p>${languageSwitch(site)}</footer>
</body>
</html>
`;
  return Buffer.from(page.text);
}

import { html } from './html.js';
import { layout, type Site } from './layout.js';
import { wordsHtml } from './words-html.js';

/** The HTML answer to a 404 in a browser: unknown paths, unknown records, and 404s of the API. */
export function notFoundPage(site: Site, path: string): Buffer {
  const { words } = site;
  const main = html`<h1>${words.t('site.error.404.title')}</h1>
<p>${wordsHtml(words, 'site.error.404.nothing', { path }, { code: (chunks) => html`<code>${chunks}</code>` })}</p>
<p>${wordsHtml(words, 'site.error.404.ways', {}, { home: (chunks) => html`<a href="/">${chunks}</a>`, api: (chunks) => html`<a href="/api/">${chunks}</a>` })}</p>`;
  return layout(site, { title: words.t('site.error.404.title'), main, mainClass: 'not-found' });
}

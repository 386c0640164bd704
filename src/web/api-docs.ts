import { html, type HtmlValue } from './html.js';
import { wordsHtml } from './words-html.js';
import { HTML_HEADERS, layout, type Site } from './layout.js';

/**
 * `GET /api/docs/`: the API reference, rendered in the browser from the OpenAPI document
 * (`/api/schema/?format=json`, same origin) by Redoc's standalone bundle, served from /assets/
 * like every other file: no CDN, no remote font.
 *
 * Why Redoc: the lightest of the three that read well (327 KB gzipped; swagger-ui 485 KB, Scalar 989 KB).
 * Its search runs in a Web Worker made from a blob: URL, which `script-src 'self'` refuses: search
 * is turned off (the sidebar lists every operation). Nothing it runs needs eval under these options.
 * Redoc writes no curl examples of its own: the page's script (assets/api-docs.js) adds one per
 * operation (`x-codeSamples`), with the `Authorization: Token <secret>` header where the operation
 * takes a token.
 *
 * The CSP is the pages' one (layout.ts) but for `style-src`: Redoc styles itself with
 * styled-components, which inserts `<style>` elements at run time, so this page alone adds
 * 'unsafe-inline' to `style-src`. Scripts stay `'self'` only.
 */
export const API_DOCS_HEADERS = {
  'content-security-policy': HTML_HEADERS['content-security-policy'].replace("style-src 'self'", "style-src 'self' 'unsafe-inline'"),
} as const;

export const SCHEMA_URL = '/api/schema/?format=json';

export function apiDocsPage(site: Site): Buffer {
  const { words } = site;
  const schema = (chunks: HtmlValue[]) => html`<a href="${SCHEMA_URL}">${chunks}</a>`;
  const main = html`<h1 class="api-docs-title">${words.t('site.nav.api-docs')}</h1>
<p class="api-docs-intro">${wordsHtml(words, 'site.api-docs.intro', {}, { schema, api: (chunks) => html`<a href="/api/">${chunks}</a>` })}</p>
<link rel="stylesheet" href="${site.assets.url('api-docs.css')}">
<div id="api-reference" data-schema-url="${SCHEMA_URL}"><p class="api-docs-loading">${wordsHtml(words, 'site.api-docs.loading', {}, { schema })}</p></div>
<script src="${site.assets.url('redoc.standalone.js')}" defer></script>
<script src="${site.assets.url('api-docs.js')}" defer></script>`;
  return layout(site, { title: words.t('site.nav.api-docs'), main, mainClass: 'api-docs' });
}

import { STATUS_CODES } from 'node:http';
import { html, trustedHtml, escapeHtml, type Html } from './html.js';
import { layout, type Site } from './layout.js';
import type { Words } from '../i18n/words.js';

/** What a program would get for a request, shown to a person (web.md §2). */
export interface ApiExchange {
  method: string;
  /** Path and query as requested. */
  target: string;
  /** The service's base URL (`http://host`): URLs under it in the body stay in the browsable view. */
  base: string;
  status: number;
  /** The headers a program would get that matter to it: Allow, Content-Type, Vary. */
  headers: readonly (readonly [string, string])[];
  body: unknown;
}

/**
 * The browsable view of an API answer: breadcrumbs, the request line, the status and headers, the
 * JSON pretty-printed with every URL of this service a link, previous/next page links, the raw
 * JSON, and the same request as a `curl` command. Read-only: no forms.
 */
export function browsablePage(site: Site, exchange: ApiExchange): Buffer {
  const { method, target, base, status, headers, body } = exchange;
  const path = target.split('?', 1)[0];
  const reason = STATUS_CODES[status] ?? '';
  const page = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const { words } = site;
  const pager = [pagerLink(page.previous, base, 'prev', words.t('site.api.previous')), pagerLink(page.next, base, 'next', words.t('site.api.next'))].filter(
    (link) => link !== null,
  );
  const title = titleOf(words, path);
  const main = html`${breadcrumbs(words, path)}
<h1>${path.split('/').filter(Boolean).length <= 1 ? title : html`<code>${title}</code>`}</h1>
<p class="request-line"><code>${method} ${target}</code></p>
<div class="response" role="region" aria-label="${words.t('site.api.response')}" tabindex="0">
<pre class="headers"><code>HTTP ${status} ${reason}
${headers.map(([name, value]) => `${name}: ${value}\n`)}</code></pre>
<pre class="json"><code>${jsonWithLinks(body, base)}</code></pre>
</div>
${pager.length > 0 ? html`<nav class="pager" aria-label="${words.t('site.api.pages')}">${pager}</nav>` : ''}
<p class="raw"><a href="${withFormatJson(target)}">${words.t('site.api.raw')}</a> · <a href="/api/docs/">${words.t('site.nav.api-docs')}</a></p>
<div class="curl"><label for="curl">${words.t('site.api.curl')}</label>
<input id="curl" readonly value="${curlCommand(base + target)}"></div>`;
  return layout(site, { title: words.t('site.api.title', { name: title }), main });
}

/** The page's heading: the API root, or the path's segments after `api`, as the URL has them (the API's own names, in no language: shown as code). */
function titleOf(words: Words, path: string): string {
  const segments = path.split('/').filter(Boolean);
  if (segments.length <= 1) return words.t('site.api.root');
  return segments.slice(1).join(' › ');
}

function breadcrumbs(words: Words, path: string): Html {
  const segments = path.split('/').filter(Boolean);
  const crumbs = segments.map((segment, i) => {
    const href = `/${segments.slice(0, i + 1).join('/')}/`;
    const current = i === segments.length - 1;
    return html`<li>${current ? html`<a href="${href}" aria-current="page"><code>${segment}</code></a>` : html`<a href="${href}"><code>${segment}</code></a>`}</li>`;
  });
  return html`<nav class="breadcrumbs" aria-label="${words.t('site.api.breadcrumbs')}"><ol>${crumbs}</ol></nav>`;
}

function pagerLink(url: unknown, base: string, rel: 'prev' | 'next', label: string): Html | null {
  if (typeof url !== 'string' || !url.startsWith(base + '/')) return null;
  return html`<a rel="${rel}" href="${url.slice(base.length)}">${label}</a>`;
}

/** The target with `format=json` (replacing any format), so that the link gives the raw JSON in a browser too. */
function withFormatJson(target: string): string {
  const [path, query = ''] = target.split(/\?(.*)/s, 2);
  const pairs = query.split('&').filter((pair) => pair !== '' && !pair.startsWith('format='));
  return `${path}?${[...pairs, 'format=json'].join('&')}`;
}

/** A POSIX shell word: single-quoted, with quotes inside closed and reopened. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

function curlCommand(url: string): string {
  return `curl -H 'Accept: application/json' ${shellQuote(url)}`;
}

/**
 * The body as indented JSON, escaped, with each string that is a URL of this service made a
 * link to the same URL (relative, so it stays on this origin and in the browsable view).
 */
function jsonWithLinks(body: unknown, base: string): Html {
  const text = JSON.stringify(body, null, 2) ?? 'null';
  const prefix = JSON.stringify(base + '/').slice(0, -1);
  // JSON strings in the output, escaped as a whole; a string that starts with the base becomes a link.
  const out = text.replace(/"(?:[^"\\]|\\.)*"|[^"]+/g, (token) => {
    if (!token.startsWith('"')) return escapeHtml(token);
    if (!token.startsWith(prefix)) return escapeHtml(token);
    const url = JSON.parse(token) as string;
    return `&quot;<a href="${escapeHtml(url.slice(base.length))}">${escapeHtml(url)}</a>&quot;`;
  });
  return trustedHtml(out);
}

/**
 * Markdown from the database (project content, event descriptions, meeting agendas and minutes)
 * rendered safely for the web face (web.md §4), with markdown-it:
 *
 * - Raw HTML is off (`html: false`): `<script>` in the source is shown as the text `<script>`.
 * - A link becomes a link only when its address is allowed (`isAllowedHref`): an `http:`,
 *   `https:` or `mailto:` URL (the scheme in any case), or a same-origin reference: a path from
 *   the root (`/projects/3/`, not `//host/`) or a fragment (`#minutes`). Anything else, including
 *   `javascript:` in its disguises (entities, case, a tab or newline inside, leading spaces) and
 *   path-relative references (`foo/bar`, whose meaning depends on the page's own path), stays
 *   text. markdown-it checks every address it parses (links, reference definitions, autolinks,
 *   bare URLs, images) with `validateLink`; a pass over the parsed tokens checks each link again
 *   before anything is rendered, so a rule that forgot the check cannot produce a link.
 * - Every link gets `rel="nofollow noopener"`.
 * - Images are never loaded: `![alt](url)` becomes a link to the url with the alt as its text when
 *   the url is allowed (the url itself as text when the alt is empty), and the alt as plain text
 *   when it is not, or when the image sits inside a link already (no nested links).
 * - Bare `http://`, `https://` and `mailto:` URLs become links (linkify, without guessing links
 *   from bare domain names: `README.md` stays text).
 * - `\r\n` and lone `\r` line breaks read as `\n`.
 */
import MarkdownIt from 'markdown-it';
import type { StateCore, Token } from 'markdown-it';
import { trustedHtml, type Html } from './html.js';

const ALLOWED_SCHEMES = new Set(['http', 'https', 'mailto']);
const ALLOWED_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*):/;
/** Characters a normalised address never holds raw (markdown-it percent-encodes them); raw, they are a disguise. */
// eslint-disable-next-line no-control-regex
const SUSPICIOUS = /[\u0000-\u0020\u007f-\u009f\\]/;
/** A base standing for "this page", to see what a browser makes of a reference. */
const PROBE_ORIGIN = 'https://same-origin.invalid';
const PROBE_BASE = `${PROBE_ORIGIN}/page/`;

export const LINK_REL = 'nofollow noopener';

/**
 * Whether an address may be a link's `href`: an `http:`, `https:` or `mailto:` URL, a path from the
 * root of this site (not `//`), or a fragment. Two checks that must both agree: the text's own
 * scheme, and the WHATWG URL parser (the browser's) resolving it against a page of this site.
 */
export function isAllowedHref(href: string): boolean {
  if (typeof href !== 'string' || href === '' || SUSPICIOUS.test(href)) return false;
  const scheme = SCHEME.exec(href);
  if (scheme) {
    if (!ALLOWED_SCHEMES.has(scheme[1].toLowerCase())) return false;
  } else if (!(href.startsWith('#') || (href.startsWith('/') && !href.startsWith('//')))) {
    return false;
  }
  let url: URL;
  try {
    url = new URL(href, PROBE_BASE);
  } catch {
    return false;
  }
  if (!ALLOWED_PROTOCOLS.has(url.protocol)) return false;
  return scheme !== null || url.origin === PROBE_ORIGIN;
}

const md = new MarkdownIt('default', { html: false, linkify: true, typographer: false, breaks: false });
md.linkify.set({ fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false });
md.validateLink = isAllowedHref;
md.core.ruler.push('safe_links_and_images', (state) => {
  for (const block of state.tokens) {
    if (block.type === 'inline' && block.children) block.children = safeInline(block.children, state.Token);
  }
});

type TokenClass = StateCore['Token'];

function textToken(TokenCtor: TokenClass, content: string): Token {
  const token = new TokenCtor('text', '', 0);
  token.content = content;
  return token;
}

/**
 * One pass over a block's inline tokens: links with an address that is not allowed lose their
 * tags (their text stays), the others get `rel`; images become links or text.
 */
function safeInline(children: Token[], TokenCtor: TokenClass): Token[] {
  const out: Token[] = [];
  /** For each open link, whether its tags were kept. */
  const open: boolean[] = [];
  for (const token of children) {
    if (token.type === 'link_open') {
      const keep = isAllowedHref(token.attrGet('href') ?? '');
      open.push(keep);
      if (keep) {
        token.attrSet('rel', LINK_REL);
        out.push(token);
      }
    } else if (token.type === 'link_close') {
      if (open.pop()) out.push(token);
    } else if (token.type === 'image') {
      const src = token.attrGet('src') ?? '';
      const alt = imageAlt(token);
      const insideLink = open.some((keep) => keep);
      if (!insideLink && isAllowedHref(src)) {
        const link = new TokenCtor('link_open', 'a', 1);
        link.attrs = [
          ['href', src],
          ['rel', LINK_REL],
        ];
        const title = token.attrGet('title');
        if (title) link.attrSet('title', title);
        out.push(link, textToken(TokenCtor, alt === '' ? src : alt), new TokenCtor('link_close', 'a', -1));
      } else if (alt !== '') {
        out.push(textToken(TokenCtor, alt));
      }
    } else {
      out.push(token);
    }
  }
  return out;
}

/** An image's alt as plain text (markdown-it parses it as inline Markdown into `children`). */
function imageAlt(token: Token): string {
  return token.children ? plainInline(token.children) : token.content;
}

function plainInline(children: Token[]): string {
  let text = '';
  for (const child of children) {
    if (child.type === 'text' || child.type === 'code_inline') text += child.content;
    else if (child.type === 'softbreak' || child.type === 'hardbreak') text += ' ';
    else if (child.type === 'image') text += imageAlt(child);
  }
  return text;
}

function normalise(source: string): string {
  return typeof source === 'string' ? source.replace(/\r\n?/g, '\n') : '';
}

/**
 * The Markdown as HTML, safe to put in a page (see the top of this module for what that means).
 * Its headings form an outline under the page's own: the first starts at `<h{topLevel}>`, and
 * each is at most one level below the heading it belongs to (`#` then `###` gives h3 then h4),
 * never below h6, so that a page's heading levels only ever increase by one (axe's
 * heading-order).
 */
export function renderMarkdown(source: string, topLevel = 1): Html {
  const tokens = md.parse(normalise(source), {});
  renumberHeadings(tokens, topLevel);
  return trustedHtml(md.renderer.render(tokens, md.options, {}));
}

function renumberHeadings(tokens: Token[], topLevel: number): void {
  // The open headings: each source level with the level it is given.
  const outline: { source: number; level: number }[] = [];
  let level = topLevel;
  for (const token of tokens) {
    if (token.type === 'heading_open') {
      const source = Number(token.tag.slice(1));
      while (outline.length > 0 && outline[outline.length - 1].source >= source) outline.pop();
      level = outline.length === 0 ? topLevel : Math.min(6, outline[outline.length - 1].level + 1);
      outline.push({ source, level });
      token.tag = `h${level}`;
    } else if (token.type === 'heading_close') {
      token.tag = `h${level}`;
    }
  }
}

/**
 * The Markdown as plain text on one line (for summaries, or a calendar's DESCRIPTION): the words
 * people read, without markup, link addresses or images' addresses; runs of white space become
 * one space. At most `maxChars` characters (code points): when longer, it is cut at a word
 * boundary when there is one in the second half, and ends with `…`. Not HTML: escape it.
 */
export function markdownExcerpt(source: string, maxChars = Number.POSITIVE_INFINITY): string {
  const limit = Number.isNaN(maxChars) ? 0 : Math.floor(maxChars);
  if (limit <= 0) return '';
  const parts: string[] = [];
  for (const token of md.parse(normalise(source), {})) {
    if (token.type === 'inline' && token.children) parts.push(plainInline(token.children));
    else if (token.type === 'fence' || token.type === 'code_block') parts.push(token.content);
    parts.push(' ');
  }
  const text = parts.join('').replace(/\s+/g, ' ').trim();
  const chars = Array.from(text);
  if (chars.length <= limit) return text;
  let cut = chars.slice(0, limit - 1).join('');
  const space = cut.lastIndexOf(' ');
  if (space > cut.length / 2) cut = cut.slice(0, space);
  return cut.trimEnd() + '…';
}

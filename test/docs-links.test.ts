/**
 * The documentation stands alone: every link and image in README.md, client/README.md and
 * docs/*.md leads to a file inside this repository (and a `#anchor` to a heading there), or to
 * the published text of a standard, or to the service itself running on this machine.
 * Links are read the way a Markdown renderer reads them (markdown-it, with bare URLs linked and
 * inline HTML's href/src), so code spans and code blocks, which render no link, are left alone.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import MarkdownIt from 'markdown-it';
import type { Token } from 'markdown-it';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The documents a reader of the repository starts from, relative to the root. */
const DOCUMENTS = [
  'README.md',
  'client/README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];

/** Hosts of standards' published texts: the one kind of page outside the repository a document may link to. */
const STANDARDS = new Set(['spec.openapis.org', 'spaceapi.io', 'www.rfc-editor.org', 'datatracker.ietf.org', 'www.w3.org', 'html.spec.whatwg.org']);

/** The service as the README's tour starts it (`npm start`, `npm run demo`): on this machine, not elsewhere. */
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

const markdown = new MarkdownIt({ html: true, linkify: true });
// Bare domain names (`README.md`, `docs/api.md`) are not links; only URLs with a scheme are.
markdown.linkify.set({ fuzzyLink: false, fuzzyEmail: false });

interface Link {
  target: string;
  line: number;
}

/** Every link and image target of a document, with the line it is on. */
function linksOf(source: string): Link[] {
  const lines = source.split('\n');
  const links: Link[] = [];
  // Tokens know the block they are in; the line is the block's first one that holds the target.
  const add = (target: string, blockStart: number) => {
    const offset = lines.slice(blockStart).findIndex((line) => line.includes(target));
    links.push({ target, line: blockStart + 1 + Math.max(offset, 0) });
  };
  const visit = (tokens: Token[], blockStart: number) => {
    for (const token of tokens) {
      const start = token.map ? token.map[0] : blockStart;
      if (token.type === 'link_open') add(token.attrGet('href') ?? '', start);
      else if (token.type === 'image') add(token.attrGet('src') ?? '', start);
      else if (token.type === 'html_block' || token.type === 'html_inline') {
        for (const match of token.content.matchAll(/\b(?:href|src)\s*=\s*(?:"([^"]*)"|'([^']*)')/gi)) add(match[1] ?? match[2], start);
      }
      if (token.children) visit(token.children, start);
    }
  };
  visit(markdown.parse(source, {}), 0);
  return links;
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens; repeats get `-1`, `-2`. */
function anchorsOf(source: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  const tokens = markdown.parse(source, {});
  tokens.forEach((token, i) => {
    if (token.type !== 'heading_open') return;
    const text = (tokens[i + 1].children ?? []).map((child) => (child.type === 'text' || child.type === 'code_inline' ? child.content : '')).join('');
    const slug = text
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  });
  return anchors;
}

/** What is wrong with one link of a document (`source`, at `document`), or null when it leads where it may. */
function problemOf(document: string, source: string, target: string): string | null {
  if (target === '') return 'an empty link';
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(target)?.[1].toLowerCase();
  if (scheme !== undefined || target.startsWith('//')) {
    if (scheme !== 'http' && scheme !== 'https') return 'leaves the repository (not an http(s) URL)';
    const host = new URL(target).host.replace(/:\d+$/, '');
    if (STANDARDS.has(host) || LOOPBACK.has(host)) return null;
    return `leaves the repository (${host} is neither a standard's text nor this machine)`;
  }
  const hash = target.indexOf('#');
  const file = decodeURIComponent(hash === -1 ? target : target.slice(0, hash));
  const anchor = hash === -1 ? null : decodeURIComponent(target.slice(hash + 1));
  const resolved = file === '' ? path.join(ROOT, document) : file.startsWith('/') ? path.join(ROOT, file) : path.resolve(path.dirname(path.join(ROOT, document)), file);
  const inside = path.relative(ROOT, resolved);
  if (inside.startsWith('..') || path.isAbsolute(inside)) return 'leaves the repository';
  if (!existsSync(resolved)) return `no such file: ${inside}`;
  if (anchor === null || !resolved.endsWith('.md') || !statSync(resolved).isFile()) return null;
  if (!anchorsOf(file === '' ? source : readFileSync(resolved, 'utf8')).has(anchor)) {
    return `no heading #${anchor} in ${inside}`;
  }
  return null;
}

function problemsOf(document: string, source: string): string[] {
  return linksOf(source).flatMap(({ target, line }) => {
    const problem = problemOf(document, source, target);
    return problem === null ? [] : [`${document}:${line}: ${target}: ${problem}`];
  });
}

describe('documentation links', () => {
  for (const document of DOCUMENTS) {
    it(`${document}: every link and image leads inside the repository or to a standard`, () => {
      const source = readFileSync(path.join(ROOT, document), 'utf8');
      assert.deepEqual(problemsOf(document, source), []);
    });
  }

  it('catches what it is there to catch', () => {
    const source = [
      '# A title',
      '[fine](docs/api.md) [fine anchor](docs/api.md#routes) [dead](docs/no-such-page.md) [outside](../outside/notes.md)',
      '[anchor](#a-title) [dead anchor](#no-such-heading) [dead anchor elsewhere](docs/api.md#no-such-heading)',
      '<img src="docs/screenshots/missing.png" alt=""> https://example.net/page [rfc](https://www.rfc-editor.org/rfc/rfc9110)',
      '`[code](nowhere.md)` http://127.0.0.1:8000/api/',
    ].join('\n');
    assert.deepEqual(
      problemsOf('README.md', source).map((problem) => problem.split(': ').slice(1, 2)[0]),
      ['docs/no-such-page.md', '../outside/notes.md', '#no-such-heading', 'docs/api.md#no-such-heading', 'docs/screenshots/missing.png', 'https://example.net/page'],
    );
  });
});

/**
 * Safe Markdown (web.md §4): normal Markdown renders as CommonMark says (expected HTML written by
 * hand), raw HTML is text, only http:, https: and mailto: addresses (and same-origin paths and
 * fragments) become links, every link is rel="nofollow noopener", and images are never loaded.
 *
 * The hostile inputs are checked by `assertInert`, which reads the output on its own terms (every
 * tag in a short allow-list, no on* attribute, every href decoded and checked against the rule in
 * the spec), not by calling the renderer's own check.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Html } from '../src/web/html.js';
import { isAllowedHref, markdownExcerpt, renderMarkdown } from '../src/web/markdown.js';

const REL = 'rel="nofollow noopener"';

function render(source: string): string {
  const out = renderMarkdown(source);
  assert.ok(out instanceof Html);
  return out.text;
}

/** Tags CommonMark's output may hold; raw HTML from the source never adds one. */
const ALLOWED_TAGS = new Set([
  'p',
  'a',
  'em',
  'strong',
  'code',
  'pre',
  'ul',
  'ol',
  'li',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'blockquote',
  'hr',
  'br',
  's',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
]);

function decodeEntities(value: string): string {
  return value
    .replace(/&#x([0-9a-f]+);/gi, (_, hex: string) => String.fromCodePoint(parseInt(hex, 16)))
    .replace(/&#([0-9]+);/g, (_, dec: string) => String.fromCodePoint(parseInt(dec, 10)))
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/**
 * The output is inert: no script, no image, no event handler attribute, and every href is an
 * http:, https: or mailto: URL written with its scheme first (nothing before it a browser would
 * strip), or a path from the root of this site, or a fragment.
 */
function assertInert(source: string): string {
  return checkInert(render(source));
}

function checkInert(out: string): string {
  assert.doesNotMatch(out, /<script/i, out);
  assert.doesNotMatch(out, /<img/i, out);
  assert.doesNotMatch(out, /<(iframe|object|embed|svg|style|link|meta|base|form|input)\b/i, out);
  for (const tag of out.matchAll(/<(\/?)([A-Za-z][A-Za-z0-9-]*)([^>]*)>/g)) {
    const [whole, closing, name, attributes] = tag;
    assert.ok(ALLOWED_TAGS.has(name.toLowerCase()), `unexpected tag ${whole} in ${out}`);
    // Read the attributes as a browser does (double-quoted values: the only kind markdown-it writes); nothing may be left over.
    const parsed = [...attributes.matchAll(/\s+([^\s"'>/=]+)="([^"]*)"/g)];
    assert.equal(parsed.map((a) => a[0]).join(''), attributes, `attributes not all quoted: ${whole}`);
    for (const [, key, raw] of parsed) {
      assert.doesNotMatch(key, /^on/i, `event handler in ${whole}`);
      assert.ok(['href', 'rel', 'title', 'class', 'start', 'style'].includes(key), `unexpected attribute ${key} in ${whole}`);
      if (key === 'href') {
        const href = decodeEntities(raw);
        const ok = /^(https?:\/\/|mailto:)/i.test(href) || /^\/(?![/\\])/.test(href) || href.startsWith('#');
        assert.ok(ok, `href ${JSON.stringify(href)} in ${out}`);
        // eslint-disable-next-line no-control-regex
        assert.doesNotMatch(href, /[\s\u0000-\u001f\\]/, `href ${JSON.stringify(href)} holds a character a browser strips`);
      }
    }
    if (name.toLowerCase() === 'a' && closing === '') assert.ok(whole.includes(REL), `link without rel: ${whole}`);
  }
  return out;
}

describe('the inertness check itself', () => {
  const bad = [
    '<script>alert(1)</script>',
    '<p><img src="https://example.org/i.png"></p>',
    '<p onclick="alert(1)">x</p>',
    '<a href="https://example.org/" rel="nofollow noopener" onmouseover="alert(1)">x</a>',
    '<a href="javascript:alert(1)" rel="nofollow noopener">x</a>',
    '<a href="&#106;avascript:alert(1)" rel="nofollow noopener">x</a>',
    '<a href=" javascript:alert(1)" rel="nofollow noopener">x</a>',
    '<a href="//evil.example/" rel="nofollow noopener">x</a>',
    '<a href="https://example.org/">no rel</a>',
    '<a href=javascript:alert(1) rel="nofollow noopener">x</a>',
    '<div>x</div>',
  ];
  for (const html of bad) it(`refuses ${html}`, () => assert.throws(() => checkInert(html)));
});

describe('renderMarkdown: normal Markdown', () => {
  const cases: [name: string, source: string, expected: string][] = [
    ['a paragraph', 'Hello, world.', '<p>Hello, world.</p>\n'],
    ['headings', '# One\n\n## Two\n\n### Three', '<h1>One</h1>\n<h2>Two</h2>\n<h3>Three</h3>\n'],
    ['setext heading', 'Title\n=====', '<h1>Title</h1>\n'],
    ['emphasis, strong, code', 'Some *em*, __strong__ and `a < b` code.', '<p>Some <em>em</em>, <strong>strong</strong> and <code>a &lt; b</code> code.</p>\n'],
    ['strikethrough', '~~gone~~', '<p><s>gone</s></p>\n'],
    ['bullet list', '- one\n- two\n- three', '<ul>\n<li>one</li>\n<li>two</li>\n<li>three</li>\n</ul>\n'],
    ['ordered list from 3', '3. c\n4. d', '<ol start="3">\n<li>c</li>\n<li>d</li>\n</ol>\n'],
    ['nested list', '- a\n  - b', '<ul>\n<li>a\n<ul>\n<li>b</li>\n</ul>\n</li>\n</ul>\n'],
    ['fenced code keeps its text', '```sh\necho "<b>" && ls\n```', '<pre><code class="language-sh">echo &quot;&lt;b&gt;&quot; &amp;&amp; ls\n</code></pre>\n'],
    ['indented code', '    x = 1', '<pre><code>x = 1\n</code></pre>\n'],
    ['quote', '> said\n> twice', '<blockquote>\n<p>said\ntwice</p>\n</blockquote>\n'],
    ['rule', 'a\n\n***\n\nb', '<p>a</p>\n<hr>\n<p>b</p>\n'],
    ['hard break', 'a  \nb', '<p>a<br>\nb</p>\n'],
    ['ampersand and quotes', 'Tom & "Jerry"', '<p>Tom &amp; &quot;Jerry&quot;</p>\n'],
    ['https link', '[UrLab](https://urlab.be/)', `<p><a href="https://urlab.be/" ${REL}>UrLab</a></p>\n`],
    ['link with a title', '[x](http://example.org/a "The A")', `<p><a href="http://example.org/a" title="The A" ${REL}>x</a></p>\n`],
    ['mailto link', '[write](mailto:info@example.org)', `<p><a href="mailto:info@example.org" ${REL}>write</a></p>\n`],
    ['autolink', '<https://example.org/x?a=1&b=2>', `<p><a href="https://example.org/x?a=1&amp;b=2" ${REL}>https://example.org/x?a=1&amp;b=2</a></p>\n`],
    ['e-mail autolink', '<info@example.org>', `<p><a href="mailto:info@example.org" ${REL}>info@example.org</a></p>\n`],
    ['bare URL (linkify)', 'See https://example.org/page.', `<p>See <a href="https://example.org/page" ${REL}>https://example.org/page</a>.</p>\n`],
    ['bare domain stays text', 'Read README.md or example.org', '<p>Read README.md or example.org</p>\n'],
    ['reference link', '[the site][s]\n\n[s]: https://example.org/ "Site"', `<p><a href="https://example.org/" title="Site" ${REL}>the site</a></p>\n`],
    ['spaces in an address are encoded', '[x](<https://example.org/a b>)', `<p><a href="https://example.org/a%20b" ${REL}>x</a></p>\n`],
    ['upper-case http scheme is still http', '[x](HTTPS://example.org/)', `<p><a href="HTTPS://example.org/" ${REL}>x</a></p>\n`],
    ['same-origin path', '[project 3](/projects/3/)', `<p><a href="/projects/3/" ${REL}>project 3</a></p>\n`],
    ['fragment', '[below](#minutes)', `<p><a href="#minutes" ${REL}>below</a></p>\n`],
    ['image becomes a link', '![The logo](https://example.org/logo.png)', `<p><a href="https://example.org/logo.png" ${REL}>The logo</a></p>\n`],
    ['image alt is plain text', '![a *b* `c`](https://example.org/i.png "T")', `<p><a href="https://example.org/i.png" ${REL} title="T">a b c</a></p>\n`],
    ['image without alt shows its address', '![](https://example.org/i.png)', `<p><a href="https://example.org/i.png" ${REL}>https://example.org/i.png</a></p>\n`],
    ['image inside a link: no nested link', '[![badge](https://example.org/b.svg)](https://example.org/)', `<p><a href="https://example.org/" ${REL}>badge</a></p>\n`],
    [
      'table',
      '| a | b |\n|---|--:|\n| 1 | 2 |',
      '<table>\n<thead>\n<tr>\n<th>a</th>\n<th style="text-align:right">b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>1</td>\n<td style="text-align:right">2</td>\n</tr>\n</tbody>\n</table>\n',
    ],
    ['empty', '', ''],
  ];
  for (const [name, source, expected] of cases) {
    it(name, () => assert.equal(render(source), expected));
  }
});

describe('renderMarkdown: CRLF text', () => {
  it('reads \\r\\n as a line break, in paragraphs, lists and code', () => {
    const source = '# Agenda\r\n\r\n1. Budget\r\n2. Door\r\n\r\nline one\r\nline two\r\n\r\n```\r\nmake\r\n```\r\n';
    assert.equal(render(source), '<h1>Agenda</h1>\n<ol>\n<li>Budget</li>\n<li>Door</li>\n</ol>\n<p>line one\nline two</p>\n<pre><code>make\n</code></pre>\n');
  });
  it('reads a lone \\r as a line break too', () => {
    assert.equal(render('a\rb\r\rc'), '<p>a\nb</p>\n<p>c</p>\n');
  });
  it('gives the same HTML for CRLF and LF text', () => {
    const lf = '- a\n- b\n\n> q\n\n    code\n';
    assert.equal(render(lf.replace(/\n/g, '\r\n')), render(lf));
    assert.doesNotMatch(render(lf.replace(/\n/g, '\r\n')), /\r/);
  });
});

describe('renderMarkdown: raw HTML is text', () => {
  const cases: [source: string, expected: string][] = [
    ['<script>alert(1)</script>', '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n'],
    ['<img src=x onerror=alert(1)>', '<p>&lt;img src=x onerror=alert(1)&gt;</p>\n'],
    ['<a href="javascript:alert(1)">x</a>', '<p>&lt;a href=&quot;javascript:alert(1)&quot;&gt;x&lt;/a&gt;</p>\n'],
    ['<div onclick="alert(1)">\nblock\n</div>', '<p>&lt;div onclick=&quot;alert(1)&quot;&gt;\nblock\n&lt;/div&gt;</p>\n'],
    ['text <svg onload=alert(1)> more', '<p>text &lt;svg onload=alert(1)&gt; more</p>\n'],
    ['<!-- comment -->', '<p>&lt;!-- comment --&gt;</p>\n'],
  ];
  for (const [source, expected] of cases) {
    it(JSON.stringify(source), () => {
      assert.equal(render(source), expected);
      assertInert(source);
    });
  }
});

describe('renderMarkdown: addresses that must not become links', () => {
  const hostile = [
    '[x](javascript:alert(1))',
    '[x](JAVASCRIPT:alert(1))',
    '[x](JaVaScRiPt:alert(1))',
    '[x](javascript:alert(1) "title")',
    '[x](<javascript:alert(1)>)',
    '[x](  javascript:alert(1))',
    '[x](&#106;avascript:alert(1))',
    '[x](&#x6A;&#x61;&#x76;&#x61;&#x73;&#x63;&#x72;&#x69;&#x70;&#x74;&#x3A;alert(1))',
    '[x](javascript&#58;alert(1))',
    '[x](javascript&colon;alert(1))',
    '[x](java\tscript:alert(1))',
    '[x](<java\tscript:alert(1)>)',
    '[x](<java\nscript:alert(1)>)',
    '[x](java&#9;script:alert(1))',
    '[x](java&#x0A;script:alert(1))',
    '[x](\u0001javascript:alert(1))',
    '[x](&#1;javascript:alert(1))',
    '[x](java%09script:alert(1))',
    '[x](\\javascript:alert(1))',
    '[x](vbscript:msgbox(1))',
    '[x](VBScript:msgbox(1))',
    '[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
    '[x](data:text/html,<script>alert(1)</script>)',
    '[x](file:///etc/passwd)',
    '[x](ftp://example.org/)',
    '[x](//evil.example/)',
    '[x](/\\evil.example/)',
    '[x](foo/bar)',
    '[x](?q=1)',
    '[x](http:javascript:alert(1))',
    '<javascript:alert(1)>',
    '<JAVASCRIPT:alert(1)>',
    '<data:text/html,hi>',
    '<vbscript:msgbox(1)>',
    'javascript:alert(1) as bare text',
    '[x][r]\n\n[r]: javascript:alert(1)',
    '[r]\n\n[r]: <javascript:alert(1)> "t"',
    '[x][r]\n\n[r]: &#106;avascript:alert(1)',
    '![x](javascript:alert(1))',
    '![x](data:image/png;base64,iVBORw0KGgo=)',
    '![x](data:image/svg+xml,<svg onload=alert(1)>)',
    '![x" onerror="alert(1)](https://example.org/i.png)',
    '[x](https://example.org/"onmouseover="alert(1))',
    '[x](https://example.org/ "t\\" onmouseover=alert(1)")',
    '[[x](javascript:alert(1))](https://example.org/)',
    '[a [b [c](javascript:alert(1)) d] e](https://example.org/)',
    '[![x](javascript:alert(1))](javascript:alert(2))',
    '```"><script>alert(1)</script>\ncode\n```',
    '[x](https://example.org/)<script>alert(1)</script>',
  ];
  for (const source of hostile) {
    it(JSON.stringify(source), () => {
      const out = assertInert(source);
      assert.doesNotMatch(out, /href="[^"]*(javascript|vbscript|data|file)(:|&#)/i, out);
    });
  }

  it('leaves a refused link as its text', () => {
    assert.equal(render('[x](javascript:alert(1))'), '<p>[x](javascript:alert(1))</p>\n');
    assert.equal(render('<javascript:alert(1)>'), '<p>&lt;javascript:alert(1)&gt;</p>\n');
    assert.equal(render('[x](//evil.example/)'), '<p>[x](//evil.example/)</p>\n');
    assert.equal(render('[x](foo/bar)'), '<p>[x](foo/bar)</p>\n');
  });
  it('keeps the allowed link around a refused one', () => {
    assert.equal(render('[[x](javascript:alert(1))](https://example.org/)'), `<p><a href="https://example.org/" ${REL}>[x](javascript:alert(1))</a></p>\n`);
  });
  it('shows a refused image as text, without loading it', () => {
    assert.equal(render('![x](javascript:alert(1))'), '<p>![x](javascript:alert(1))</p>\n');
  });
  it('escapes an image alt that tries to break out of an attribute', () => {
    assert.equal(render('![x" onerror="alert(1)](https://example.org/i.png)'), `<p><a href="https://example.org/i.png" ${REL}>x&quot; onerror=&quot;alert(1)</a></p>\n`);
  });
});

describe('renderMarkdown: bad input never throws', () => {
  const inputs: [string, string][] = [
    ['deep brackets', '['.repeat(20_000) + 'x' + ']'.repeat(20_000) + '(https://example.org/)'],
    ['deep quotes', '>'.repeat(5_000) + ' x'],
    ['deep lists', Array.from({ length: 2_000 }, (_, i) => ' '.repeat(i * 2) + '- x').join('\n')],
    ['many emphasis markers', '*a_'.repeat(20_000)],
    ['many backticks', '`'.repeat(50_000)],
    ['many link starts', '[a]('.repeat(20_000)],
    ['NUL and controls', 'a\u0000b\u0001c\u001fd\u007f'],
    ['lone surrogates', '\ud800 [x](https://example.org/\udc00) \udfff'],
    ['only line breaks', '\r\n'.repeat(1_000)],
  ];
  for (const [name, source] of inputs) {
    it(name, () => {
      const started = performance.now();
      assertInert(source);
      assert.ok(performance.now() - started < 5_000, 'took more than 5 s');
    });
  }
  it('a value that is not a string renders as nothing', () => {
    assert.equal(render(undefined as unknown as string), '');
    assert.equal(render(null as unknown as string), '');
  });
});

describe('isAllowedHref', () => {
  const allowed = ['http://example.org/', 'https://example.org/a?b=c#d', 'HTTPS://example.org/', 'mailto:a@example.org', '/projects/3/', '/', '#x'];
  const refused = [
    '',
    'javascript:alert(1)',
    ' https://example.org/',
    'java%09script:x',
    '//example.org/',
    '/\\example.org/',
    'foo',
    '?x',
    'tel:+32',
    'ftp://example.org/',
    'http://exa mple.org/',
  ];
  for (const href of allowed) it(`allows ${JSON.stringify(href)}`, () => assert.equal(isAllowedHref(href), true));
  for (const href of refused) it(`refuses ${JSON.stringify(href)}`, () => assert.equal(isAllowedHref(href), false));
});

describe('markdownExcerpt', () => {
  it('gives the words without markup, addresses or images', () => {
    const source = '# Open day\r\n\r\nCome *and* see [our lab](https://example.org/lab).\r\n\r\n![map](https://example.org/map.png)\r\n\r\n- 3D printing\r\n- `make`\r\n';
    assert.equal(markdownExcerpt(source, 1000), 'Open day Come and see our lab. map 3D printing make');
  });
  it('keeps raw HTML as the text it is', () => {
    assert.equal(markdownExcerpt('<b>bold</b> & more', 100), '<b>bold</b> & more');
  });
  it('cuts at a word boundary and ends with an ellipsis, within maxChars', () => {
    // "alpha beta gamma delta" is 22 characters; at most 15: 14 characters and "…", cut back to the last space in them.
    assert.equal(markdownExcerpt('alpha beta gamma delta', 15), 'alpha beta…');
    assert.equal(markdownExcerpt('alpha beta gamma delta', 22), 'alpha beta gamma delta');
  });
  it('cuts a long word and never splits a character', () => {
    assert.equal(markdownExcerpt('abcdefghij', 5), 'abcd…');
    assert.equal(markdownExcerpt('😀😀😀😀😀😀', 4), '😀😀😀…');
  });
  it('gives nothing for a limit below one', () => {
    assert.equal(markdownExcerpt('text', 0), '');
    assert.equal(markdownExcerpt('text', Number.NaN), '');
  });
  it('has no limit by default', () => {
    assert.equal(markdownExcerpt('word '.repeat(1000)).length, 'word '.repeat(1000).length - 1);
  });
});

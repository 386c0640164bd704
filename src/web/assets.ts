import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Representation } from '../cache/representation.js';
import type { ReadOptions } from '../cache/read-answer.js';

/** Where the stylesheet and the script live: beside this module in src/, beside the bundle in dist/ (scripts/build.mjs copies them). */
const ASSET_DIR = new URL('./assets/', import.meta.url);

const TYPES: Record<string, string> = { css: 'text/css; charset=utf-8', js: 'text/javascript; charset=utf-8', svg: 'image/svg+xml' };
const FILES = ['style.css', 'live.js', 'passkeys.js', 'simplewebauthn-browser.js', 'icon.svg', 'api-docs.js', 'api-docs.css', 'redoc.standalone.js'] as const;

/**
 * Files taken from a package rather than src/web/assets/: scripts/build.mjs copies them beside the
 * bundle (dist/assets/); from src/ they are read in node_modules. Never committed. `patches` are
 * applied as the file is read: what would make the page fetch from another origin (the pages'
 * CSP refuses it; test/api-docs.test.ts fails on it), and the source map comment (the map is not
 * served).
 */
const VENDOR: Partial<Record<string, { module: string; patches: [RegExp, string][] }>> = {
  'redoc.standalone.js': {
    module: 'redoc/bundles/redoc.standalone.js',
    patches: [
      // The sidebar's "API docs by Redocly" link shows a logo from Redocly's CDN: the link stays, without the image.
      [/[a-z]\?[a-z]\.createElement\("img",\{alt:"redocly logo",onError:\(\)=>[a-z]\(!1\),src:"https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini\.svg"\}\):null/, 'null'],
      // The headings' share-link icon is a data: image (img-src 'self' refuses it): a "#" instead.
      [
        /content: '';(\s*width: 15px;\s*height: 15px;\s*background-size: contain;\s*)background-image: url\('data:image\/svg\+xml;base64,[A-Za-z0-9+/=]+'\);/,
        "content: '#';$1background-image: none;",
      ],
      [/\n\/\/# sourceMappingURL=\S+\s*$/, '\n'],
    ],
  },
  // The WebAuthn ceremonies' browser half (the server's library's own), as one script that sets `SimpleWebAuthnBrowser`.
  'simplewebauthn-browser.js': { module: '@simplewebauthn/browser/dist/bundle/index.umd.min.js', patches: [] },
};

function readAsset(name: string): Buffer {
  const vendor = VENDOR[name];
  const local = new URL(name, ASSET_DIR);
  const body = fs.existsSync(local) || vendor === undefined ? fs.readFileSync(local) : fs.readFileSync(packageFile(vendor.module));
  if (vendor === undefined) return body;
  return Buffer.from(vendor.patches.reduce((text, [pattern, replacement]) => text.replace(pattern, replacement), body.toString('utf8')));
}
/**
 * A file of an installed package (`package/path/in/it`), found from the package's entry point: a
 * package whose `exports` lists only its modules refuses `require.resolve` of any other file.
 */
function packageFile(specifier: string): string {
  const [scope, ...rest] = specifier.split('/');
  const name = scope.startsWith('@') ? `${scope}/${rest.shift()}` : scope;
  let dir = path.dirname(createRequire(import.meta.url).resolve(name));
  while (!isPackageRoot(dir, name)) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`no package.json of ${name} above its entry point`);
    dir = parent;
  }
  return path.join(dir, ...rest);
}

function isPackageRoot(dir: string, name: string): boolean {
  const manifest = path.join(dir, 'package.json');
  return fs.existsSync(manifest) && (JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: string }).name === name;
}

export type AssetName = (typeof FILES)[number];

/** A hashed name never changes content: browsers and proxies keep it for a year without asking again. */
export const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';

export const ASSET_PREFIX = '/assets/';

/**
 * The web pages' static files (style.css, live.js, icon.svg, the API reference's), each read on
 * first use and served under a content-hashed name (`/assets/style.3f2a9c1b0d.css`), so that a
 * new release is fetched at once and an unchanged file never again. On first use, not at start:
 * Redoc's megabyte, patched and hashed, cost 70 ms of every start for a page few ask for.
 */
export class Assets {
  private readonly files = new Map<AssetName, { url: string; representation: Representation }>();
  readonly options: ReadOptions;

  constructor(compressMinBytes: number) {
    this.options = { cacheControl: ASSET_CACHE_CONTROL, compressMinBytes };
  }

  /** The URL of a file by its plain name (`style.css`). */
  url(name: AssetName): string {
    return this.file(name).url;
  }

  /** The file at a request path (`/assets/<name>.<hash>.<extension>`), or undefined. */
  at(path: string): Representation | undefined {
    const match = /^\/assets\/(.+)\.[0-9a-f]{12}\.([a-z]+)$/.exec(path);
    const name = match === null ? undefined : FILES.find((file) => file === `${match[1]}.${match[2]}`);
    if (name === undefined) return undefined;
    const file = this.file(name);
    return file.url === path ? file.representation : undefined;
  }

  private file(name: AssetName): { url: string; representation: Representation } {
    let file = this.files.get(name);
    if (file === undefined) {
      const body = readAsset(name);
      const dot = name.lastIndexOf('.');
      const extension = name.slice(dot + 1);
      const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
      const source = { reads: [], versions: [], changedUs: 0, headers: { allow: 'GET, HEAD', vary: 'Accept-Encoding' }, type: TYPES[extension], expiresMs: 0 };
      file = { url: `${ASSET_PREFIX}${name.slice(0, dot)}.${hash}.${extension}`, representation: new Representation(body, source) };
      this.files.set(name, file);
    }
    return file;
  }
}

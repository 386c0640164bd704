import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Representation } from '../cache/representation.js';
import type { ReadOptions } from '../cache/read-answer.js';

const TYPES: Record<string, string> = { css: 'text/css; charset=utf-8', js: 'text/javascript; charset=utf-8', svg: 'image/svg+xml' };

/** A file taken from a package rather than a folder of ours, and what is changed in it as it is read. */
export interface VendorFile {
  readonly module: string;
  readonly patches: readonly (readonly [RegExp, string])[];
}

/**
 * The static files of one part of the site: the site's own (src/web/assets/) or an app's (its
 * assets/ folder). `dir` is beside the declaring module in src/ and, in the bundle, dist/assets/
 * (scripts/build.mjs copies every assets/ folder there): names are unique across the site.
 */
export interface AssetSource {
  readonly dir: URL;
  /** Its files, by the names pages ask for. */
  readonly files: readonly string[];
  readonly vendor?: Readonly<Record<string, VendorFile>>;
  /** A stylesheet of its own, served as part of the site's style.css (one request for every page's styles). */
  readonly style?: string;
}

/**
 * Files taken from a package rather than src/web/assets/: scripts/build.mjs copies them beside the
 * bundle (dist/assets/); from src/ they are read in node_modules. Never committed. `patches` are
 * applied as the file is read: what would make the page fetch from another origin (the pages'
 * CSP refuses it; test/api-docs.test.ts fails on it), and the source map comment (the map is not
 * served).
 */
export const SITE_ASSETS: AssetSource = {
  dir: new URL('./assets/', import.meta.url),
  files: ['style.css', 'live.js', 'icon.svg', 'api-docs.js', 'api-docs.css', 'redoc.standalone.js'],
  vendor: {
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
  },
};

function readFile(source: AssetSource, name: string): Buffer {
  const vendor = source.vendor?.[name];
  const local = new URL(name, source.dir);
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
  private readonly files = new Map<string, { url: string; representation: Representation }>();
  /** Where each name is read from. */
  private readonly sources = new Map<string, AssetSource>();
  readonly options: ReadOptions;

  /** `sources`: the site's (first: its style.css) and the apps' that are on, in their order. */
  constructor(
    compressMinBytes: number,
    private readonly all: readonly AssetSource[],
  ) {
    this.options = { cacheControl: ASSET_CACHE_CONTROL, compressMinBytes };
    for (const source of all) {
      for (const name of source.files) {
        if (this.sources.has(name)) throw new Error(`two parts of the site have an asset named ${name}`);
        this.sources.set(name, source);
      }
    }
  }

  /** The URL of a file by its plain name (`style.css`). */
  url(name: string): string {
    return this.file(name).url;
  }

  /** The file at a request path (`/assets/<name>.<hash>.<extension>`), or undefined. */
  at(path: string): Representation | undefined {
    const match = /^\/assets\/(.+)\.[0-9a-f]{12}\.([a-z]+)$/.exec(path);
    const name = match === null ? undefined : `${match[1]}.${match[2]}`;
    if (name === undefined || !this.sources.has(name)) return undefined;
    const file = this.file(name);
    return file.url === path ? file.representation : undefined;
  }

  private file(name: string): { url: string; representation: Representation } {
    let file = this.files.get(name);
    if (file === undefined) {
      const body = this.read(name);
      const dot = name.lastIndexOf('.');
      const extension = name.slice(dot + 1);
      const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
      const source = { reads: [], versions: [], changedUs: 0, headers: { allow: 'GET, HEAD', vary: 'Accept-Encoding' }, type: TYPES[extension], expiresMs: 0 };
      file = { url: `${ASSET_PREFIX}${name.slice(0, dot)}.${hash}.${extension}`, representation: new Representation(body, source) };
      this.files.set(name, file);
    }
    return file;
  }

  /** A file's bytes; the site's style.css with every part's own stylesheet after it. */
  private read(name: string): Buffer {
    const source = this.sources.get(name);
    if (source === undefined) throw new Error(`no part of the site has an asset named ${name}`);
    const body = readFile(source, name);
    if (name !== 'style.css') return body;
    const styles = this.all.flatMap((part) => (part.style === undefined ? [] : [readFile(part, part.style)]));
    return Buffer.concat([body, ...styles.flatMap((style) => [Buffer.from('\n'), style])]);
  }
}

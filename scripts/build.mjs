// Bundles the CLI and server into one file (plus the chunks it loads on demand). Node 20 loads hundreds of small ESM modules slowly
// (about 1.8 s through tsx against 0.4 s bundled), and startup time matters for operators.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { build } from 'esbuild';

// What is imported dynamically (`await import(…)`: MQTT.js, when a broker is configured) goes
// into chunks of its own under dist/chunks/, compiled only when loaded: startup parses the bundle.
rmSync('dist/chunks', { recursive: true, force: true });
await build({
  entryPoints: { 'hackerspace-api': 'src/cli/main.ts' },
  outdir: 'dist',
  outExtension: { '.js': '.mjs' },
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // Native addons: loaded from node_modules at run time (@node-rs/*: the platform's binary is an optional dependency it requires).
  external: ['better-sqlite3', '@node-rs/argon2', '@node-rs/bcrypt'],
  // Bundled CommonJS dependencies call require() for Node's built-in modules.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  sourcemap: 'linked',
  logLevel: 'warning',
});

// The common-passwords list the password rules read beside the bundle (src/apps/users/password-rules.ts).
cpSync('src/apps/users/common-passwords.txt.gz', 'dist/common-passwords.txt.gz');
// The API's messages in each language, read at start beside the bundle (src/drf/messages.ts).
rmSync('dist/drf-locale', { recursive: true, force: true });
cpSync('src/drf/locale', 'dist/drf-locale', { recursive: true });

// The web pages' stylesheet and script, read at start beside the bundle (src/web/assets.ts).
rmSync('dist/assets', { recursive: true, force: true });
cpSync('src/web/assets', 'dist/assets', { recursive: true });
// Each app's files (src/apps/<app>/assets/), beside the site's: their names are unique across the site (src/web/assets.ts).
for (const app of readdirSync('src/apps')) if (existsSync(`src/apps/${app}/assets`)) cpSync(`src/apps/${app}/assets`, 'dist/assets', { recursive: true });
// The API reference's renderer (src/web/api-docs.ts), from its package: the same file as src/ serves.
cpSync('node_modules/redoc/bundles/redoc.standalone.js', 'dist/assets/redoc.standalone.js');
// The browser half of the WebAuthn ceremonies (the users app's assets), from its package likewise.
cpSync('node_modules/@simplewebauthn/browser/dist/bundle/index.umd.min.js', 'dist/assets/simplewebauthn-browser.js');

// The catalogues, one file per language beside the bundle: the site's (src/web/locale/) and every
// app's (src/apps/<app>/locale/) merged, since the bundle's modules all name the one folder (src/i18n/catalogue.ts).
rmSync('dist/locale', { recursive: true, force: true });
mkdirSync('dist/locale');
const catalogues = new Map();
for (const folder of ['src/web/locale', ...readdirSync('src/apps').map((app) => `src/apps/${app}/locale`)]) {
  if (!existsSync(folder)) continue;
  for (const file of readdirSync(folder).filter((name) => name.endsWith('.json'))) {
    catalogues.set(file, { ...catalogues.get(file), ...JSON.parse(readFileSync(`${folder}/${file}`, 'utf8')) });
  }
}
for (const [file, messages] of catalogues) writeFileSync(`dist/locale/${file}`, JSON.stringify(messages, null, 2) + '\n');

// @ts-check
/**
 * The import rules of src/, test/, bench/ and scripts/: no cycles, no import from a lower layer
 * of src/ into a higher one, and test/ and bench/ kept apart from each other (rules at the end). Type-only imports count (`tsPreCompilationDeps`): `import type` ties modules together as
 * much as a value import does. Run with `npm run lint:deps`; CI fails on any error below.
 *
 * Layers, bottom to top (a module may import its own layer and the layers below it):
 *   base       src/config.ts, src/log.ts, src/time.ts, src/json.ts, src/command.ts, src/i18n/ (the catalogues and their words)
 *   db         src/db/
 *   resources  src/resources/
 *   features   src/live/, src/interchange/, src/demo/, src/backup/, src/metrics/ (not each other, but demo → interchange)
 *   http       src/http/, src/drf/, src/request/, src/cache/, src/handlers/, src/web/, src/openapi/, src/routes/
 *   apps       src/apps/<app>/ (apps.md): each app imports the machinery (the layers above) and,
 *              through `src/apps/<other>/index.ts` only, the apps its app.ts declares in `needs`
 *   composition src/installed-apps.ts, src/app.ts, src/openapi/document.ts: the installed list and what is built from it
 *   top        src/cli/, src/server.ts, src/supervisor.ts
 * The machinery (every layer below apps) imports no app: the apps are handed to it (http/app-declaration.ts).
 * Inside http, sub-layers, bottom to top (each may import those below it and itself):
 *   drf < request < cache < web < openapi < http < handlers < routes < app (src/app.ts and
 *   src/openapi/document.ts, which gathers the route table's path items).
 * A new file or folder of src/ must be given a layer here: a module outside every layer may
 * neither import nor be imported (rule `in-a-layer`).
 */

const BASE = '^src/((config|log|time|json|command)\\.ts$|i18n/)';
const DB = '^src/db/';
const RESOURCES = '^src/resources/';
const FEATURES = '^src/(live|interchange|demo|backup|metrics)/';
const HTTP = '^src/(app\\.ts$|installed-apps\\.ts$|(http|drf|request|cache|handlers|web|openapi|routes)/)';
const APPS = '^src/apps/';
const COMPOSITION = '^src/(app|installed-apps|openapi/document)\\.ts$';
const TOP_FOR_APPS = '^src/(cli/|server\\.ts$|supervisor\\.ts$)';

const fs = require('node:fs');
const path = require('node:path');
/** Each app's declared needs, read from its declaration (`src/apps/<app>/app.ts`: `needs: ['users']`) as the service reads them. */
const APP_NEEDS = Object.fromEntries(
  fs
    .readdirSync(path.join(__dirname, 'src/apps'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map(({ name }) => {
      const index = fs.readFileSync(path.join(__dirname, 'src/apps', name, 'app.ts'), 'utf8');
      const needs = /\bneeds: \[([^\]]*)\]/.exec(index);
      if (needs === null) throw new Error(`src/apps/${name}/app.ts declares no needs: [...]`);
      return [name, [...needs[1].matchAll(/'([a-z0-9_]+)'/g)].map((m) => m[1])];
    }),
);
/** The HTTP layer's sub-layers, bottom to top. */
const HTTP_LAYERS = [
  ['drf', '^src/drf/'],
  ['request', '^src/request/'],
  ['cache', '^src/cache/'],
  ['web', '^src/web/'],
  ['openapi', '^src/openapi/(?!document\\.ts$)'],
  ['http', '^src/http/'],
  ['handlers', '^src/handlers/'],
  ['routes', '^src/routes/'],
  ['app', '^src/(app\\.ts|installed-apps\\.ts|openapi/document\\.ts)$'],
];
const TOP = '^src/(cli/|server\\.ts$|supervisor\\.ts$)';
const LAYERED = [BASE, DB, RESOURCES, FEATURES, HTTP, APPS, TOP];

/** A rule forbidding `from` to import anything in src/ outside the layers `allowed`. */
function layer(name, comment, from, allowed) {
  return { name, comment, severity: 'error', from: { path: from }, to: { path: '^src/', pathNot: allowed } };
}

/** One feature module (live, interchange, …) may import the layers below it, itself, and `also`. */
function feature(dir, also = []) {
  return layer(
    `${dir}-stays-in-its-layer`,
    `src/${dir}/ may import only base, db/, resources/ and itself${also.length > 0 ? ` (and ${also.join(', ')}/)` : ''}: not the other feature folders, HTTP or the top`,
    `^src/${dir}/`,
    [BASE, DB, RESOURCES, `^src/(${[dir, ...also].join('|')})/`],
  );
}

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Import cycles, type-only imports included, are forbidden: move what both sides share into a lower module.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    layer('base-stays-base', 'config, log, time and json are the bottom layer: they may import only each other.', BASE, [BASE]),
    layer('db-no-upward', 'src/db/ may import only base modules and itself.', DB, [BASE, DB]),
    {
      name: 'migrations-frozen',
      comment:
        "A migration spells out the tables it touches as they were then: src/db/migrations.ts may not import today's declarations (tables.ts, schema.ts, table-versions.ts).",
      severity: 'error',
      from: { path: '^src/(db|apps/[^/]+)/migrations\\.ts$' },
      to: { path: '^src/db/(tables|schema|table-versions)\\.ts$' },
    },
    layer('resources-no-upward', 'src/resources/ may import only base, db/ and itself.', RESOURCES, [BASE, DB, RESOURCES]),
    feature('live'),
    feature('interchange'),
    feature('backup'),
    // The demo loads its generated data through the fixture importer (demo/load.ts), as an operator's file would be.
    feature('demo', ['interchange']),
    // Prometheus metrics: the app's parts reach it as plain functions (http/metrics.ts wires them).
    feature('metrics'),
    // Within HTTP: each sub-layer may import the layers below HTTP, the sub-layers below it and itself.
    ...HTTP_LAYERS.map(([name, path], i) =>
      layer(
        `${name}-no-upward`,
        `src/${name === 'app' ? 'app.ts' : name + '/'} may import only the HTTP sub-layers below it (${
          HTTP_LAYERS.slice(0, i)
            .map(([below]) => below)
            .join(' < ') || 'none'
        }), itself, and the layers below HTTP.`,
        path,
        [BASE, DB, RESOURCES, FEATURES, APPS, ...HTTP_LAYERS.slice(0, i + 1).map(([, below]) => below)],
      ),
    ),
    layer('http-no-upward', 'The HTTP layer may not import the top layer (cli/, server.ts, supervisor.ts).', HTTP, [BASE, DB, RESOURCES, FEATURES, HTTP, APPS]),
    {
      name: 'machinery-imports-no-app',
      comment: 'The machinery (everything below src/apps/ but the composition) knows no app: the installed list hands it the apps (http/app-declaration.ts).',
      severity: 'error',
      from: { path: '^src/', pathNot: [APPS, COMPOSITION, TOP_FOR_APPS] },
      to: { path: APPS },
    },
    layer('apps-below-composition', 'An app imports the machinery, not the installed list, the wiring or the commands above it.', APPS, [
      BASE,
      DB,
      RESOURCES,
      FEATURES,
      APPS,
      '^src/(?!openapi/document\\.ts$)(http|drf|request|cache|handlers|web|openapi|routes)/',
    ]),
    {
      name: 'app-through-its-public-module',
      comment: "An app imports another app only through that app's one public module, src/apps/<app>/index.ts: never its internals.",
      severity: 'error',
      from: { path: '^src/apps/([^/]+)/' },
      to: { path: APPS, pathNot: ['^src/apps/$1/', '^src/apps/[^/]+/index\\.ts$'] },
    },
    ...Object.entries(APP_NEEDS).map(([app, needs]) => ({
      name: `${app}-imports-only-what-it-needs`,
      comment: `src/apps/${app}/ may import another app only if its app.ts declares it in needs (now: ${needs.join(', ') || 'none'}).`,
      severity: 'error',
      from: { path: `^src/apps/${app}/` },
      to: { path: APPS, pathNot: [`^src/apps/(${[app, ...needs].join('|')})/`] },
    })),
    {
      name: 'pg-on-demand',
      comment:
        'pg is loaded only where PostgreSQL is used (src/db/pg-driver.ts): postgres.ts alone imports it, and postgres.ts is loaded with `await import()` (connection.ts). A static import anywhere else loads it, and the fetch stack it touches, at every start on SQLite.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/db/postgres\\.ts$' },
      to: { path: '^node_modules/pg/', dynamic: false, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'postgres-module-on-demand',
      comment: 'src/db/postgres.ts (and with it pg) is loaded with `await import()` by connection.ts only.',
      severity: 'error',
      from: {},
      to: { path: '^src/db/postgres\\.ts$', dynamic: false, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'in-a-layer',
      comment: 'Every module of src/ belongs to a layer listed in .dependency-cruiser.cjs: add a new folder or file there.',
      severity: 'error',
      from: { path: '^src/', pathNot: LAYERED },
      to: { path: '^src/' },
    },
    {
      name: 'into-a-layer',
      comment: 'Every module of src/ belongs to a layer listed in .dependency-cruiser.cjs: add a new folder or file there.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^src/', pathNot: [...LAYERED, '^src/apps/space/spaceapi/schema-[0-9]+\\.json$'] },
    },
    {
      name: 'src-not-to-test-or-bench',
      comment: 'The service may not import its tests or benchmarks.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench)/' },
    },
    {
      name: 'bench-not-to-src',
      comment: 'bench/ measures the built bundle (dist/), run as a process: it imports nothing from src/.',
      severity: 'error',
      from: { path: '^bench/' },
      to: { path: '^src/' },
    },
    {
      name: 'test-and-bench-apart',
      comment: 'test/ and bench/ do not import each other.',
      severity: 'error',
      from: { path: '^(test|bench)/' },
      to: { path: '^(test|bench)/', pathNot: '^$1/' },
    },
    {
      name: 'test-imports-only-support',
      comment: 'Within test/, only test/support/ is imported: test files do not import each other, and test/support/ imports no test file.',
      severity: 'error',
      from: { path: '^test/' },
      to: { path: '^test/', pathNot: '^test/support/' },
    },
    {
      name: 'src-not-to-dev-dependencies',
      comment: 'The service may not import a devDependency at run time (type-only imports of @types packages are fine).',
      severity: 'error',
      from: { path: '^src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import dependency-cruiser cannot resolve would escape every rule above.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    // `import type` and type-only `export … from` count as dependencies.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    // A benchmark's run folder holds copies of built bundles: output, not source.
    exclude: { path: '^bench/out/' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};

import { eventsApp } from './apps/events/app.js';
import { projectsApp } from './apps/projects/app.js';
import { spaceApp } from './apps/space/app.js';
import { stockApp } from './apps/stock/app.js';
import { usersApp } from './apps/users/app.js';
import type { Kysely } from 'kysely';
import { migrateToLatest, migrationsInOrder } from './db/migrations.js';
import type { Db } from './db/connection.js';
import { countedTablesOf, installedTables, versionedTablesOf } from './db/tables.js';
import { checkedInstalled, collectionsOf, modelsOf, type AppDeclaration } from './http/app-declaration.js';
import { EVENT_STATUSES } from './apps/events/events.js';
import { PROJECT_STATUSES } from './apps/projects/projects.js';
import { DEFAULT_DEMO_SEED, demoRecords as demoRecordsOf, type DemoChoices, type DemoRecord, type DemoSizes } from './demo/generate.js';
import { loadDemo as loadDemoOf, type LoadDemoOptions, type LoadDemoOutcome } from './demo/load.js';
import { exportFixture as exportModels } from './interchange/export.js';
import { importRecords as importModels, type ImportOptions, type ImportReport } from './interchange/import.js';
import { installedModels } from './interchange/models.js';

/**
 * The installed apps (apps.md), Django's INSTALLED_APPS: each app after those it needs. The
 * route table, the API root, the OpenAPI document and the navigation are derived from this list,
 * narrowed by APPS to the apps that are on. Adding an app is one folder and one line here.
 */
export const INSTALLED_APPS: readonly AppDeclaration[] = checkedInstalled([usersApp, spaceApp, projectsApp, eventsApp, stockApp]);

/** The collections of every installed app, in the API root's order (what the API serves with every app on). */
export const INSTALLED_COLLECTIONS = collectionsOf(INSTALLED_APPS);

/** Every installed app's migrations after the founding history, in the order they run (on or off: an app's tables stay). */
export const INSTALLED_MIGRATIONS = migrationsInOrder(INSTALLED_APPS);

/** Brings a database's schema up to date with the installed apps; the names of the migrations it applied. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's migrations run on any database type.
export function migrate(db: Kysely<any>): Promise<string[]> {
  return migrateToLatest(db, INSTALLED_MIGRATIONS);
}

/** Every table: the installed apps' (in the installed order), then the machinery's; Django's dependency order. */
export const TABLES = installedTables(INSTALLED_APPS.map((app) => app.tables));
/** The tables whose rows collection_counts counts. */
export const COUNTED_TABLES = countedTablesOf(TABLES);
/** The tables whose versions table_versions keeps (responses are built from them). */
export const VERSIONED_TABLES = versionedTablesOf(TABLES);

/** The original's models the installed apps import and export, in Django's dependency order (the tables' order). */
export const INSTALLED_MODELS = installedModels(
  TABLES,
  modelsOf(INSTALLED_APPS),
  INSTALLED_APPS.flatMap((app) => app.keptModels ?? []),
);
/** Each model's import and export, by name, in Django's dependency order. */
export const MODEL_SPECS = INSTALLED_MODELS.specs;
export const MODEL_ORDER: readonly string[] = [...MODEL_SPECS.keys()];

/** Imports dumpdata records of the installed apps' models (interchange/import.ts; the caller owns the transaction). */
export function importRecords(db: Db, records: Iterable<unknown> | AsyncIterable<unknown>, options?: ImportOptions): Promise<ImportReport> {
  return importModels(db, INSTALLED_MODELS, records, options);
}

/** Writes the installed apps' models as a dumpdata fixture (interchange/export.ts). */
export function exportFixture(db: Db, out: NodeJS.WritableStream): Promise<Record<string, number>> {
  return exportModels(db, INSTALLED_MODELS, out);
}

/** The apps' choices the demo picks from. */
const DEMO_CHOICES: DemoChoices = { projectStatuses: PROJECT_STATUSES, eventStatuses: EVENT_STATUSES };

/** The demo's records of the installed apps' models (demo/generate.ts). */
export function demoRecords(sizes: DemoSizes, seed: number = DEFAULT_DEMO_SEED, nowUs: number = Date.now() * 1000): Generator<DemoRecord> {
  return demoRecordsOf(DEMO_CHOICES, sizes, seed, nowUs);
}

/** Loads the demo through the importer (demo/load.ts). */
export function loadDemo(db: Db, sizes: DemoSizes, seed: number, options?: LoadDemoOptions): Promise<LoadDemoOutcome> {
  return loadDemoOf(db, INSTALLED_MODELS, DEMO_CHOICES, sizes, seed, options);
}

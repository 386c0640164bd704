import { eventsApp } from './apps/events/app.js';
import { projectsApp } from './apps/projects/app.js';
import { spaceApp } from './apps/space/app.js';
import { usersApp } from './apps/users/app.js';
import type { Kysely } from 'kysely';
import { migrateToLatest, migrationsInOrder } from './db/migrations.js';
import { checkedInstalled, collectionsOf, type AppDeclaration } from './http/app-declaration.js';

/**
 * The installed apps (apps.md), Django's INSTALLED_APPS: each app after those it needs. The
 * route table, the API root, the OpenAPI document and the navigation are derived from this list,
 * narrowed by APPS to the apps that are on. Adding an app is one folder and one line here.
 */
export const INSTALLED_APPS: readonly AppDeclaration[] = checkedInstalled([usersApp, spaceApp, projectsApp, eventsApp]);

/** The collections of every installed app, in the API root's order (what the API serves with every app on). */
export const INSTALLED_COLLECTIONS = collectionsOf(INSTALLED_APPS);

/** Every installed app's migrations after the founding history, in the order they run (on or off: an app's tables stay). */
export const INSTALLED_MIGRATIONS = migrationsInOrder(INSTALLED_APPS);

/** Brings a database's schema up to date with the installed apps; the names of the migrations it applied. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely's migrations run on any database type.
export function migrate(db: Kysely<any>): Promise<string[]> {
  return migrateToLatest(db, INSTALLED_MIGRATIONS);
}

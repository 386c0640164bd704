import type { Command } from '../command.js';
import { ConfigError } from '../config.js';
import type { MigrationSet } from '../db/migrations.js';
import type { TableDeclarations } from '../db/tables.js';
import type { Collection } from '../drf/collections.js';
import type { KeptModels, ModelDeclaration } from '../interchange/models.js';
import type { AssetSource } from '../web/assets.js';
import type { DashboardPanel } from '../web/dashboard.js';
import type { NavLink } from '../web/layout.js';
import type { MessageKey } from '../i18n/words.js';
import type { Route } from './route.js';

/**
 * One app of the community (apps.md), as it declares itself in `src/apps/<app>/app.ts` (what other
 * apps may use of it is its `index.ts`): the counterpart of a Django app's `AppConfig` and
 * `urls.py`. The installed list (src/installed-apps.ts) gathers them; the route table, the API
 * root, the OpenAPI document, the navigation, the dashboard, migrations and commands are derived
 * from it. The machinery reads declarations and knows no app by name.
 */
export interface AppDeclaration {
  /** Its name, as APPS spells it: the original's Django app label where there is one. */
  readonly name: string;
  /** The apps it needs: installed with it, and on whenever it is. */
  readonly needs: readonly string[];
  /** False for the apps a space cannot turn off. */
  readonly optional: boolean;
  /** Its frozen migrations, by the name a database records each under; they run whether the app is on or off (its tables stay). */
  readonly migrations: MigrationSet;
  /** Its tables (its tables.ts), in Django's dependency order, join tables after their owner. */
  readonly tables: TableDeclarations;
  /** The original's models it imports and exports, by name (`app.model`), each stored in one of its tables. */
  readonly models?: Readonly<Record<string, ModelDeclaration>>;
  /** Those of its models that an import keeps to write at its end. */
  readonly keptModels?: KeptModels;
  /** Its API collections (`/api/<path>/`), each listed in the API root at its `rootOrder`. */
  readonly collections: readonly Collection[];
  /** Its routes outside the API's collections, in the order the router tries them. */
  readonly routes: readonly Route[];
  /** Its routes that catch what no app's route matched (the original's `/accounts/<username>`), tried after every app's routes. */
  readonly lastRoutes?: readonly Route[];
  /** Its links in the site's navigation. */
  readonly nav: readonly NavLink[];
  /** Its subcommands of `hackerspace-api` (`user`), whether it is on or off. */
  readonly commands?: readonly Command[];
  /** Its parts of the dashboard at `/`. */
  readonly panels?: readonly DashboardPanel[];
  /** Its forms' confirmations, by their codes (handlers/notice.ts). */
  readonly notices?: Readonly<Record<string, MessageKey>>;
  /** Its static files, and a stylesheet of its own served within the site's. */
  readonly assets?: AssetSource;
  /** Its catalogues: a folder of one `<language>.json` per language (its `words.ts` adds the English one's keys to MessageKeys). */
  readonly locale?: URL;
}

/** The installed list, checked: names unique, and each app after the apps it needs (their migrations run first). */
export function checkedInstalled(installed: readonly AppDeclaration[]): readonly AppDeclaration[] {
  const seen = new Set<string>();
  for (const app of installed) {
    if (seen.has(app.name)) throw new Error(`two installed apps are named ${app.name}`);
    const missing = app.needs.find((need) => !seen.has(need));
    if (missing !== undefined) throw new Error(`${app.name} needs ${missing}: install ${missing} before it`);
    seen.add(app.name);
  }
  return installed;
}

/**
 * The apps that are on, in the installed order: those APPS names (all when unset) and those that
 * cannot be turned off. An unknown name, or an app on without one it needs, is a ConfigError:
 * the operator learns it at start, not from a 404.
 */
export function appsTurnedOn(installed: readonly AppDeclaration[], wanted: readonly string[] | null): readonly AppDeclaration[] {
  if (wanted === null) return installed;
  const names = new Set(installed.map((app) => app.name));
  const unknown = wanted.find((name) => !names.has(name));
  if (unknown !== undefined) throw new ConfigError('APPS', `no app is named ${JSON.stringify(unknown)}: the installed apps are ${[...names].join(', ')}`);
  const on = installed.filter((app) => !app.optional || wanted.includes(app.name));
  const onNames = new Set(on.map((app) => app.name));
  for (const app of on) {
    const missing = app.needs.find((need) => !onNames.has(need));
    if (missing !== undefined) throw new ConfigError('APPS', `${app.name} needs ${missing}: add ${missing} to APPS or leave ${app.name} out`);
  }
  return on;
}

/** The collections of these apps, in the API root's order. */
export function collectionsOf(apps: readonly AppDeclaration[]): readonly Collection[] {
  return apps.flatMap((app) => app.collections).sort((a, b) => a.rootOrder - b.rootOrder);
}

/** The model declarations of these apps, by name. */
export function modelsOf(apps: readonly AppDeclaration[]): Readonly<Record<string, ModelDeclaration>> {
  return Object.assign({}, ...apps.map((app) => app.models ?? {})) as Record<string, ModelDeclaration>;
}

/** The site's navigation: its own links and those of these apps, in their order. */
export function siteLinksOf(own: readonly NavLink[], apps: readonly AppDeclaration[]): readonly NavLink[] {
  return [...own, ...apps.flatMap((app) => app.nav)].sort((a, b) => a.order - b.order);
}

/** The words of every form's confirmation: the site's and these apps'. */
export function noticesOf(own: Readonly<Record<string, MessageKey>>, apps: readonly AppDeclaration[]): Readonly<Record<string, MessageKey>> {
  return Object.freeze(Object.assign({}, own, ...apps.map((app) => app.notices ?? {})) as Record<string, MessageKey>);
}

/** The static files: the site's first (its style.css), then these apps'. */
export function assetsOf(own: AssetSource, apps: readonly AppDeclaration[]): readonly AssetSource[] {
  return [own, ...apps.flatMap((app) => (app.assets === undefined ? [] : [app.assets]))];
}

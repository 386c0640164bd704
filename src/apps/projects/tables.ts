import type { Database } from '../../db/schema.js';
import type { TableDeclaration } from '../../db/table-declaration.js';

/** The projects app's tables, declared once (db/table-declaration.ts); in Django's dependency order, join tables after their owner. */
export const PROJECTS_TABLES = {
  projects: {
    columns: ['id', 'title', 'maintainer_id', 'status', 'progress', 'short_description', 'content', 'created_us', 'modified_us', 'picture'],
    counted: true,
    versioned: true,
    collection: 'projects',
    model: 'projects.project',
    foreignKeys: [{ column: 'maintainer_id', references: 'users', onDelete: 'restrict' }],
    indexes: ['projects_maintainer'],
  },
  project_participants: {
    columns: ['project_id', 'user_id'],
    versioned: true,
    link: { owner: 'project_id', target: 'user_id' },
    foreignKeys: [
      { column: 'project_id', references: 'projects', onDelete: 'cascade' },
      { column: 'user_id', references: 'users', onDelete: 'cascade' },
    ],
    indexes: ['project_participants_user'],
  },
  project_dependencies: {
    columns: ['project_id', 'dependency_id'],
    link: { owner: 'project_id', target: 'dependency_id' },
    foreignKeys: [
      { column: 'project_id', references: 'projects', onDelete: 'cascade' },
      { column: 'dependency_id', references: 'projects', onDelete: 'cascade' },
    ],
    indexes: ['project_dependencies_dependency'],
  },
} as const satisfies { readonly [T in 'projects' | 'project_participants' | 'project_dependencies']: TableDeclaration<Database[T]> };

/** The projects app's tables, added to every table's declaration (db/tables.ts). */
declare module '../../db/tables.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- the declaration merges ProjectsTables's members into Tables.
  interface Tables extends ProjectsTables {}
}
type ProjectsTables = typeof PROJECTS_TABLES;

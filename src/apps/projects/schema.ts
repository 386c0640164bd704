import type { Generated } from 'kysely';

/** Booleans are 0/1 integers (SQLite has no boolean type) and instants are integer microseconds since the epoch (time.ts). */

export interface ProjectsTable {
  id: Generated<number>;
  title: string;
  maintainer_id: number;
  status: string;
  progress: number;
  short_description: string;
  content: string;
  created_us: number | null;
  modified_us: number | null;
  /** Stored path below the media root; '' or null for none, kept apart as the original does. */
  picture: Generated<string | null>;
}

/** The original's `dependencies` (projects this project depends on), as each record lists them. */
export interface ProjectDependenciesTable {
  project_id: number;
  dependency_id: number;
}

export interface ProjectParticipantsTable {
  project_id: number;
  user_id: number;
}

/** The projects app's tables, added to the Database type every query is checked against (db/schema.ts). */
declare module '../../db/schema.js' {
  interface Database {
    projects: ProjectsTable;
    project_dependencies: ProjectDependenciesTable;
    project_participants: ProjectParticipantsTable;
  }
}

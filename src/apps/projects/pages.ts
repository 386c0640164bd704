import type { Db } from '../../db/connection.js';
import type { UserName } from '../../web/details.js';

/**
 * What the web pages show of the projects, read straight from the tables: the dashboard's list,
 * a member's projects and a project's page with the names it links to. No e-mail address is ever selected.
 */

export interface ProjectSummary {
  id: number;
  title: string;
  status: string;
  progress: number;
  short_description: string;
  maintainer: UserName;
}

/** Projects with their maintainer's name (never the e-mail address). */
function selectProjects(db: Db) {
  return db
    .selectFrom('projects')
    .innerJoin('users', 'users.id', 'projects.maintainer_id')
    .select(['projects.id', 'projects.title', 'projects.status', 'projects.progress', 'projects.short_description', 'users.id as user_id', 'users.username']);
}

type ProjectRow = Awaited<ReturnType<ReturnType<typeof selectProjects>['executeTakeFirstOrThrow']>>;

function projectSummary({ user_id, username, ...project }: ProjectRow): ProjectSummary {
  return { ...project, maintainer: { id: user_id, username } };
}

/** Every project with its maintainer's name, by id (the dashboard groups them by status). */
export async function projectSummaries(db: Db): Promise<ProjectSummary[]> {
  const rows = await selectProjects(db).orderBy('projects.id').execute();
  return rows.map(projectSummary);
}

/** The projects a member maintains or takes part in, by id. */
export async function projectsOf(db: Db, userId: number): Promise<ProjectSummary[]> {
  const rows = await selectProjects(db)
    .where((eb) =>
      eb.or([eb('projects.maintainer_id', '=', userId), eb('projects.id', 'in', eb.selectFrom('project_participants').select('project_id').where('user_id', '=', userId))]),
    )
    .orderBy('projects.id')
    .execute();
  return rows.map(projectSummary);
}

export interface ProjectPage extends ProjectSummary {
  content: string;
  participants: UserName[];
}

export async function projectPage(db: Db, id: number): Promise<ProjectPage | undefined> {
  const row = await selectProjects(db).select('projects.content').where('projects.id', '=', id).executeTakeFirst();
  if (row === undefined) return undefined;
  const { content, ...summary } = row;
  return { ...projectSummary(summary), content, participants: await participants(db, id) };
}

/** The members taking part in a project, by id. */
function participants(db: Db, projectId: number): Promise<UserName[]> {
  return db
    .selectFrom('project_participants')
    .innerJoin('users', 'users.id', 'user_id')
    .select(['users.id', 'users.username'])
    .where('project_id', '=', projectId)
    .orderBy('users.id')
    .execute();
}

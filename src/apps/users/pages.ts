import type { Db } from '../../db/connection.js';
import type { UserName } from '../../web/details.js';

/** What the web pages show of the members, read straight from the tables. No e-mail address is ever selected. */

/** How many members there are, and how many of them hold a key. */
export async function memberCounts(db: Db): Promise<{ members: number; keyHolders: number }> {
  const row = await db
    .selectFrom('users')
    .select((eb) => [eb.fn.countAll<string | number>().as('members'), eb.fn.sum<string | number | null>('has_key').as('key_holders')])
    .executeTakeFirstOrThrow();
  return { members: Number(row.members), keyHolders: Number(row.key_holders ?? 0) };
}

export interface MemberPage extends UserName {
  hasKey: boolean;
  /** First and last name, only when the member chose to show them (users.show_name); never the e-mail address. */
  fullName: string | null;
  /** Markdown. */
  description: string;
  maintains: { id: number; title: string }[];
  participates: { id: number; title: string }[];
}

export async function findMemberPage(db: Db, id: number, withProjects = true): Promise<MemberPage | undefined> {
  const user = await db.selectFrom('users').select(['id', 'username', 'has_key', 'first_name', 'last_name', 'show_name', 'description']).where('id', '=', id).executeTakeFirst();
  if (user === undefined) return undefined;
  const name = `${user.first_name} ${user.last_name}`.trim();
  // The projects' tables are read here because users needs no app (projects needs users, not the reverse).
  // With the projects turned off (APPS), the page names none: their pages answer 404.
  const maintains = withProjects ? await db.selectFrom('projects').select(['id', 'title']).where('maintainer_id', '=', id).orderBy('id').execute() : [];
  const participates = withProjects
    ? await db
        .selectFrom('project_participants')
        .innerJoin('projects', 'projects.id', 'project_participants.project_id')
        .select(['projects.id', 'projects.title'])
        .where('project_participants.user_id', '=', id)
        .orderBy('projects.id')
        .execute()
    : [];
  return {
    id: user.id,
    username: user.username,
    hasKey: Boolean(user.has_key),
    fullName: user.show_name === 1 && name !== '' ? name : null,
    description: user.description ?? '',
    maintains,
    participates,
  };
}

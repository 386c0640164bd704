import { Type, type Static } from '@sinclair/typebox';
import type { Db } from '../db/connection.js';
import type { ProjectsTable } from '../db/schema.js';
import { countRecords } from './counts.js';
import type { PageWindow, RecordContext } from './record-context.js';
import { relatedUserIds } from './related-users.js';

export const PROJECT_STATUSES = ['a', 'd', 'f', 'i', 'p'] as const;

export const ProjectRecord = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  maintainer: Type.String({ format: 'uri' }),
  participants: Type.Array(Type.String({ format: 'uri' })),
  status: Type.Union(PROJECT_STATUSES.map((s) => Type.Literal(s))),
  progress: Type.Integer({ minimum: 0, maximum: 100 }),
  short_description: Type.String(),
  content: Type.String(),
});
export type ProjectRecord = Static<typeof ProjectRecord>;

type ProjectRow = Omit<ProjectsTable, 'id' | 'created_us' | 'modified_us'> & { id: number; participants: number[] };

const columns = ['id', 'title', 'maintainer_id', 'status', 'progress', 'short_description', 'content'] as const;

export function countProjects(db: Db): Promise<number> {
  return countRecords(db, 'projects');
}

/** Ascending id, so that pages never overlap. */
export async function listProjects(db: Db, window: PageWindow): Promise<ProjectRow[]> {
  const rows = await db.selectFrom('projects').select(columns).orderBy('id')
    .limit(window.limit).offset(window.offset).execute();
  return withParticipants(db, rows);
}

export async function findProject(db: Db, id: number): Promise<ProjectRow | undefined> {
  const rows = await db.selectFrom('projects').select(columns).where('id', '=', id).execute();
  return (await withParticipants(db, rows))[0];
}

async function withParticipants<T extends { id: number }>(db: Db, rows: T[]): Promise<(T & { participants: number[] })[]> {
  const participants = await relatedUserIds(db, 'project_participants', 'project_id', rows.map((r) => r.id));
  return rows.map((row) => ({ ...row, participants: participants.get(row.id) ?? [] }));
}

export function projectRecord(row: ProjectRow, ctx: RecordContext): ProjectRecord {
  return {
    id: row.id,
    title: row.title,
    maintainer: ctx.userUrl(row.maintainer_id),
    participants: row.participants.map((id) => ctx.userUrl(id)),
    status: row.status as ProjectRecord['status'],
    progress: row.progress,
    short_description: row.short_description,
    content: row.content,
  };
}

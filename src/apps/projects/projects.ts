import { Type, type Static } from '@sinclair/typebox';
import type { Db } from '../../db/connection.js';
import type { ProjectsTable } from './schema.js';
import { countRecords } from '../../resources/counts.js';
import type { PageWindow, RecordContext } from '../../resources/record-context.js';
import { relatedUserIds } from '../users/index.js';
import { DOES_NOT_EXIST, throwIfAny, type FieldMessages } from '../../resources/write-errors.js';
import { choice, integer, missingIds, relation, relations, replaceLinkedUsers, text, nextId } from '../../resources/write-schema.js';

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

export const ProjectFields = Type.Object({
  title: text('Title', { maxLength: 300, notBlank: true }),
  maintainer: relation('Maintainer', 'users'),
  participants: Type.Optional(relations('Participants', 'users')),
  status: choice('Status', { p: 'proposition', i: 'in progress', f: 'finished', a: 'abandoned', d: 'blocked' }),
  progress: integer('Progress', 0, 100),
  short_description: text('Short description', { maxLength: 1000, notBlank: true }),
  content: Type.Optional(text('Content')),
});
export type ProjectInput = Static<typeof ProjectFields>;

type ProjectRow = Omit<ProjectsTable, 'id' | 'created_us' | 'modified_us' | 'picture'> & { id: number; participants: number[] };

const columns = ['id', 'title', 'maintainer_id', 'status', 'progress', 'short_description', 'content'] as const;

export function countProjects(db: Db): Promise<number> {
  return countRecords(db, 'projects');
}

/** Ascending id, so that pages never overlap. */
export async function listProjects(db: Db, window: PageWindow): Promise<ProjectRow[]> {
  const rows = await db.selectFrom('projects').select(columns).orderBy('id').limit(window.limit).offset(window.offset).execute();
  return withParticipants(db, rows);
}

export async function findProject(db: Db, id: number): Promise<ProjectRow | undefined> {
  const rows = await db.selectFrom('projects').select(columns).where('id', '=', id).execute();
  return (await withParticipants(db, rows))[0];
}

async function withParticipants<T extends { id: number }>(db: Db, rows: T[]): Promise<(T & { participants: number[] })[]> {
  const participants = await relatedUserIds(
    db,
    'project_participants',
    'project_id',
    rows.map((r) => r.id),
  );
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

async function checkUsers(db: Db, input: Partial<ProjectInput>): Promise<void> {
  const errors: FieldMessages = {};
  if (input.maintainer !== undefined && (await missingIds(db, 'users', [input.maintainer])).size > 0) errors.maintainer = [DOES_NOT_EXIST];
  if (input.participants !== undefined && (await missingIds(db, 'users', input.participants)).size > 0) errors.participants = [DOES_NOT_EXIST];
  throwIfAny(errors);
}

export async function createProject(db: Db, input: ProjectInput, nowUs: number): Promise<number> {
  await checkUsers(db, input);
  const { id } = await db
    .insertInto('projects')
    .values({
      id: await nextId(db, 'projects'),
      title: input.title,
      maintainer_id: input.maintainer,
      status: input.status,
      progress: input.progress,
      short_description: input.short_description,
      content: input.content ?? '',
      created_us: nowUs,
      modified_us: nowUs,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  await replaceLinkedUsers(db, 'project_participants', 'project_id', id, input.participants ?? []);
  return id;
}

/** Sets the given fields (participants replaced as a whole); false when there is no such project. */
export async function updateProject(db: Db, id: number, input: Partial<ProjectInput>, nowUs: number): Promise<boolean> {
  const exists = await db.selectFrom('projects').select('id').where('id', '=', id).executeTakeFirst();
  if (!exists) return false;
  await checkUsers(db, input);
  const { maintainer, participants, content, ...rest } = input;
  await db
    .updateTable('projects')
    .set({
      ...rest,
      ...(maintainer !== undefined ? { maintainer_id: maintainer } : {}),
      ...(content !== undefined ? { content } : {}),
      modified_us: nowUs,
    })
    .where('id', '=', id)
    .execute();
  if (participants !== undefined) await replaceLinkedUsers(db, 'project_participants', 'project_id', id, participants);
  return true;
}

export async function deleteProject(db: Db, id: number): Promise<boolean> {
  await db.deleteFrom('project_participants').where('project_id', '=', id).execute();
  await db
    .deleteFrom('project_dependencies')
    .where((eb) => eb.or([eb('project_id', '=', id), eb('dependency_id', '=', id)]))
    .execute();
  const result = await db.deleteFrom('projects').where('id', '=', id).executeTakeFirst();
  return result.numDeletedRows > 0n;
}

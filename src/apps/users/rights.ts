import type { Db } from '../../db/connection.js';
import { said, type Said } from './said.js';

/** The original's model permissions the service acts on (members.md §3), as Django names them: `app_label.codename`. */
export const RIGHTS = [
  'projects.add_project',
  'projects.change_project',
  'projects.delete_project',
  'events.add_event',
  'events.change_event',
  'events.delete_event',
  'events.add_meeting',
  'events.change_meeting',
  'events.delete_meeting',
  'users.change_balance',
  'stock.add_category',
  'stock.change_category',
  'stock.delete_category',
  'stock.add_product',
  'stock.change_product',
  'stock.delete_product',
  'stock.view_paymenttransaction',
] as const;
export type Right = (typeof RIGHTS)[number];

export function isRight(name: string): name is Right {
  return (RIGHTS as readonly string[]).includes(name);
}

/** What a member may do, read afresh from the database each time (never cached: a right lost counts at once). */
export interface MemberRights {
  active: boolean;
  superuser: boolean;
  /** Every right they hold: all nine for an active superuser, none for an inactive account. */
  rights: ReadonlySet<Right>;
}

/** A wrong request about groups (a blank or taken name, an unknown group), with a message fit for the page that made it. */
export class RightsError extends Error {
  override name = 'RightsError';
  constructor(
    message: string,
    /** The same, said in the page's language. */
    readonly said: Said,
  ) {
    super(message);
  }
}

/** The rows Django's migrations create for a right, as `loaddata` in the original expects them. */
export interface PermissionRow {
  appLabel: string;
  model: string;
  codename: string;
  name: string;
}

/** The rights that are no model's default ones (the original's `Meta.permissions`), or whose model's verbose name is several words. */
const PERMISSION_ROWS: Partial<Record<Right, PermissionRow>> = {
  'users.change_balance': { appLabel: 'users', model: 'user', codename: 'change_balance', name: 'Peut modifier son ardoise' },
  'stock.view_paymenttransaction': { appLabel: 'stock', model: 'paymenttransaction', codename: 'view_paymenttransaction', name: 'Can view payment transaction' },
};

/** `projects.add_project` → app `projects`, model `project`, codename `add_project`, name `Can add project`. */
export function permissionRowOf(right: Right): PermissionRow {
  const known = PERMISSION_ROWS[right];
  if (known !== undefined) return known;
  const [appLabel, codename] = right.split('.') as [string, string];
  const [verb, model] = codename.split('_') as [string, string];
  return { appLabel, model, codename, name: `Can ${verb} ${model}` };
}

const NO_RIGHTS: ReadonlySet<Right> = new Set();
const ALL_RIGHTS: ReadonlySet<Right> = new Set(RIGHTS);

/** A member's rights: granted directly or through their groups; all for a superuser; none when inactive or unknown. */
export async function rightsOf(db: Db, userId: number): Promise<MemberRights> {
  const user = await db.selectFrom('users').select(['is_active', 'is_superuser']).where('id', '=', userId).executeTakeFirst();
  if (!user || !user.is_active) return { active: false, superuser: Boolean(user?.is_superuser), rights: NO_RIGHTS };
  if (user.is_superuser) return { active: true, superuser: true, rights: ALL_RIGHTS };
  const rows = await db
    .selectFrom('auth_permissions as p')
    .innerJoin('content_types as ct', 'ct.id', 'p.content_type_id')
    .select(['ct.app_label', 'p.codename'])
    .where((eb) =>
      eb.or([
        eb('p.id', 'in', eb.selectFrom('user_permissions').select('permission_id').where('user_id', '=', userId)),
        eb(
          'p.id',
          'in',
          eb.selectFrom('group_permissions as gp').innerJoin('user_groups as ug', 'ug.group_id', 'gp.group_id').select('gp.permission_id').where('ug.user_id', '=', userId),
        ),
      ]),
    )
    .execute();
  return { active: true, superuser: false, rights: rightsNamed(rows) };
}

/** Whether a member holds one right now. */
export async function hasRight(db: Db, userId: number, right: Right): Promise<boolean> {
  return (await rightsOf(db, userId)).rights.has(right);
}

/** The rights granted to a member directly (not through groups, nor by being a superuser). */
export async function directRightsOf(db: Db, userId: number): Promise<ReadonlySet<Right>> {
  const rows = await db
    .selectFrom('user_permissions as up')
    .innerJoin('auth_permissions as p', 'p.id', 'up.permission_id')
    .innerJoin('content_types as ct', 'ct.id', 'p.content_type_id')
    .select(['ct.app_label', 'p.codename'])
    .where('up.user_id', '=', userId)
    .execute();
  return rightsNamed(rows);
}

function rightsNamed(rows: readonly { app_label: string; codename: string }[]): Set<Right> {
  const rights = new Set<Right>();
  for (const row of rows) {
    const name = `${row.app_label}.${row.codename}`;
    if (isRight(name)) rights.add(name);
  }
  return rights;
}

/** Grants rights to a member directly. Rights they already hold directly are left as they are. */
export async function grantRights(db: Db, userId: number, rights: readonly Right[]): Promise<void> {
  for (const right of new Set(rights)) {
    const permissionId = await permissionIdOf(db, right);
    await db
      .insertInto('user_permissions')
      .values({ user_id: userId, permission_id: permissionId })
      .onConflict((oc) => oc.columns(['user_id', 'permission_id']).doNothing())
      .execute();
  }
}

/** Takes direct grants away (rights held through a group or as a superuser stay). */
export async function revokeRights(db: Db, userId: number, rights: readonly Right[]): Promise<void> {
  const ids = await permissionIdsOf(db, rights);
  if (ids.length === 0) return;
  await db.deleteFrom('user_permissions').where('user_id', '=', userId).where('permission_id', 'in', ids).execute();
}

/** The permission rows that name these rights (those that exist). */
async function permissionIdsOf(db: Db, rights: readonly Right[]): Promise<number[]> {
  if (rights.length === 0) return [];
  const rows = await db
    .selectFrom('auth_permissions as p')
    .innerJoin('content_types as ct', 'ct.id', 'p.content_type_id')
    .select(['p.id', 'ct.app_label', 'p.codename'])
    .where(
      'p.codename',
      'in',
      rights.map((r) => permissionRowOf(r).codename),
    )
    .execute();
  return rows.filter((row) => rights.includes(`${row.app_label}.${row.codename}` as Right)).map((row) => row.id);
}

/**
 * The permission row of a right, created with Django's own values when it does not exist yet (a
 * new installation without an import), so that an export still loads into the original.
 */
export async function permissionIdOf(db: Db, right: Right): Promise<number> {
  const [existing] = await permissionIdsOf(db, [right]);
  if (existing !== undefined) return existing;
  const row = permissionRowOf(right);
  await db
    .insertInto('content_types')
    .values({ app_label: row.appLabel, model: row.model })
    .onConflict((oc) => oc.columns(['app_label', 'model']).doNothing())
    .execute();
  const contentType = await db.selectFrom('content_types').select('id').where('app_label', '=', row.appLabel).where('model', '=', row.model).executeTakeFirstOrThrow();
  await db
    .insertInto('auth_permissions')
    .values({ content_type_id: contentType.id, codename: row.codename, name: row.name })
    .onConflict((oc) => oc.columns(['content_type_id', 'codename']).doNothing())
    .execute();
  const permission = await db
    .selectFrom('auth_permissions')
    .select('id')
    .where('content_type_id', '=', contentType.id)
    .where('codename', '=', row.codename)
    .executeTakeFirstOrThrow();
  return permission.id;
}

// Beyond the original (members.md §3): a maintainer may edit their project, an organizer their
// event and its meetings. Each check reads the rights afresh.

/** The record kinds members act on, by the first segment of their pages' paths. */
export type RecordKind = 'projects' | 'events' | 'meetings';

/** What a member may do to one record besides taking part (which every active member may): the buttons of its page. */
export interface RecordPowers {
  edit: boolean;
  delete: boolean;
  /** An event's: add its meeting. */
  addMeeting: boolean;
}

const NO_POWERS: RecordPowers = { edit: false, delete: false, addMeeting: false };

/** A member's powers over a record, their rights read once (nothing for an inactive account or an unknown record). */
export async function powersOver(db: Db, userId: number, kind: RecordKind, id: number): Promise<RecordPowers> {
  const member = await rightsOf(db, userId);
  if (!member.active) return NO_POWERS;
  const has = (right: Right) => member.rights.has(right);
  if (kind === 'projects') {
    const edit = has('projects.change_project') || (await maintainerOf(db, id)) === userId;
    return { edit, delete: has('projects.delete_project'), addMeeting: false };
  }
  if (kind === 'events') {
    let organizer: Promise<boolean> | undefined;
    const organizes = () => (organizer ??= isOrganizer(db, userId, id));
    return {
      edit: has('events.change_event') || (await organizes()),
      delete: has('events.delete_event'),
      addMeeting: has('events.add_meeting') || (await organizes()),
    };
  }
  const organizes = async () => {
    const meeting = await db.selectFrom('meetings').select('event_id').where('id', '=', id).executeTakeFirst();
    return meeting !== undefined && (await isOrganizer(db, userId, meeting.event_id));
  };
  return { edit: has('events.change_meeting') || (await organizes()), delete: has('events.delete_meeting'), addMeeting: false };
}

/** `change_project`, or being the project's maintainer. */
export async function mayEditProject(db: Db, userId: number, projectId: number): Promise<boolean> {
  return (await powersOver(db, userId, 'projects', projectId)).edit;
}

/** `change_event`, or being the event's organizer. */
export async function mayEditEvent(db: Db, userId: number, eventId: number): Promise<boolean> {
  return (await powersOver(db, userId, 'events', eventId)).edit;
}

/** `add_meeting`, or being the event's organizer. */
export async function mayAddMeeting(db: Db, userId: number, eventId: number): Promise<boolean> {
  return (await powersOver(db, userId, 'events', eventId)).addMeeting;
}

/** `change_meeting`, or being the organizer of the meeting's event. */
export async function mayEditMeeting(db: Db, userId: number, meetingId: number): Promise<boolean> {
  return (await powersOver(db, userId, 'meetings', meetingId)).edit;
}

async function maintainerOf(db: Db, projectId: number): Promise<number | undefined> {
  return (await db.selectFrom('projects').select('maintainer_id').where('id', '=', projectId).executeTakeFirst())?.maintainer_id;
}

async function isOrganizer(db: Db, userId: number, eventId: number): Promise<boolean> {
  const event = await db.selectFrom('events').select('organizer_id').where('id', '=', eventId).executeTakeFirst();
  return event?.organizer_id === userId;
}

// Groups, for the admin pages: a group's rights among the nine (its other permissions are kept).

export interface GroupInfo {
  id: number;
  name: string;
  /** The rights among the nine that the group grants. */
  rights: Right[];
  /** How many other permissions it holds (the original's, kept for the round trip). */
  otherPermissions: number;
  /** How many members belong to it. */
  members: number;
}

/** Django's `Group.name` is a CharField(max_length=150). */
const MAX_GROUP_NAME = 150;

/** Every group, by name, with its rights and its number of members. */
export async function listGroups(db: Db): Promise<GroupInfo[]> {
  const groups = await db.selectFrom('auth_groups').select(['id', 'name']).orderBy('name').orderBy('id').execute();
  const permissions = await db
    .selectFrom('group_permissions as gp')
    .innerJoin('auth_permissions as p', 'p.id', 'gp.permission_id')
    .innerJoin('content_types as ct', 'ct.id', 'p.content_type_id')
    .select(['gp.group_id', 'ct.app_label', 'p.codename'])
    .execute();
  const members = await db
    .selectFrom('user_groups')
    .select(['group_id', (eb) => eb.fn.countAll<number | string>().as('n')])
    .groupBy('group_id')
    .execute();
  const memberCount = new Map(members.map((m) => [m.group_id, Number(m.n)]));
  return groups.map((group) => {
    const own = permissions.filter((p) => p.group_id === group.id);
    const rights = [...rightsNamed(own)];
    return {
      id: group.id,
      name: group.name,
      rights: RIGHTS.filter((r) => rights.includes(r)),
      otherPermissions: own.length - rights.length,
      members: memberCount.get(group.id) ?? 0,
    };
  });
}

function cleanGroupName(name: string): string {
  const clean = name.trim();
  if (clean === '' || clean.length > MAX_GROUP_NAME)
    throw new RightsError(`A group's name must have 1 to ${MAX_GROUP_NAME} characters.`, said('users.admin.group-name-length', { max: MAX_GROUP_NAME }));
  return clean;
}

async function refuseTakenName(db: Db, name: string, exceptId?: number): Promise<void> {
  let query = db.selectFrom('auth_groups').select('id').where('name', '=', name);
  if (exceptId !== undefined) query = query.where('id', '<>', exceptId);
  if (await query.executeTakeFirst()) throw new RightsError(`A group named ${JSON.stringify(name)} already exists.`, said('users.admin.group-name-taken', { name }));
}

async function requireGroup(db: Db, groupId: number): Promise<void> {
  const group = await db.selectFrom('auth_groups').select('id').where('id', '=', groupId).executeTakeFirst();
  if (!group) throw new RightsError(`There is no group ${groupId}.`, said('users.admin.no-group', { groups: String(groupId) }));
}

/** A new group without rights; returns its id. */
export async function createGroup(db: Db, name: string): Promise<number> {
  const clean = cleanGroupName(name);
  await refuseTakenName(db, clean);
  const row = await db.insertInto('auth_groups').values({ name: clean }).returning('id').executeTakeFirstOrThrow();
  return row.id;
}

export async function renameGroup(db: Db, groupId: number, name: string): Promise<void> {
  const clean = cleanGroupName(name);
  await requireGroup(db, groupId);
  await refuseTakenName(db, clean, groupId);
  await db.updateTable('auth_groups').set({ name: clean }).where('id', '=', groupId).execute();
}

/** Deletes a group: its members lose what it granted (user_groups has no foreign key to groups, so its rows go here). */
export async function deleteGroup(db: Db, groupId: number): Promise<void> {
  await requireGroup(db, groupId);
  await db.deleteFrom('user_groups').where('group_id', '=', groupId).execute();
  await db.deleteFrom('auth_groups').where('id', '=', groupId).execute();
}

/** Sets which of the nine rights a group grants; its other permissions stay. */
export async function setGroupRights(db: Db, groupId: number, rights: readonly Right[]): Promise<void> {
  await requireGroup(db, groupId);
  const wanted = new Set(rights);
  const dropped = await permissionIdsOf(
    db,
    RIGHTS.filter((r) => !wanted.has(r)),
  );
  if (dropped.length > 0) await db.deleteFrom('group_permissions').where('group_id', '=', groupId).where('permission_id', 'in', dropped).execute();
  for (const right of wanted) {
    const permissionId = await permissionIdOf(db, right);
    await db
      .insertInto('group_permissions')
      .values({ group_id: groupId, permission_id: permissionId })
      .onConflict((oc) => oc.columns(['group_id', 'permission_id']).doNothing())
      .execute();
  }
}

/** The groups a member belongs to (those that exist), by name. */
export async function groupsOf(db: Db, userId: number): Promise<{ id: number; name: string }[]> {
  return db
    .selectFrom('user_groups as ug')
    .innerJoin('auth_groups as g', 'g.id', 'ug.group_id')
    .select(['g.id', 'g.name'])
    .where('ug.user_id', '=', userId)
    .orderBy('g.name')
    .execute();
}

/**
 * Makes a member belong to exactly these groups. Numbers the member holds that name no group
 * (an imported reference to a group the import did not bring) are kept for the export.
 */
export async function setMemberGroups(db: Db, userId: number, groupIds: readonly number[]): Promise<void> {
  const wanted = [...new Set(groupIds)];
  if (wanted.length > 0) {
    const existing = await db.selectFrom('auth_groups').select('id').where('id', 'in', wanted).execute();
    const unknown = wanted.filter((id) => !existing.some((g) => g.id === id));
    if (unknown.length > 0) throw new RightsError(`There is no group ${unknown.join(', ')}.`, said('users.admin.no-group', { groups: unknown.join(', ') }));
  }
  let leaving = db.deleteFrom('user_groups').where('user_id', '=', userId).where('group_id', 'in', db.selectFrom('auth_groups').select('id'));
  if (wanted.length > 0) leaving = leaving.where('group_id', 'not in', wanted);
  await leaving.execute();
  for (const groupId of wanted) {
    await db
      .insertInto('user_groups')
      .values({ user_id: userId, group_id: groupId })
      .onConflict((oc) => oc.columns(['user_id', 'group_id']).doNothing())
      .execute();
  }
}

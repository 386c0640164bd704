import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Db } from '../../../src/db/connection.js';
import { importRecords } from '../../../src/installed-apps.js';
import {
  createGroup,
  deleteGroup,
  directRightsOf,
  grantRights,
  groupsOf,
  listGroups,
  mayAddMeeting,
  mayEditEvent,
  mayEditMeeting,
  mayEditProject,
  renameGroup,
  revokeRights,
  rightsOf,
  RightsError,
  RIGHTS,
  setGroupRights,
  setMemberGroups,
  type Right,
} from '../../../src/apps/users/rights.js';
import { event, meeting, project, user } from '../../support/contract.js';
import { freshDatabase, type FreshDatabase } from '../../support/server.js';
import { LEDGER_RIGHTS, SPEC_RIGHTS } from '../../support/members.js';

/** Every right: the nine of members.md §3 and the slate's and the shop's (ledger.md §1), spelled out in test/support rather than read from the module under test. */
const ALL: readonly string[] = [...SPEC_RIGHTS, ...LEDGER_RIGHTS];

const sorted = (rights: Iterable<string>) => [...rights].sort();

describe('members: rights', () => {
  let fresh: FreshDatabase;
  let db: Db;
  let nextUser = 1;
  /** A new active member (or as `extra` says), imported as the original would hold them. */
  async function member(extra: Record<string, unknown> = {}): Promise<number> {
    const pk = nextUser++;
    const record = user(pk, `member${pk}`);
    Object.assign(record.fields, extra);
    await db.transaction().execute((trx) => importRecords(trx, [record]));
    return pk;
  }

  before(async () => {
    fresh = await freshDatabase();
    db = fresh.handle.db;
  });
  after(() => fresh.cleanup());

  it("lists exactly the nine rights of the spec, and the slate's and the shop's", () => {
    assert.deepEqual(sorted(RIGHTS), sorted(ALL));
  });

  it("on a new installation, granting creates the permission rows with Django's own values", async () => {
    const id = await member();
    await grantRights(db, id, [...RIGHTS]);
    const rows = await db
      .selectFrom('auth_permissions as p')
      .innerJoin('content_types as ct', 'ct.id', 'p.content_type_id')
      .select(['ct.app_label', 'ct.model', 'p.codename', 'p.name'])
      .execute();
    assert.deepEqual(rows.map((r) => `${r.app_label}/${r.model}/${r.codename}/${r.name}`).sort(), [
      'events/event/add_event/Can add event',
      'events/event/change_event/Can change event',
      'events/event/delete_event/Can delete event',
      'events/meeting/add_meeting/Can add meeting',
      'events/meeting/change_meeting/Can change meeting',
      'events/meeting/delete_meeting/Can delete meeting',
      'projects/project/add_project/Can add project',
      'projects/project/change_project/Can change project',
      'projects/project/delete_project/Can delete project',
      'stock/category/add_category/Can add category',
      'stock/category/change_category/Can change category',
      'stock/category/delete_category/Can delete category',
      'stock/paymenttransaction/view_paymenttransaction/Can view payment transaction',
      'stock/product/add_product/Can add product',
      'stock/product/change_product/Can change product',
      'stock/product/delete_product/Can delete product',
      // The original's own permission (users.models.User.Meta.permissions), with its French name.
      'users/user/change_balance/Peut modifier son ardoise',
    ]);
    // event, meeting, project, category, product, paymenttransaction, user
    assert.equal((await db.selectFrom('content_types').select('id').execute()).length, 7);
    assert.deepEqual(sorted((await rightsOf(db, id)).rights), sorted(ALL));
    // Granting again changes nothing.
    await grantRights(db, id, ['events.add_event']);
    assert.equal((await db.selectFrom('user_permissions').select('user_id').where('user_id', '=', id).execute()).length, ALL.length);
  });

  it('each right granted directly gives that right alone; revoking takes it away', async () => {
    for (const right of ALL) {
      const id = await member();
      await grantRights(db, id, [right as Right]);
      const held = await rightsOf(db, id);
      assert.deepEqual(held, { active: true, superuser: false, rights: new Set([right]) }, right);
      assert.deepEqual(sorted(await directRightsOf(db, id)), [right]);
      await revokeRights(db, id, [right as Right]);
      assert.deepEqual(sorted((await rightsOf(db, id)).rights), [], right);
    }
  });

  it('each right held through a group; revoking a direct grant leaves what the group gives', async () => {
    for (const right of ALL) {
      const id = await member();
      const group = await createGroup(db, `group for ${right}`);
      await setGroupRights(db, group, [right as Right]);
      await setMemberGroups(db, id, [group]);
      assert.deepEqual(sorted((await rightsOf(db, id)).rights), [right]);
      assert.deepEqual(sorted(await directRightsOf(db, id)), []);
      await grantRights(db, id, [right as Right]);
      await revokeRights(db, id, [right as Right]);
      assert.deepEqual(sorted((await rightsOf(db, id)).rights), [right], 'the group still grants it');
      await setMemberGroups(db, id, []);
      assert.deepEqual(sorted((await rightsOf(db, id)).rights), []);
    }
  });

  it('a superuser has every right; an inactive account none, superuser or not; an unknown id none', async () => {
    const boss = await member({ is_superuser: true });
    assert.deepEqual(await rightsOf(db, boss), { active: true, superuser: true, rights: new Set(ALL) });
    const gone = await member({ is_active: false });
    await grantRights(db, gone, ['projects.add_project']);
    assert.deepEqual(sorted((await rightsOf(db, gone)).rights), []);
    assert.equal((await rightsOf(db, gone)).active, false);
    const goneBoss = await member({ is_active: false, is_superuser: true });
    assert.deepEqual(sorted((await rightsOf(db, goneBoss)).rights), []);
    assert.deepEqual(sorted((await rightsOf(db, 999_999)).rights), []);
  });

  it("reads the original's rows as imported: a permission is app_label.codename; other permissions give nothing", async () => {
    await db.insertInto('content_types').values({ id: 501, app_label: 'auth', model: 'user' }).execute();
    await db.insertInto('auth_permissions').values({ id: 601, content_type_id: 501, codename: 'add_project', name: 'odd' }).execute();
    await db.insertInto('auth_permissions').values({ id: 602, content_type_id: 501, codename: 'add_user', name: 'Can add user' }).execute();
    const id = await member();
    await db
      .insertInto('user_permissions')
      .values([
        { user_id: id, permission_id: 601 },
        { user_id: id, permission_id: 602 },
        { user_id: id, permission_id: 9_999 },
      ])
      .execute();
    await db.insertInto('user_groups').values({ user_id: id, group_id: 8_888 }).execute();
    assert.deepEqual(sorted((await rightsOf(db, id)).rights), [], 'auth.add_project and auth.add_user are not among the nine; 9999 and group 8888 name nothing');
    // Granting reuses the rows that exist (here those the first test created), never a second copy.
    const before = (await db.selectFrom('auth_permissions').select('id').execute()).length;
    await grantRights(db, id, ['projects.add_project']);
    assert.equal((await db.selectFrom('auth_permissions').select('id').execute()).length, before);
    assert.deepEqual(sorted((await rightsOf(db, id)).rights), ['projects.add_project']);
  });

  it('a maintainer may edit their project, an organizer their event and its meetings; others need the right', async () => {
    const maintainer = await member();
    const organizer = await member();
    const other = await member();
    await db
      .transaction()
      .execute((trx) =>
        importRecords(trx, [
          project(1, maintainer),
          event(1, '2024-01-01T18:00:00Z', '2024-01-01T20:00:00Z', { organizer }),
          event(2, '2024-01-02T18:00:00Z', '2024-01-02T20:00:00Z', { organizer: other }),
          meeting(1, 1),
          meeting(2, 2),
        ]),
      );
    assert.equal(await mayEditProject(db, maintainer, 1), true);
    assert.equal(await mayEditProject(db, other, 1), false);
    assert.equal(await mayEditProject(db, maintainer, 404), false, 'an unknown project');
    assert.equal(await mayEditEvent(db, organizer, 1), true);
    assert.equal(await mayEditEvent(db, organizer, 2), false);
    assert.equal(await mayAddMeeting(db, organizer, 1), true);
    assert.equal(await mayAddMeeting(db, organizer, 2), false);
    assert.equal(await mayEditMeeting(db, organizer, 1), true);
    assert.equal(await mayEditMeeting(db, organizer, 2), false);
    assert.equal(await mayEditMeeting(db, organizer, 404), false);

    await grantRights(db, other, ['projects.change_project', 'events.change_event', 'events.add_meeting', 'events.change_meeting']);
    assert.equal(await mayEditProject(db, other, 1), true);
    assert.equal(await mayEditEvent(db, other, 1), true);
    assert.equal(await mayAddMeeting(db, other, 1), true);
    assert.equal(await mayEditMeeting(db, other, 1), true);

    // Being the maintainer or organizer gives no deletion right, and nothing at all once inactive.
    assert.deepEqual(sorted((await rightsOf(db, maintainer)).rights), []);
    await db.updateTable('users').set({ is_active: 0 }).where('id', 'in', [maintainer, organizer]).execute();
    assert.equal(await mayEditProject(db, maintainer, 1), false);
    assert.equal(await mayEditEvent(db, organizer, 1), false);
    assert.equal(await mayAddMeeting(db, organizer, 1), false);
    assert.equal(await mayEditMeeting(db, organizer, 1), false);
  });

  it('groups: create, rename, list with rights and members, other permissions kept, delete', async () => {
    await assert.rejects(createGroup(db, '   '), RightsError);
    await assert.rejects(createGroup(db, 'x'.repeat(151)), RightsError);
    const committee = await createGroup(db, ' Committee ');
    await assert.rejects(createGroup(db, 'Committee'), /already exists/);
    const keyHolders = await createGroup(db, 'Key holders');
    await assert.rejects(renameGroup(db, keyHolders, 'Committee'), /already exists/);
    await renameGroup(db, keyHolders, 'Keyholders');
    await assert.rejects(renameGroup(db, 999_999, 'Nobody'), RightsError);

    // An imported permission of the original that the service does not use stays in the group.
    await db.insertInto('group_permissions').values({ group_id: committee, permission_id: 602 }).execute();
    await setGroupRights(db, committee, ['projects.delete_project', 'events.delete_event']);
    await setGroupRights(db, committee, ['events.delete_event', 'events.delete_meeting']);
    const a = await member();
    const b = await member();
    await setMemberGroups(db, a, [committee, keyHolders]);
    await setMemberGroups(db, b, [committee]);
    await assert.rejects(setMemberGroups(db, b, [999_999]), RightsError);

    const listed = (await listGroups(db)).filter((g) => g.id === committee || g.id === keyHolders);
    assert.deepEqual(listed, [
      { id: committee, name: 'Committee', rights: ['events.delete_event', 'events.delete_meeting'], otherPermissions: 1, members: 2 },
      { id: keyHolders, name: 'Keyholders', rights: [], otherPermissions: 0, members: 1 },
    ]);
    assert.deepEqual(await groupsOf(db, a), [
      { id: committee, name: 'Committee' },
      { id: keyHolders, name: 'Keyholders' },
    ]);
    assert.deepEqual(sorted((await rightsOf(db, a)).rights), ['events.delete_event', 'events.delete_meeting']);

    await deleteGroup(db, committee);
    assert.deepEqual(sorted((await rightsOf(db, a)).rights), []);
    assert.deepEqual(await groupsOf(db, a), [{ id: keyHolders, name: 'Keyholders' }]);
  });

  it("setting a member's groups keeps numbers that name no group (kept for the export)", async () => {
    const id = await member();
    const group = await createGroup(db, 'Makers');
    await db.insertInto('user_groups').values({ user_id: id, group_id: 7_777 }).execute();
    await setMemberGroups(db, id, [group]);
    await setMemberGroups(db, id, []);
    const rows = await db.selectFrom('user_groups').select('group_id').where('user_id', '=', id).execute();
    assert.deepEqual(
      rows.map((r) => r.group_id),
      [7_777],
    );
  });
});

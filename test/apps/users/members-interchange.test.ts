// Import and export keep members' rights (members.md §3): Django's contenttypes, permissions and
// groups, referred to by number or by natural key (dumpdata --natural-foreign, --natural-primary).
// The rights each user should have are worked out from the fixture's own records, the way Django
// does (app_label.codename of the permissions held directly or through a group), not by the code
// under test. Both engines.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Db } from '../../../src/db/connection.js';
import { ImportError } from '../../../src/interchange/import.js';
import { grantRights, rightsOf } from '../../../src/apps/users/rights.js';
import { user, type DumpRecord } from '../../support/contract.js';
import { exportText } from '../../support/interchange.js';
import { freshDatabase } from '../../support/server.js';
import { LEDGER_RIGHTS, SPEC_RIGHTS } from '../../support/members.js';
import { importRecords } from '../../../src/installed-apps.js';

/** The rights the service acts on: members.md §3's nine and the slate's (ledger.md §1). */
const ACTED_ON = new Set<string>([...SPEC_RIGHTS, ...LEDGER_RIGHTS]);

/** The content types of the original, numbered as its migrations might have made them. */
const CONTENT_TYPES: [number, string, string][] = [
  [1, 'admin', 'logentry'],
  [2, 'auth', 'permission'],
  [3, 'auth', 'group'],
  [4, 'contenttypes', 'contenttype'],
  [5, 'sessions', 'session'],
  [6, 'users', 'user'],
  [7, 'space', 'spacestatus'],
  [8, 'events', 'event'],
  [9, 'events', 'meeting'],
  [10, 'projects', 'project'],
];
const VERBS = ['add', 'change', 'delete', 'view'];

interface Permission {
  pk: number;
  contentType: number;
  codename: string;
}
const PERMISSIONS: Permission[] = CONTENT_TYPES.flatMap(([ct, , model], i) => VERBS.map((verb, j) => ({ pk: i * 4 + j + 1, contentType: ct, codename: `${verb}_${model}` })));

function permissionPk(codename: string, appLabel: string): number {
  const ct = CONTENT_TYPES.find(([, app, model]) => app === appLabel && codename.endsWith(`_${model}`))![0];
  return PERMISSIONS.find((p) => p.contentType === ct && p.codename === codename)!.pk;
}

/** Each group's permissions by pk, in the order the export writes them. */
const GROUPS: { pk: number; name: string; permissions: number[] }[] = (
  [
    { pk: 1, name: 'committee', permissions: [permissionPk('delete_project', 'projects'), permissionPk('delete_event', 'events'), permissionPk('delete_meeting', 'events')] },
    { pk: 2, name: 'makers', permissions: [permissionPk('add_project', 'projects'), permissionPk('change_project', 'projects'), permissionPk('add_logentry', 'admin')] },
    { pk: 3, name: 'unused', permissions: [permissionPk('view_user', 'users')] },
  ] as const
).map((g) => ({ ...g, permissions: [...g.permissions].sort((a, b) => a - b) }));

/** Users and what they hold: directly, through groups, a superuser, an inactive one, numbers naming nothing. */
function users(): DumpRecord[] {
  const u = (pk: number, groups: number[], perms: number[], extra: Record<string, unknown> = {}) => {
    const record = user(pk, `user${pk}`);
    Object.assign(record.fields, { groups, user_permissions: perms, ...extra });
    return record;
  };
  return [
    u(1, [1], [permissionPk('add_event', 'events')]),
    u(2, [2], [permissionPk('view_user', 'users'), permissionPk('change_meeting', 'events')]),
    u(3, [1, 2], []),
    u(4, [], [], { is_superuser: true }),
    u(5, [1], [permissionPk('add_meeting', 'events')], { is_active: false }),
    u(6, [], []),
  ];
}

type Style = 'numbers' | 'natural-foreign' | 'natural-primary';

/** The fixture as `manage.py dumpdata` writes it in each style. */
function fixture(style: Style): DumpRecord[] {
  const natural = style !== 'numbers';
  const withPk = style !== 'natural-primary';
  const ctKey = (pk: number) => CONTENT_TYPES.find(([id]) => id === pk)!.slice(1);
  const permKey = (pk: number) => {
    const p = PERMISSIONS.find((x) => x.pk === pk)!;
    return [p.codename, ...ctKey(p.contentType)];
  };
  const record = (model: string, pk: number, fields: Record<string, unknown>) => (withPk ? { model, pk, fields } : ({ model, fields } as unknown as DumpRecord));
  return [
    ...CONTENT_TYPES.map(([pk, app_label, model]) => record('contenttypes.contenttype', pk, { app_label, model })),
    ...PERMISSIONS.map((p) =>
      record('auth.permission', p.pk, { name: `Can ${p.codename.replace('_', ' ')}`, content_type: natural ? ctKey(p.contentType) : p.contentType, codename: p.codename }),
    ),
    ...GROUPS.map((g) => record('auth.group', g.pk, { name: g.name, permissions: natural ? g.permissions.map(permKey) : g.permissions })),
    ...users().map((u) =>
      natural
        ? {
            ...u,
            fields: {
              ...u.fields,
              groups: (u.fields.groups as number[]).map((pk) => [GROUPS.find((g) => g.pk === pk)!.name]),
              user_permissions: (u.fields.user_permissions as number[]).map(permKey),
            },
          }
        : u,
    ),
  ];
}

/**
 * Each user's rights among the nine, worked out from dumpdata records alone (numbers or natural
 * keys), as Django's ModelBackend does: none when inactive, all for a superuser, else the
 * app_label.codename of every permission held directly or through a group.
 */
function rightsFromRecords(records: DumpRecord[]): Map<number, string[]> {
  const cts = records.filter((r) => r.model === 'contenttypes.contenttype');
  const perms = records.filter((r) => r.model === 'auth.permission');
  const groups = records.filter((r) => r.model === 'auth.group');
  const appOf = (ref: unknown) => (Array.isArray(ref) ? (ref[0] as string) : (cts.find((c) => c.pk === ref)!.fields.app_label as string));
  const permName = (ref: unknown): string | null => {
    if (Array.isArray(ref)) return `${ref[1]}.${ref[0]}`;
    const p = perms.find((x) => x.pk === ref);
    return p ? `${appOf(p.fields.content_type)}.${p.fields.codename as string}` : null;
  };
  const groupPerms = (ref: unknown) => {
    const g = groups.find((x) => (Array.isArray(ref) ? x.fields.name === ref[0] : x.pk === ref));
    return (g?.fields.permissions as unknown[] | undefined) ?? [];
  };
  const result = new Map<number, string[]>();
  for (const u of records.filter((r) => r.model === 'users.user')) {
    const f = u.fields;
    let held: string[];
    if (f.is_active === false) held = [];
    else if (f.is_superuser === true) held = [...ACTED_ON];
    else {
      const refs = [...(f.user_permissions as unknown[]), ...(f.groups as unknown[]).flatMap(groupPerms)];
      held = refs.map(permName).filter((n): n is string => n !== null && ACTED_ON.has(n));
    }
    result.set(u.pk, [...new Set(held)].sort());
  }
  return result;
}

async function rightsInDatabase(db: Db, ids: Iterable<number>): Promise<Map<number, string[]>> {
  const result = new Map<number, string[]>();
  for (const id of ids) result.set(id, [...(await rightsOf(db, id)).rights].sort());
  return result;
}

/** The auth records of an export, comparable whatever the style they came in. */
function authRecords(records: DumpRecord[]): DumpRecord[] {
  return records.filter((r) => ['contenttypes.contenttype', 'auth.permission', 'auth.group'].includes(r.model));
}

describe('members: import and export keep the rights', () => {
  const numbers = fixture('numbers');
  const expected = rightsFromRecords(numbers);

  it('the fixture gives the users the rights the test expects (a check of the test itself)', () => {
    assert.deepEqual(expected.get(1), ['events.add_event', 'events.delete_event', 'events.delete_meeting', 'projects.delete_project']);
    assert.deepEqual(expected.get(2), ['events.change_meeting', 'projects.add_project', 'projects.change_project']);
    assert.equal(expected.get(4)!.length, SPEC_RIGHTS.length + LEDGER_RIGHTS.length);
    assert.deepEqual(expected.get(5), []);
    assert.deepEqual(expected.get(6), []);
    for (const style of ['natural-foreign', 'natural-primary'] as const) assert.deepEqual(rightsFromRecords(fixture(style)), expected, style);
  });

  for (const style of ['numbers', 'natural-foreign', 'natural-primary'] as const) {
    it(`${style}: import gives every user their rights; export writes them back by number; importing that again gives the same`, async () => {
      const first = await freshDatabase();
      const second = await freshDatabase();
      try {
        const records = fixture(style);
        const report = await first.handle.db.transaction().execute((trx) => importRecords(trx, records));
        assert.equal(report.imported['contenttypes.contenttype'], 10);
        assert.equal(report.imported['auth.permission'], 40);
        assert.equal(report.imported['auth.group'], 3);
        assert.deepEqual(await rightsInDatabase(first.handle.db, expected.keys()), expected);

        const exported = JSON.parse(await exportText(first.handle.db)) as DumpRecord[];
        // By number, with the original's pks, every group and permission kept (used or not).
        assert.deepEqual(authRecords(exported), authRecords(numbers));
        assert.deepEqual(
          exported.filter((r) => r.model === 'users.user').map((r) => [r.pk, r.fields.groups, r.fields.user_permissions]),
          numbers.filter((r) => r.model === 'users.user').map((r) => [r.pk, r.fields.groups, r.fields.user_permissions]),
        );
        assert.deepEqual(rightsFromRecords(exported), expected);

        await second.handle.db.transaction().execute((trx) => importRecords(trx, exported));
        assert.deepEqual(await rightsInDatabase(second.handle.db, expected.keys()), expected);
        assert.equal(await exportText(second.handle.db), await exportText(first.handle.db));
      } finally {
        await first.cleanup();
        await second.cleanup();
      }
    });
  }

  it('importing into an installation that granted rights before: its own members keep theirs, the file’s pks win', async () => {
    const fresh = await freshDatabase();
    try {
      const db = fresh.handle.db;
      // A new installation: a member of its own (pk 50), granted rights before any import.
      await db.transaction().execute((trx) => importRecords(trx, [user(50, 'local')]));
      await grantRights(db, 50, ['events.add_meeting', 'projects.delete_project']);
      await db.insertInto('auth_groups').values({ id: 1, name: 'local group' }).execute();
      await db.insertInto('user_groups').values({ user_id: 50, group_id: 1 }).execute();
      await db.transaction().execute((trx) => importRecords(trx, numbers));
      assert.deepEqual(await rightsInDatabase(db, expected.keys()), expected);
      assert.deepEqual([...(await rightsOf(db, 50)).rights].sort(), ['events.add_meeting', 'projects.delete_project']);
      const exported = JSON.parse(await exportText(db)) as DumpRecord[];
      // The file's records as they were; the installation's own group moved to a new pk, its member with it.
      assert.deepEqual(
        authRecords(exported).filter((r) => numbers.some((n) => n.model === r.model && n.pk === r.pk)),
        authRecords(numbers),
      );
      const local = exported.find((r) => r.model === 'auth.group' && r.fields.name === 'local group')!;
      assert.ok(local.pk > 3);
      assert.deepEqual(exported.find((r) => r.model === 'users.user' && r.pk === 50)!.fields.groups, [local.pk]);
      assert.deepEqual(rightsFromRecords(exported).get(50), ['events.add_meeting', 'projects.delete_project']);
      // Importing the same file again moves nothing.
      await db.transaction().execute((trx) => importRecords(trx, numbers));
      assert.deepEqual(JSON.parse(await exportText(db)), exported);
    } finally {
      await fresh.cleanup();
    }
  });

  it('a natural key naming nothing, or of the wrong shape, is an error that names the record; nothing is written', async () => {
    const fresh = await freshDatabase();
    try {
      const db = fresh.handle.db;
      const bad = (fields: Record<string, unknown>) => {
        const record = user(9, 'nobody');
        Object.assign(record.fields, fields);
        return db.transaction().execute((trx) => importRecords(trx, [...fixture('natural-foreign'), record]));
      };
      await assert.rejects(bad({ groups: [['no such group']] }), (e: unknown) => e instanceof ImportError && /users\.user pk 9/.test(e.message) && /auth\.group/.test(e.message));
      await assert.rejects(bad({ user_permissions: [['add_event', 'events', 'nothing']] }), (e: unknown) => e instanceof ImportError && /auth\.permission/.test(e.message));
      await assert.rejects(bad({ user_permissions: [['add_event']] }), ImportError);
      await assert.rejects(
        db.transaction().execute((trx) => importRecords(trx, [{ model: 'auth.permission', fields: { name: 'x', content_type: ['no', 'such'], codename: 'x' } }])),
        (e: unknown) => e instanceof ImportError && /contenttypes\.contenttype/.test(e.message),
      );
      assert.equal((await db.selectFrom('users').select('id').execute()).length, 0);
      assert.equal((await db.selectFrom('auth_permissions').select('id').execute()).length, 0);
    } finally {
      await fresh.cleanup();
    }
  });
});

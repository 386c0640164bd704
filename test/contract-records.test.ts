/**
 * Contract tests over real HTTP and a real SQLite database: records (fields, avatars, e-mail
 * privacy, hyperlinks, pictures, crawl, verbatim text), ordering, times and detail routes.
 * Expected values are computed from the fixtures, not from src/. Each section starts its own servers.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  byCodePoint,
  closeServers,
  COLLECTION_PATHS,
  event,
  expectedAvatar,
  fixtureMicros,
  getOk,
  hyperlinksOf,
  meeting,
  opening,
  pathOf,
  project,
  sample,
  sampleOf,
  startServers,
  user,
  walkPages,
  wireUtc,
  type DumpRecord,
} from './support/contract.js';
import { request, assertJson } from './support/http.js';
import { startServer, type TestServer } from './support/server.js';

describe('records', () => {
  /*
   * Contract: "Records" — field order, avatars, e-mail privacy, hyperlinks and their format,
   * pictures, event → meeting links, the crawl of every hyperlink, related users' order and
   * verbatim text. Expected records are computed from the sample fixture, not from src/.
   */
  let servers: Record<'server' | 'sha' | 'gravatar', TestServer> | undefined;
  let server: TestServer;
  let sha: TestServer;
  let gravatar: TestServer;

  const USERS = sampleOf('users.user');
  const USER_BY_PK = new Map(USERS.map((u) => [u.pk, u.fields]));
  const PROJECTS = sampleOf('projects.project');
  const MEETINGS = sampleOf('events.meeting');
  const EVENTS = sampleOf('events.event');
  const MEETING_OF_EVENT = new Map(MEETINGS.map((m) => [m.fields.event as number, m.pk]));

  const FIELDS = {
    users: ['username', 'avatar', 'has_key'],
    'space/openings': ['time', 'is_open'],
    projects: ['id', 'title', 'maintainer', 'participants', 'status', 'progress', 'short_description', 'content'],
    meetings: ['id', 'event', 'OJ', 'PV', 'members', 'pad'],
    events: ['id', 'place', 'start', 'stop', 'title', 'status', 'description', 'organizer', 'meeting', 'picture'],
  } as const;

  /** The stored picture paths of the fixture and their URL paths, written out by hand. */
  const PICTURES: Record<string, string> = {
    'event_pictures/affiche été 2019.png': 'event_pictures/affiche%20%C3%A9t%C3%A9%202019.png',
    'event_pictures/poster.jpg': 'event_pictures/poster.jpg',
  };

  type Mode = { via: 'none' } | { via: 'query' | 'suffix'; format: 'json' | 'api' };
  const NONE: Mode = { via: 'none' };

  function link(base: string, mode: Mode, collection: string, id: number): string {
    if (mode.via === 'suffix') return `${base}/api/${collection}/${id}.${mode.format}`;
    return `${base}/api/${collection}/${id}/` + (mode.via === 'query' ? `?format=${mode.format}` : '');
  }

  function byUsername(ids: number[]): number[] {
    return [...ids].sort((a, b) => byCodePoint(USER_BY_PK.get(a)!.username, USER_BY_PK.get(b)!.username));
  }

  const wireTime = (iso: string | null) => (iso === null ? null : wireUtc(iso));

  function expectedProject(p: DumpRecord, base: string, mode: Mode = NONE) {
    const f = p.fields;
    return {
      id: p.pk,
      title: f.title,
      maintainer: link(base, mode, 'users', f.maintainer),
      participants: byUsername(f.participants).map((id) => link(base, mode, 'users', id)),
      status: f.status,
      progress: f.progress,
      short_description: f.short_description,
      content: f.content,
    };
  }

  function expectedMeeting(m: DumpRecord, base: string, mode: Mode = NONE) {
    const f = m.fields;
    return {
      id: m.pk,
      event: link(base, mode, 'events', f.event),
      OJ: f.OJ,
      PV: f.PV,
      members: byUsername(f.members).map((id) => link(base, mode, 'users', id)),
      pad: f.pad,
    };
  }

  function expectedEvent(e: DumpRecord, base: string, mode: Mode = NONE) {
    const f = e.fields;
    const meetingId = MEETING_OF_EVENT.get(e.pk);
    if (f.picture && !(f.picture in PICTURES)) throw new Error(`no expected URL for picture ${f.picture}`);
    return {
      id: e.pk,
      place: f.place,
      start: wireTime(f.start),
      stop: wireTime(f.stop),
      title: f.title,
      status: f.status,
      description: f.description,
      organizer: link(base, mode, 'users', f.organizer),
      meeting: meetingId === undefined ? null : link(base, mode, 'meetings', meetingId),
      picture: f.picture ? `${base}/media/${PICTURES[f.picture]}` : null,
    };
  }

  before(async () => {
    const users = sampleOf('users.user');
    servers = await startServers({
      server: { records: sample(), env: { TIME_ZONE: 'UTC' } },
      sha: { records: users, env: { AVATAR_HASH: 'sha256', AVATAR_DEFAULT: 'identicon' } },
      gravatar: { records: sample(), env: { AVATAR_FIELD: 'gravatar', PAGE_SIZE: '7' } },
    });
    ({ server, sha, gravatar } = servers);
  });

  after(async () => {
    await closeServers(servers);
  });

  async function all(target: TestServer, path: string): Promise<any[]> {
    const body = await getOk(target.base, path);
    assert.equal(body.next, null, `${path} fits on one page`);
    return body.results;
  }

  describe('field order', () => {
    for (const collection of COLLECTION_PATHS) {
      it(`${collection}: list and detail records have the contract's fields in order`, async () => {
        const records = await all(server, `/api/${collection}/?page_size=1000`);
        assert.ok(records.length > 0);
        for (const record of records) assert.deepEqual(Object.keys(record), FIELDS[collection]);
        const detail = await getOk(server.base, `/api/${collection}/1/`);
        assert.deepEqual(Object.keys(detail), FIELDS[collection]);
      });
    }
  });

  describe('users', () => {
    it('every user: username verbatim, avatar (MD5 of toLowerCase() e-mail, d=wavatar), has_key', async () => {
      const records = await all(server, '/api/users/?page_size=1000');
      assert.equal(records.length, USERS.length);
      const byName = new Map(records.map((r) => [r.username, r]));
      for (const u of USERS) {
        assert.deepEqual(
          byName.get(u.fields.username),
          {
            username: u.fields.username,
            avatar: expectedAvatar(u.fields.email),
            has_key: u.fields.has_key,
          },
          `user ${u.pk}`,
        );
      }
    });

    // e-mails whose Unicode lower case differs from an ASCII-only lower(); with the MD5 of that
    // ASCII-only lower case (`printf %s '<e-mail>' | LC_ALL=C tr A-Z a-z | md5sum`), which the
    // avatar must not be (null where both lower cases agree)
    const unicodeEmails: [pk: number, lowered: string, asciiLowerMd5: string | null][] = [
      [9, 'zoë@exämple.be', 'd217e54bea5a42cb1b21076be4a7f735'], // of 'zoË@exÄmple.be'
      [10, 'élodie@example.fr', '66ac111aca8fb6a3369779e8ea89dc2d'], // of 'Élodie@example.fr'
      [16, 'i̇stanbul@example.com.tr', '38a0a7ee4010878ace2192f4169d3cb7'], // of 'İstanbul@example.com.tr'
      [17, 'οδυσσευς@example.gr', 'cd3b4cf1e31df6d553517bfe2226faf1'], // of 'ΟΔΥΣΣΕΥΣ@example.gr'
      [14, 'дмитрий@пример.рф', '482a42d3e48758b04daf9e5447508893'], // of 'Дмитрий@пример.рф'
      [20, 'ant+🐜@example.org', null],
    ];
    for (const [pk, lowered, asciiLowerMd5] of unicodeEmails) {
      it(`avatar of user ${pk} hashes ${JSON.stringify(lowered)} (full Unicode lower case)`, async () => {
        const email = USER_BY_PK.get(pk)!.email as string;
        assert.equal(email.toLowerCase(), lowered);
        const record = await getOk(server.base, `/api/users/${pk}/`);
        assert.equal(record.avatar, expectedAvatar(email));
        if (asciiLowerMd5 !== null) assert.notEqual(record.avatar, `//www.gravatar.com/avatar/${asciiLowerMd5}?d=wavatar`);
      });
    }

    it('the avatar URL is protocol-relative with a 32-digit hex MD5', async () => {
      for (const record of await all(server, '/api/users/?page_size=1000')) {
        assert.match(record.avatar, /^\/\/www\.gravatar\.com\/avatar\/[0-9a-f]{32}\?d=wavatar$/);
        assert.equal(typeof record.has_key, 'boolean');
      }
    });

    it('AVATAR_HASH=sha256 and AVATAR_DEFAULT=identicon', async () => {
      const records = await all(sha, '/api/users/?page_size=1000');
      const byName = new Map(records.map((r) => [r.username, r]));
      for (const u of USERS) {
        assert.equal(byName.get(u.fields.username).avatar, expectedAvatar(u.fields.email, 'sha256', 'identicon'), `user ${u.pk}`);
      }
      assert.equal((await getOk(sha.base, '/api/users/10/')).avatar, expectedAvatar('ÉLODIE@EXAMPLE.FR', 'sha256', 'identicon'));
    });

    it('AVATAR_FIELD=gravatar renames the field (list and detail)', async () => {
      const { records } = await walkPages(gravatar.base, '/api/users/');
      assert.equal(records.length, USERS.length);
      const byName = new Map(records.map((r) => [r.username, r]));
      for (const u of USERS) {
        const record = byName.get(u.fields.username);
        assert.deepEqual(Object.keys(record), ['username', 'gravatar', 'has_key']);
        assert.equal(record.gravatar, expectedAvatar(u.fields.email));
      }
      const detail = await getOk(gravatar.base, '/api/users/4/');
      assert.deepEqual(detail, { username: 'Alice', gravatar: expectedAvatar('Alice@Example.COM'), has_key: false });
    });

    it('user records carry no id, but /api/users/<id>/ returns the user', async () => {
      for (const u of USERS) {
        const record = await getOk(server.base, `/api/users/${u.pk}/`);
        assert.equal(record.username, u.fields.username);
        assert.equal('id' in record, false);
      }
    });
  });

  describe('e-mail addresses never appear in a response', () => {
    const usernames = USERS.map((u) => u.fields.username as string);
    // jane.doe@example.org is also a username: that text is the username, legitimately published.
    const secrets = USERS.flatMap((u) => [u.fields.email as string, (u.fields.email as string).toLowerCase()]).filter(
      (email) => !usernames.some((name) => name.toLowerCase().includes(email.toLowerCase())),
    );

    async function bodiesOf(target: TestServer, suffix = ''): Promise<string[]> {
      const bodies: string[] = [];
      const get = async (path: string) => {
        const res = await request(target.base, path);
        assert.equal(res.status, 200, path);
        bodies.push(res.body);
        return res.json();
      };
      await get(`/api/${suffix}`);
      for (const collection of COLLECTION_PATHS) {
        let next: string | null = `/api/${collection}/${suffix}`;
        while (next) {
          const body: any = await get(next);
          next = body.next === null ? null : pathOf(body.next);
        }
      }
      for (const u of USERS) await get(`/api/users/${u.pk}/${suffix}`);
      for (const p of PROJECTS) await get(`/api/projects/${p.pk}/${suffix}`);
      for (const m of MEETINGS) await get(`/api/meetings/${m.pk}/${suffix}`);
      for (const e of EVENTS) await get(`/api/events/${e.pk}/${suffix}`);
      for (let pk = 1; pk <= 300; pk += 30) await get(`/api/space/openings/${pk}/${suffix}`);
      return bodies;
    }

    it('there are e-mails to look for', () => assert.ok(secrets.length >= 50));

    for (const [name, suffix] of [
      ['plain', ''],
      ['format=api', '?format=api'],
    ] as const) {
      it(`all pages of all collections, and details (${name})`, async () => {
        const bodies = await bodiesOf(server, suffix);
        assert.ok(bodies.length > 80, `only ${bodies.length} bodies`);
        for (const body of bodies) {
          for (const secret of secrets) assert.equal(body.includes(secret), false, `${secret} in ${body.slice(0, 100)}`);
          assert.equal(body.includes('"email"'), false);
        }
      });
    }

    it('nor with AVATAR_FIELD=gravatar', async () => {
      for (const body of await bodiesOf(gravatar)) {
        for (const secret of secrets) assert.equal(body.includes(secret), false, secret);
      }
    });
  });

  describe('projects, meetings, events: whole records equal the fixture', () => {
    it('projects (ascending id, links, participants by username, text verbatim)', async () => {
      const records = await all(server, '/api/projects/?page_size=1000');
      assert.deepEqual(
        records,
        PROJECTS.map((p) => expectedProject(p, server.base)),
      );
    });

    it('meetings (event link, members by username, text verbatim)', async () => {
      const records = await all(server, '/api/meetings/?page_size=1000');
      assert.deepEqual(
        records,
        MEETINGS.map((m) => expectedMeeting(m, server.base)),
      );
    });

    it('events (times, organizer, meeting link or null, picture URL or null)', async () => {
      const records = await all(server, '/api/events/?page_size=1000');
      const byId = new Map(records.map((r) => [r.id, r]));
      assert.equal(records.length, EVENTS.length);
      for (const e of EVENTS) assert.deepEqual(byId.get(e.pk), expectedEvent(e, server.base), `event ${e.pk}`);
    });
  });

  describe('related users are ordered by username code points', () => {
    it('project 1 participants (the maintainer is also a participant)', async () => {
      const record = await getOk(server.base, '/api/projects/1/');
      assert.deepEqual(
        record.participants,
        [24, 4, 27, 5, 26, 8, 10, 18, 19].map((id) => `${server.base}/api/users/${id}/`),
      );
      assert.equal(record.maintainer, `${server.base}/api/users/18/`);
    });

    it('meeting 1 members: ｚｅｄ (U+FF5A) before 🐜ant (U+1F41C)', async () => {
      const record = await getOk(server.base, '/api/meetings/1/');
      assert.deepEqual(
        record.members,
        [4, 23, 11, 30, 17, 18, 19, 20].map((id) => `${server.base}/api/users/${id}/`),
      );
    });

    it('every project and meeting', async () => {
      for (const p of PROJECTS) {
        const record = await getOk(server.base, `/api/projects/${p.pk}/`);
        assert.deepEqual(record.participants, expectedProject(p, server.base).participants, `project ${p.pk}`);
      }
      for (const m of MEETINGS) {
        const record = await getOk(server.base, `/api/meetings/${m.pk}/`);
        assert.deepEqual(record.members, expectedMeeting(m, server.base).members, `meeting ${m.pk}`);
      }
    });
  });

  describe('event pictures and meetings', () => {
    const affiche = 'event_pictures/affiche%20%C3%A9t%C3%A9%202019.png';
    const pictures: [id: number, path: string | null][] = [
      [11, affiche],
      [16, affiche],
      [6, 'event_pictures/poster.jpg'],
      [17, 'event_pictures/poster.jpg'],
      [1, null], // stored ''
      [2, null], // stored null
      [13, null],
    ];
    for (const [id, path] of pictures) {
      it(`event ${id}: picture ${path ?? 'null'}`, async () => {
        const record = await getOk(server.base, `/api/events/${id}/`);
        assert.equal(record.picture, path === null ? null : `${server.base}/media/${path}`);
      });
    }

    it('picture URLs never carry a format', async () => {
      for (const path of ['/api/events/11/?format=api', '/api/events/11/?format=json', '/api/events/11.json', '/api/events/11.api']) {
        assert.equal((await getOk(server.base, path)).picture, `${server.base}/media/${affiche}`, path);
      }
    });

    const meetings: [event: number, meeting: number | null][] = [
      [14, 1],
      [7, 12],
      [19, 10],
      [2, null],
      [3, null],
    ];
    for (const [eventId, meetingId] of meetings) {
      it(`event ${eventId}: meeting ${meetingId ?? 'null'}`, async () => {
        const record = await getOk(server.base, `/api/events/${eventId}/`);
        assert.equal(record.meeting, meetingId === null ? null : `${server.base}/api/meetings/${meetingId}/`);
      });
    }
  });

  describe('hyperlinks carry the request format', () => {
    const modes: [label: string, query: string, listPath: (c: string) => string, detailPath: (c: string, id: number) => string, mode: Mode][] = [
      ['none', '', (c) => `/api/${c}/`, (c, id) => `/api/${c}/${id}/`, NONE],
      ['?format=api', '?format=api', (c) => `/api/${c}/?format=api`, (c, id) => `/api/${c}/${id}/?format=api`, { via: 'query', format: 'api' }],
      ['?format=json', '?format=json', (c) => `/api/${c}/?format=json`, (c, id) => `/api/${c}/${id}/?format=json`, { via: 'query', format: 'json' }],
      ['.json suffix', '', (c) => `/api/${c}.json`, (c, id) => `/api/${c}/${id}.json`, { via: 'suffix', format: 'json' }],
      ['.api suffix', '', (c) => `/api/${c}.api`, (c, id) => `/api/${c}/${id}.api`, { via: 'suffix', format: 'api' }],
    ];

    for (const [label, , listPath, detailPath, mode] of modes) {
      it(`${label}: every hyperlink of projects, meetings and events, list and detail`, async () => {
        const base = server.base;
        const shape = mode.via === 'none' ? /^[^?]*\/\d+\/$/ : mode.via === 'query' ? new RegExp(`/\\d+/\\?format=${mode.format}$`) : new RegExp(`/\\d+\\.${mode.format}$`);
        for (const collection of ['projects', 'meetings', 'events']) {
          const records = (await getOk(base, listPath(collection))).results;
          assert.ok(records.length > 0);
          for (const record of records) {
            for (const url of hyperlinksOf(collection, record)) assert.match(url, shape, `${collection} ${record.id}: ${url}`);
          }
        }
        const p1 = await getOk(base, detailPath('projects', 1));
        assert.deepEqual(
          { maintainer: p1.maintainer, participants: p1.participants },
          { maintainer: link(base, mode, 'users', 18), participants: expectedProject(PROJECTS[0], base, mode).participants },
        );
        const m1 = await getOk(base, detailPath('meetings', 1));
        assert.equal(m1.event, link(base, mode, 'events', 14));
        const e14 = await getOk(base, detailPath('events', 14));
        assert.equal(e14.meeting, link(base, mode, 'meetings', 1));
        assert.equal(e14.organizer, link(base, mode, 'users', 28));
      });
    }

    const roots: [path: string, entry: (c: string) => string][] = [
      ['/api/', (c) => `/api/${c}/`],
      ['/api/?format=api', (c) => `/api/${c}/?format=api`],
      ['/api/?format=json', (c) => `/api/${c}/?format=json`],
      ['/api/.json', (c) => `/api/${c}.json`],
      ['/api/.api', (c) => `/api/${c}.api`],
    ];
    for (const [path, entry] of roots) {
      it(`root ${path}: entries in the request's format`, async () => {
        const res = await request(server.base, path);
        assert.equal(res.status, 200);
        const body = res.json();
        assert.deepEqual(Object.keys(body), ['events', 'meetings', 'users', 'projects', 'stock/categories', 'stock/products', 'streams/urtip', 'space/openings']);
        for (const collection of COLLECTION_PATHS) assert.equal(body[collection], `${server.base}${entry(collection)}`);
      });
    }
  });

  describe('crawl: every hyperlink in every record resolves with GET to 200', () => {
    const starts: [label: string, root: string, list: (c: string) => string][] = [
      ['plain', '/api/', (c) => `/api/${c}/`],
      ['format=api', '/api/?format=api', (c) => `/api/${c}/?format=api`],
      ['.json suffix', '/api/.json', (c) => `/api/${c}.json`],
    ];
    for (const [label, rootPath, list] of starts) {
      it(label, async () => {
        const root = await getOk(server.base, rootPath);
        const urls = new Set(Object.values<string>(root));
        for (const collection of COLLECTION_PATHS) {
          const { records } = await walkPages(server.base, list(collection));
          for (const record of records) for (const url of hyperlinksOf(collection, record)) urls.add(url);
        }
        assert.ok(urls.size > 40, `only ${urls.size} hyperlinks found`);
        for (const url of urls) {
          assert.ok(url.startsWith(server.base + '/api/'), url);
          const body = await getOk(server.base, pathOf(url));
          if (/\/api\/users\/\d+[./]/.test(url)) assert.equal(typeof body.username, 'string', url);
          if (/\/api\/(events|meetings)\/\d+[./]/.test(url)) assert.equal(typeof body.id, 'number', url);
        }
      });
    }
  });

  describe('text fields are returned verbatim', () => {
    it('CRLF kept in project content; U+2028/U+2029 kept', async () => {
      const p2 = PROJECTS.find((p) => p.pk === 2)!;
      const record = await getOk(server.base, '/api/projects/2/');
      assert.ok((p2.fields.content as string).includes('\r\n'));
      assert.equal(record.content, p2.fields.content);
      assert.ok(/[\u2028\u2029]/.test(p2.fields.short_description));
      assert.equal(record.short_description, p2.fields.short_description);
    });

    it('leading and trailing spaces kept', async () => {
      assert.equal((await getOk(server.base, '/api/users/1/')).username, ' leadingspace');
    });

    it('meeting agenda beginning with a line break; long minutes', async () => {
      const m6 = MEETINGS.find((m) => m.pk === 6)!;
      const record = await getOk(server.base, '/api/meetings/6/');
      assert.ok((m6.fields.OJ as string).startsWith('\r\n'));
      assert.equal(record.OJ, m6.fields.OJ);
      assert.equal(record.PV, m6.fields.PV);
    });

    it('every text field of every project, meeting and event', async () => {
      for (const p of PROJECTS) {
        const r = await getOk(server.base, `/api/projects/${p.pk}/`);
        for (const f of ['title', 'short_description', 'content']) assert.equal(r[f], p.fields[f], `project ${p.pk} ${f}`);
      }
      for (const m of MEETINGS) {
        const r = await getOk(server.base, `/api/meetings/${m.pk}/`);
        for (const f of ['OJ', 'PV', 'pad']) assert.equal(r[f], m.fields[f], `meeting ${m.pk} ${f}`);
      }
      for (const e of EVENTS) {
        const r = await getOk(server.base, `/api/events/${e.pk}/`);
        for (const f of ['title', 'place', 'description', 'status']) assert.equal(r[f], e.fields[f], `event ${e.pk} ${f}`);
      }
    });
  });
});

describe('ordering', () => {
  /*
   * Contract: ordering of each collection — users by username code points, openings newest first,
   * projects and meetings by ascending id, events by start, stop, id (nulls first) with
   * `ordering=`; other collections ignore `ordering`.
   */
  let servers: Record<'server' | 'custom', TestServer> | undefined;
  let server: TestServer;
  let custom: TestServer;

  /** Users whose names separate code-point order from UTF-16 order and from locale orders. */
  const TRICKY_NAMES = [
    '🐜',
    '\uE000private',
    '\uFFFDreplacement',
    '😀smile',
    'ａfullwidth',
    'a',
    'B',
    ' space',
    '0zero',
    'Z',
    'é',
    'e\u0301',
    'ｚｅｄ',
    '𝒜script',
    'ﬁ',
    '\u00A0nbsp',
    'Ω',
    '~tilde',
    'aa',
    'a a',
  ];

  /** Events whose times tie, to pin the secondary keys; pks inserted out of order. */
  const T = (h: number) => `2021-05-0${1 + Math.floor(h / 24)}T${String(h % 24).padStart(2, '0')}:00:00Z`;
  const CUSTOM_EVENTS: DumpRecord[] = [
    event(9, T(10), T(12)),
    event(3, T(10), T(11)),
    event(7, T(10), null),
    event(5, null, T(5)),
    event(2, null, null),
    event(8, T(1), T(30)),
    event(4, T(10), T(11)),
    event(6, null, T(1)),
    event(1, T(40), null),
  ];

  before(async () => {
    const customRecords: DumpRecord[] = [
      ...TRICKY_NAMES.map((name, i) => user(TRICKY_NAMES.length - i, name)),
      ...CUSTOM_EVENTS,
      // projects and meetings inserted in descending pk order
      project(12, 1),
      project(5, 2),
      project(9, 1),
      project(1, 3),
      project(30, 2),
      meeting(20, 9),
      meeting(4, 3),
      meeting(11, 2),
      meeting(2, 1),
      opening(3, '2020-01-01T00:00:00Z'),
      opening(1, '2020-01-03T00:00:00Z'),
      opening(2, '2020-01-02T00:00:00Z'),
    ];
    servers = await startServers({
      server: { records: sample(), env: { TIME_ZONE: 'UTC', PAGE_SIZE: '7' } },
      custom: { records: customRecords, env: { TIME_ZONE: 'UTC', PAGE_SIZE: '4' } },
    });
    ({ server, custom } = servers);
  });

  after(async () => {
    await closeServers(servers);
  });

  describe('users: username in code-point order', () => {
    it('the sample, across pages', async () => {
      const { records } = await walkPages(server.base, '/api/users/');
      const expected = sampleOf('users.user')
        .map((u) => u.fields.username as string)
        .sort(byCodePoint);
      assert.deepEqual(
        records.map((u) => u.username),
        expected,
      );
    });

    it("'🐜ant' comes after 'ｚｅｄ' and 'ﬁnn_ligature' (UTF-16 order would differ)", async () => {
      const names = (await walkPages(server.base, '/api/users/')).records.map((u) => u.username);
      assert.ok(names.indexOf('🐜ant') > names.indexOf('ｚｅｄ'));
      assert.ok(names.indexOf('🐜ant') > names.indexOf('ﬁnn_ligature'));
      assert.equal(names.at(-1), '🐜ant');
      assert.equal(names[0], ' leadingspace');
    });

    it('tricky names (astral, private use, U+FFFD, fullwidth, combining marks)', async () => {
      const names = (await walkPages(custom.base, '/api/users/')).records.map((u) => u.username);
      assert.deepEqual(names, [...TRICKY_NAMES].sort(byCodePoint));
      assert.ok(names.indexOf('\uE000private') < names.indexOf('🐜'));
      assert.ok(names.indexOf('\uFFFDreplacement') < names.indexOf('𝒜script'));
      assert.ok(names.indexOf('𝒜script') < names.indexOf('🐜'));
      assert.ok(names.indexOf('🐜') < names.indexOf('😀smile'));
    });

    it('ignores ordering=', async () => {
      const plain = (await walkPages(server.base, '/api/users/')).records;
      for (const ordering of ['-username', 'username', 'id', '-id', 'has_key']) {
        assert.deepEqual((await walkPages(server.base, `/api/users/?ordering=${ordering}`)).records, plain, ordering);
      }
    });
  });

  describe('openings: newest first', () => {
    it('the sample (300 openings, with fractions and DST-boundary times), across pages', async () => {
      const { records } = await walkPages(server.base, '/api/space/openings/?page_size=50');
      const expected = sampleOf('space.spacestatus')
        .sort((a, b) => Number(fixtureMicros(b.fields.time) - fixtureMicros(a.fields.time)) || b.pk - a.pk)
        .map((o) => ({ time: wireUtc(o.fields.time), is_open: o.fields.is_open }));
      assert.deepEqual(records, expected);
    });

    it('pk order is not time order', async () => {
      const { records } = await walkPages(custom.base, '/api/space/openings/');
      assert.deepEqual(
        records.map((r) => r.time),
        ['2020-01-03T00:00:00+00:00', '2020-01-02T00:00:00+00:00', '2020-01-01T00:00:00+00:00'],
      );
    });

    it('ignores ordering=', async () => {
      const plain = await getOk(server.base, '/api/space/openings/?page_size=20');
      for (const ordering of ['time', '-time', 'is_open']) {
        const body = await getOk(server.base, `/api/space/openings/?page_size=20&ordering=${ordering}`);
        assert.deepEqual(body.results, plain.results, ordering);
      }
    });
  });

  describe('projects and meetings: ascending id', () => {
    it('projects of the sample', async () => {
      const { records } = await walkPages(server.base, '/api/projects/');
      assert.deepEqual(
        records.map((p) => p.id),
        Array.from({ length: 15 }, (_, i) => i + 1),
      );
    });

    it('meetings of the sample', async () => {
      const { records } = await walkPages(server.base, '/api/meetings/');
      assert.deepEqual(
        records.map((m) => m.id),
        Array.from({ length: 12 }, (_, i) => i + 1),
      );
    });

    it('projects inserted in another order, across pages', async () => {
      const { records } = await walkPages(custom.base, '/api/projects/?page_size=2');
      assert.deepEqual(
        records.map((p) => p.id),
        [1, 5, 9, 12, 30],
      );
    });

    it('meetings inserted in another order, across pages', async () => {
      const { records } = await walkPages(custom.base, '/api/meetings/?page_size=3');
      assert.deepEqual(
        records.map((m) => m.id),
        [2, 4, 11, 20],
      );
    });

    it('ignore ordering=', async () => {
      for (const ordering of ['-id', 'title', '-start']) {
        assert.deepEqual(
          (await walkPages(custom.base, `/api/projects/?ordering=${ordering}`)).records.map((p) => p.id),
          [1, 5, 9, 12, 30],
        );
        assert.deepEqual(
          (await walkPages(custom.base, `/api/meetings/?ordering=${ordering}`)).records.map((m) => m.id),
          [2, 4, 11, 20],
        );
      }
    });
  });

  describe('events: start, stop, id; a null start or stop before any time', () => {
    /** null is below any time, as the contract's default order puts it first. */
    const cmpTime = (a: string | null, b: string | null) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : Number(fixtureMicros(a) - fixtureMicros(b)));

    function expectedDefault(records: DumpRecord[]): number[] {
      return [...records].sort((x, y) => cmpTime(x.fields.start, y.fields.start) || cmpTime(x.fields.stop, y.fields.stop) || x.pk - y.pk).map((e) => e.pk);
    }

    it('the sample (null starts first), across pages', async () => {
      const { records } = await walkPages(server.base, '/api/events/?page_size=3');
      const expected = expectedDefault(sampleOf('events.event'));
      assert.deepEqual(expected.slice(0, 3), [7, 17, 19]);
      assert.deepEqual(
        records.map((e) => e.id),
        expected,
      );
    });

    it('ties on start are broken by stop (null first), then id', async () => {
      const { records } = await walkPages(custom.base, '/api/events/');
      assert.deepEqual(
        records.map((e) => e.id),
        [2, 6, 5, 8, 7, 3, 4, 9, 1],
      );
      assert.deepEqual(
        records.map((e) => e.id),
        expectedDefault(CUSTOM_EVENTS),
      );
    });

    /**
     * `ordering=` terms: the records must be sorted by the named keys (null below any time, so
     * last when descending); ties beyond the named keys are not specified by the contract.
     */
    type Term = { field: 'start' | 'stop'; descending: boolean };
    function assertOrderedBy(records: any[], terms: Term[], what: string) {
      const wire = (text: string | null) => (text === null ? null : text.replace('+00:00', 'Z'));
      for (let i = 1; i < records.length; i++) {
        for (const { field, descending } of terms) {
          const c = cmpTime(wire(records[i - 1][field]), wire(records[i][field])) * (descending ? -1 : 1);
          if (c < 0) break;
          assert.ok(c === 0, `${what}: event ${records[i - 1].id} before ${records[i].id} breaks ${descending ? '-' : ''}${field}`);
        }
      }
    }

    const orderings: [query: string, terms: Term[]][] = [
      ['-start', [{ field: 'start', descending: true }]],
      ['start', [{ field: 'start', descending: false }]],
      ['stop', [{ field: 'stop', descending: false }]],
      ['-stop', [{ field: 'stop', descending: true }]],
      [
        'start,-stop',
        [
          { field: 'start', descending: false },
          { field: 'stop', descending: true },
        ],
      ],
      [
        '-stop,start',
        [
          { field: 'stop', descending: true },
          { field: 'start', descending: false },
        ],
      ],
      [
        '-start,-stop',
        [
          { field: 'start', descending: true },
          { field: 'stop', descending: true },
        ],
      ],
      ['title,-start', [{ field: 'start', descending: true }]],
      ['-start,nope', [{ field: 'start', descending: true }]],
    ];
    for (const [query, terms] of orderings) {
      it(`ordering=${query} (sample and tie-heavy fixture, across pages)`, async () => {
        for (const target of [server, custom]) {
          const { records, pages } = await walkPages(target.base, `/api/events/?ordering=${query}&page_size=2`);
          const total = target === server ? 20 : 9;
          assert.equal(records.length, total);
          assert.equal(new Set(records.map((e) => e.id)).size, total);
          for (const page of pages.slice(1)) assert.ok(page.previous.includes(`ordering=`), 'ordering carried into links');
          assertOrderedBy(records, terms, `ordering=${query}`);
        }
      });
    }

    it('ordering=-start puts the latest start first and the null starts last', async () => {
      const { records } = await walkPages(custom.base, '/api/events/?ordering=-start');
      assert.equal(records[0].id, 1);
      assert.deepEqual(
        records
          .slice(-3)
          .map((e) => e.id)
          .sort(),
        [2, 5, 6],
      );
    });

    it('ordering=start,-stop on ties: later stop first within one start', async () => {
      const { records } = await walkPages(custom.base, '/api/events/?ordering=start,-stop');
      const ids = records.map((e) => e.id);
      // start T(10): stops T(12) (9), T(11) (3 and 4), null (7)
      const group = ids.filter((id) => [9, 3, 4, 7].includes(id));
      assert.equal(group[0], 9);
      assert.equal(group[3], 7);
    });

    const ignored = ['', 'title', 'id', '-id', 'nope,-nope', 'START', ',', '--start'];
    for (const query of ignored) {
      it(`ordering=${JSON.stringify(query)} has no valid field → default order`, async () => {
        const { records } = await walkPages(custom.base, `/api/events/?ordering=${query}`);
        assert.deepEqual(
          records.map((e) => e.id),
          expectedDefault(CUSTOM_EVENTS),
        );
      });
    }
  });
});

describe('times', () => {
  /*
   * Contract: times — ISO 8601 in the configured IANA zone (DST-aware) with a numeric offset,
   * never `Z`; fractional seconds only when not zero, as 6 digits. Small fixtures of our own.
   */
  /** [fixture instant (UTC), wire form in Europe/Brussels] */
  const BRUSSELS: [string, string][] = [
    ['2021-03-28T00:59:59Z', '2021-03-28T01:59:59+01:00'],
    ['2021-03-28T01:00:00Z', '2021-03-28T03:00:00+02:00'],
    ['2021-03-28T00:59:59.500000Z', '2021-03-28T01:59:59.500000+01:00'],
    ['2021-03-28T00:59:59.999999Z', '2021-03-28T01:59:59.999999+01:00'],
    ['2021-03-28T01:00:00.000001Z', '2021-03-28T03:00:00.000001+02:00'],
    ['2021-10-31T00:59:59Z', '2021-10-31T02:59:59+02:00'],
    ['2021-10-31T01:00:00Z', '2021-10-31T02:00:00+01:00'],
    ['2021-10-31T00:30:00Z', '2021-10-31T02:30:00+02:00'],
    ['2021-10-31T01:30:00Z', '2021-10-31T02:30:00+01:00'],
    ['2021-06-01T12:00:00.000001Z', '2021-06-01T14:00:00.000001+02:00'],
    ['2021-01-15T23:30:00.123456Z', '2021-01-16T00:30:00.123456+01:00'],
    ['2021-06-01T12:00:00.000000Z', '2021-06-01T14:00:00+02:00'],
    ['2021-06-01T12:00:00.100Z', '2021-06-01T14:00:00.100000+02:00'],
    ['2021-06-01T12:00:00.5Z', '2021-06-01T14:00:00.500000+02:00'],
    ['2000-02-29T23:00:00Z', '2000-03-01T00:00:00+01:00'],
    ['2020-12-31T23:00:00Z', '2021-01-01T00:00:00+01:00'],
    ['1969-12-31T23:59:59.500000Z', '1970-01-01T00:59:59.500000+01:00'],
  ];

  const OTHER_ZONES: [zone: string, instant: string, wire: string][] = [
    ['UTC', '2021-03-28T01:00:00Z', '2021-03-28T01:00:00+00:00'],
    ['UTC', '2021-03-28T01:00:00.250Z', '2021-03-28T01:00:00.250000+00:00'],
    ['Asia/Kolkata', '2021-07-01T12:00:00Z', '2021-07-01T17:30:00+05:30'],
    ['America/St_Johns', '2021-07-01T12:00:00Z', '2021-07-01T09:30:00-02:30'],
    ['America/St_Johns', '2021-01-01T12:00:00.000500Z', '2021-01-01T08:30:00.000500-03:30'],
    ['America/New_York', '2021-03-14T06:59:59Z', '2021-03-14T01:59:59-05:00'],
    ['America/New_York', '2021-03-14T07:00:00Z', '2021-03-14T03:00:00-04:00'],
  ];

  let servers: Record<string, TestServer>;

  function openings(instants: string[]): DumpRecord[] {
    return instants.map((time, i) => opening(i + 1, time, i % 2 === 0));
  }

  before(async () => {
    const brussels: DumpRecord[] = [
      user(1, 'organizer'),
      ...openings(BRUSSELS.map(([instant]) => instant)),
      event(1, '2021-03-28T00:30:00Z', '2021-03-28T01:30:00Z'),
      event(2, '2021-10-31T00:30:00.250Z', '2021-10-31T01:30:00Z'),
      event(3, null, null),
      event(4, '2021-07-01T18:00:00Z', null),
    ];
    const zones = [...new Set(OTHER_ZONES.map(([zone]) => zone))];
    servers = await startServers({
      brussels: { records: brussels, env: { TIME_ZONE: 'Europe/Brussels' } },
      sample: { records: sampleOf('space.spacestatus'), env: { TIME_ZONE: 'UTC' } },
      ...Object.fromEntries(
        zones.map((zone) => [
          zone,
          {
            records: openings(OTHER_ZONES.filter(([z]) => z === zone).map(([, instant]) => instant)),
            env: { TIME_ZONE: zone },
          },
        ]),
      ),
    });
  });

  after(async () => {
    await closeServers(servers);
  });

  describe('TIME_ZONE=Europe/Brussels', () => {
    for (const [i, [instant, wire]] of BRUSSELS.entries()) {
      it(`${instant} → ${wire}`, async () => {
        const record = await getOk(servers.brussels.base, `/api/space/openings/${i + 1}/`);
        assert.deepEqual(record, { time: wire, is_open: i % 2 === 0 });
      });
    }

    it('the list shows the same times, newest first', async () => {
      const { records } = await walkPages(servers.brussels.base, '/api/space/openings/');
      const expected = BRUSSELS.map(([instant, wire], i) => ({ instant: Date.parse(instant), wire, i }))
        .sort((a, b) => b.instant - a.instant || b.i - a.i)
        .map(({ wire }) => wire);
      // sub-millisecond differences are not visible to Date.parse: compare as sets where they tie
      assert.deepEqual(records.map((r) => r.time).sort(), [...expected].sort());
      assert.equal(records[0].time, '2021-10-31T02:30:00+01:00');
      assert.equal(records.at(-1).time, '1970-01-01T00:59:59.500000+01:00');
      const spring = records.map((r) => r.time).filter((t) => t.startsWith('2021-03-28'));
      assert.deepEqual(spring, [
        '2021-03-28T03:00:00.000001+02:00',
        '2021-03-28T03:00:00+02:00',
        '2021-03-28T01:59:59.999999+01:00',
        '2021-03-28T01:59:59.500000+01:00',
        '2021-03-28T01:59:59+01:00',
      ]);
      const autumn = records.map((r) => r.time).filter((t) => t.startsWith('2021-10-31'));
      assert.deepEqual(autumn, ['2021-10-31T02:30:00+01:00', '2021-10-31T02:00:00+01:00', '2021-10-31T02:59:59+02:00', '2021-10-31T02:30:00+02:00']);
    });

    it('event start and stop use the same format, and may be null', async () => {
      const { records } = await walkPages(servers.brussels.base, '/api/events/');
      const byId = new Map(records.map((e) => [e.id, e]));
      assert.deepEqual([byId.get(1).start, byId.get(1).stop], ['2021-03-28T01:30:00+01:00', '2021-03-28T03:30:00+02:00']);
      assert.deepEqual([byId.get(2).start, byId.get(2).stop], ['2021-10-31T02:30:00.250000+02:00', '2021-10-31T02:30:00+01:00']);
      assert.deepEqual([byId.get(3).start, byId.get(3).stop], [null, null]);
      assert.deepEqual([byId.get(4).start, byId.get(4).stop], ['2021-07-01T20:00:00+02:00', null]);
      assert.deepEqual((await getOk(servers.brussels.base, '/api/events/2/')).start, '2021-10-31T02:30:00.250000+02:00');
    });
  });

  describe('other zones', () => {
    for (const [zone, instant, wire] of OTHER_ZONES) {
      it(`${zone}: ${instant} → ${wire}`, async () => {
        const { records } = await walkPages(servers[zone].base, '/api/space/openings/');
        assert.ok(
          records.some((r) => r.time === wire),
          `${wire} not in ${JSON.stringify(records.map((r) => r.time))}`,
        );
      });
    }
  });

  describe('TIME_ZONE=UTC: never Z', () => {
    it('every opening of the sample: +00:00, fraction only when not zero, 6 digits', async () => {
      const { records } = await walkPages(servers.sample.base, '/api/space/openings/?page_size=1000');
      assert.equal(records.length, 300);
      const expected = new Set(sampleOf('space.spacestatus').map((o) => wireUtc(o.fields.time)));
      for (const { time } of records) {
        assert.match(time, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?\+00:00$/);
        assert.doesNotMatch(time, /Z$/);
        assert.doesNotMatch(time, /\.000000\+/);
        assert.ok(expected.has(time), time);
      }
    });

    it('microseconds as stored: 2015-01-07T06:35:19.369318Z and 2015-02-05T08:20:20.232Z', async () => {
      assert.equal((await getOk(servers.sample.base, '/api/space/openings/1/')).time, '2015-01-07T06:35:19.369318+00:00');
      assert.equal((await getOk(servers.sample.base, '/api/space/openings/2/')).time, '2015-02-05T08:20:20.232000+00:00');
      assert.equal((await getOk(servers.sample.base, '/api/space/openings/5/')).time, '2015-03-28T23:30:00+00:00');
    });
  });
});

describe('detail routes', () => {
  /*
   * Contract: detail routes — id syntax (spaces, `+`, leading zeros after percent-decoding),
   * 404 {"detail":"Not found."} for anything else (never a database error), and the detail record
   * equals the list record for every collection (openings by their pk).
   */
  let server: TestServer;

  const USER_39 = { username: 'user39', avatar: expectedAvatar('User39@Example.ORG'), has_key: true };

  before(async () => {
    server = await startServer({ records: [...sample(), user(39, 'user39', 'User39@Example.ORG', true)], env: { TIME_ZONE: 'UTC' } });
  });

  after(async () => {
    await server?.close();
  });

  describe('id syntax', () => {
    const spellings = ['39', '039', '0039', '+39', '%2B39', '%2039', '39%20', '%20%2039%20%20', '%20+039%20', '%2B0039'];
    for (const id of spellings) {
      it(`/api/users/${id}/ is user 39`, async () => {
        assertJson(await request(server.base, `/api/users/${id}/`), 200, USER_39);
      });
    }

    it('the same syntax on every collection', async () => {
      for (const collection of COLLECTION_PATHS) {
        const plain = await getOk(server.base, `/api/${collection}/3/`);
        for (const id of ['003', '+3', '%203', '%2B3%20']) {
          assert.deepEqual(await getOk(server.base, `/api/${collection}/${id}/`), plain, `${collection} ${id}`);
        }
      }
    });

    it('with a format suffix: /api/users/039.json', async () => {
      assertJson(await request(server.base, '/api/users/039.json'), 200, USER_39);
      assertJson(await request(server.base, '/api/users/%2B39.api'), 200, USER_39);
    });
  });

  describe('unknown or invalid ids → 404 {"detail":"Not found."}', () => {
    const ids = [
      '0',
      '00',
      '-1',
      '-39',
      '%2D39',
      '-0',
      'abc',
      '3x',
      'x3',
      '0x27',
      '1e1',
      '39e0',
      '%20',
      '+',
      '%2B',
      '++39',
      '+-39',
      '3%209',
      '%C3%A9',
      '1000',
      '999',
      '301',
      '2147483647',
      '2147483648',
      '4294967296',
      '4294967297',
      '9007199254740991',
      '9007199254740993',
      '9223372036854775807',
      '9223372036854775808',
      '18446744073709551615',
      '18446744073709551616',
      '18446744073709551617',
      '99999999999999999999999999999999999999',
      '1' + '0'.repeat(400),
    ];
    for (const id of ids) {
      it(`/api/<collection>/${id.length > 40 ? id.slice(0, 20) + '…' : id}/ on every collection`, async () => {
        for (const collection of COLLECTION_PATHS) {
          assertJson(await request(server.base, `/api/${collection}/${id}/`), 404, { detail: 'Not found.' }, collection);
        }
      });
    }

    it('ids of other collections are not shared: opening 300 exists, project 300 does not', async () => {
      assert.equal((await request(server.base, '/api/space/openings/300/')).status, 200);
      assertJson(await request(server.base, '/api/projects/300/'), 404, { detail: 'Not found.' });
      assertJson(await request(server.base, '/api/space/openings/301/'), 404, { detail: 'Not found.' });
    });
  });

  describe('detail equals the list record', () => {
    for (const collection of ['projects', 'meetings', 'events'] as const) {
      it(`${collection}: every record, by id`, async () => {
        const list = (await getOk(server.base, `/api/${collection}/?page_size=1000`)).results;
        assert.ok(list.length > 0);
        for (const record of list) {
          assert.deepEqual(await getOk(server.base, `/api/${collection}/${record.id}/`), record, `${collection} ${record.id}`);
        }
      });

      it(`${collection}: with ?format=api and .json, the detail equals the list record in that format`, async () => {
        const api = (await getOk(server.base, `/api/${collection}/?format=api`)).results[0];
        assert.deepEqual(await getOk(server.base, `/api/${collection}/${api.id}/?format=api`), api);
        const json = (await getOk(server.base, `/api/${collection}.json`)).results[0];
        assert.deepEqual(await getOk(server.base, `/api/${collection}/${json.id}.json`), json);
      });
    }

    it('users: /api/users/<pk>/ equals the list record of that username', async () => {
      const list = (await getOk(server.base, '/api/users/?page_size=1000')).results;
      const byName = new Map(list.map((u: any) => [u.username, u]));
      for (const u of [...sampleOf('users.user'), user(39, 'user39')]) {
        assert.deepEqual(await getOk(server.base, `/api/users/${u.pk}/`), byName.get(u.fields.username), `user ${u.pk}`);
      }
    });

    it('openings: /api/space/openings/<pk>/ is the opening of that pk, and appears in the list', async () => {
      const list = (await getOk(server.base, '/api/space/openings/?page_size=1000')).results;
      const inList = new Set(list.map((o: any) => JSON.stringify(o)));
      for (const o of sampleOf('space.spacestatus').filter((_, i) => i % 3 === 0)) {
        const expected = { time: wireUtc(o.fields.time), is_open: o.fields.is_open };
        const detail = await getOk(server.base, `/api/space/openings/${o.pk}/`);
        assert.deepEqual(detail, expected, `opening ${o.pk}`);
        assert.ok(inList.has(JSON.stringify(detail)), `opening ${o.pk} in the list`);
      }
    });

    it('opening 1 by pk', async () => {
      assertJson(await request(server.base, '/api/space/openings/1/'), 200, { time: '2015-01-07T06:35:19.369318+00:00', is_open: true });
      assertJson(await request(server.base, '/api/space/openings/24/'), 200, { time: '2022-01-09T04:03:57.783000+00:00', is_open: false });
    });
  });
});

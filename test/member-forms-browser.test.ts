// The members' forms for projects, events and meetings in Chromium (members.md §4, §6): each
// form filled and posted with the keyboard (members found and ticked, Save pressed with Enter),
// script typed into every text field inert on the form and on the record's page, and axe-core on
// every form page, light and dark.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { axe, describeViolations, launchBrowser, watchedPage, type WatchedPage } from './support/browser.js';
import { createEvent } from '../src/apps/events/events.js';
import { createMeeting } from '../src/apps/events/meetings.js';
import { createProject } from '../src/apps/projects/projects.js';
import { addMember, TEST_ITERATIONS } from './support/members.js';
import { startServer, type TestServer } from './support/server.js';

const USERNAME = 'grace';
const PASSWORD = 'compiler 1952 cobol';
const HOSTILE = '<script>window.pwned = 1</script><img src="x" onerror="window.pwned = 1">';

async function logInWithKeyboard(watched: WatchedPage): Promise<void> {
  const { page, origin } = watched;
  await page.goto(`${origin}/accounts/login/`);
  await page.focus('input[name="username"]');
  await page.keyboard.type(USERNAME);
  await page.keyboard.press('Tab');
  await page.keyboard.type(PASSWORD);
  await Promise.all([page.waitForURL((url) => !url.pathname.startsWith('/accounts/login/')), page.keyboard.press('Enter')]);
}

/** Focuses a control and types into it (replacing what it holds), as a keyboard user does. */
async function typeInto(page: Page, selector: string, text: string): Promise<void> {
  await page.focus(selector);
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.type(text);
}

/** Presses Enter on a button and waits for the page it leads to. */
async function pressButton(page: Page, selector: string): Promise<void> {
  await page.focus(selector);
  await Promise.all([page.waitForLoadState('load'), page.waitForNavigation(), page.keyboard.press('Enter')]);
}

/** Finds a member by typing in a member field's search box and pressing Enter, then ticks them with Space. */
async function findAndTick(page: Page, field: string, username: string): Promise<void> {
  await typeInto(page, `#${field}_find`, username);
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
  const box = `input[name="${field}"][value="/api/users/${await idOf(page, username)}/"]`;
  await page.focus(box);
  await page.keyboard.press('Space');
  assert.equal(await page.isChecked(box), true, `${username} ticked`);
}

/** A listed member's id, from their box's value. */
async function idOf(page: Page, username: string): Promise<string> {
  return new RegExp(`value="/api/users/(\\d+)/"[^>]*> ${username}<`).exec(await page.content())?.[1] ?? '';
}

describe('the members’ forms in a browser', () => {
  let server: TestServer;
  let browser: Browser;
  let eventForMeeting: number;
  let project: number;
  let event: number;
  let meeting: number;

  before(async () => {
    server = await startServer({ env: { PASSWORD_ITERATIONS: String(TEST_ITERATIONS), TIME_ZONE: 'Europe/Brussels' } });
    const db = server.database.db;
    await addMember(db, { username: USERNAME, password: PASSWORD, superuser: true });
    for (const name of ['ada', 'alan', 'barbara']) await addMember(db, { username: name });
    const grace = await db.selectFrom('users').select('id').where('username', '=', USERNAME).executeTakeFirstOrThrow();
    eventForMeeting = await createEvent(db, { title: 'Assembly', status: 'r' });
    // Records for the pages axe looks at.
    project = await createProject(db, { title: 'Laser', maintainer: grace.id, status: 'p', progress: 0, short_description: 'Cuts' }, Date.now() * 1000);
    event = await createEvent(db, { title: 'Talk', status: 'r', start: Date.UTC(2026, 4, 1, 18) * 1000 });
    meeting = await createMeeting(db, { event: await createEvent(db, { title: 'Assembly 2', status: 'r' }), OJ: '1. Budget', members: [grace.id] });
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
  });

  it('fills and posts each form with the keyboard: a project, its edit, an event, a meeting, a deletion', async () => {
    const watched = await watchedPage(browser, server.base);
    try {
      const { page } = watched;
      await logInWithKeyboard(watched);
      // A project, with a participant found by name.
      await page.goto(`${server.base}/projects/new/`);
      await typeInto(page, '#title', 'Pick and place');
      await typeInto(page, '#short_description', 'A machine for boards');
      await typeInto(page, '#content', '## Parts\n\n- a *nozzle*');
      await findAndTick(page, 'participants', 'barbara');
      assert.equal(await page.inputValue('#title'), 'Pick and place', 'the title kept through the search');
      await pressButton(page, '.buttons button[value="save"]');
      const projectPath = new URL(page.url()).pathname;
      assert.match(projectPath, /^\/projects\/\d+\/$/);
      assert.equal(await page.textContent('#notice'), 'The project is created.');
      assert.match((await page.textContent('main')) ?? '', /Pick and place/);
      // Its edit: the title changed, progress typed.
      await page.goto(`${server.base}${projectPath}edit/`);
      await typeInto(page, '#title', 'Pick and place v2');
      await typeInto(page, '#progress', '40');
      await pressButton(page, '.buttons button[value="save"]');
      assert.equal(new URL(page.url()).pathname, projectPath);
      assert.equal(await page.textContent('#notice'), 'The project is saved.');
      // An event: the status chosen with the arrow keys, the time typed in TIME_ZONE.
      await page.goto(`${server.base}/events/new/`);
      await typeInto(page, '#title', 'Soldering night');
      await typeInto(page, '#place', 'Workshop');
      await page.fill('#start', '2026-06-05T19:30');
      await page.focus('#status');
      await page.keyboard.press('ArrowDown');
      await typeInto(page, '#description', 'Bring a board');
      await pressButton(page, '.buttons button[value="save"]');
      const eventPath = new URL(page.url()).pathname;
      assert.match(eventPath, /^\/events\/\d+\/$/);
      const event = (await (await fetch(`${server.base}/api${eventPath}`)).json()) as { start: string; status: string };
      assert.deepEqual([event.start, event.status], ['2026-06-05T19:30:00+02:00', 'i']);
      // A meeting of another event: agenda, minutes, a member present.
      await page.goto(`${server.base}/meetings/new/?event=${eventForMeeting}`);
      await typeInto(page, '#OJ', '1. Budget');
      await typeInto(page, '#PV', 'Agreed.');
      await findAndTick(page, 'members', 'ada');
      await pressButton(page, '.buttons button[value="save"]');
      assert.match(new URL(page.url()).pathname, /^\/meetings\/\d+\/$/);
      assert.equal(await page.textContent('#notice'), 'The meeting is created.');
      // The project deleted from its confirmation page.
      await page.goto(`${server.base}${projectPath}delete/`);
      await pressButton(page, 'button[type="submit"].danger');
      assert.equal((await fetch(`${server.base}/api${projectPath}`)).status, 404);
    } finally {
      await watched.close();
    }
  });

  it('script typed into every text field stays inert on the form and on the record’s page', async () => {
    const watched = await watchedPage(browser, server.base);
    try {
      const { page } = watched;
      await logInWithKeyboard(watched);
      for (const form of ['/projects/new/', '/events/new/']) {
        await page.goto(server.base + form);
        const fields = await page.locator('main form input[type="text"], main form input[type="search"], main form textarea').evaluateAll((els) => els.map((e) => e.id));
        for (const id of fields) await page.fill(`#${id}`, `${id} ${HOSTILE}`);
        // The search boxes hold script too: the form comes back with it, as text.
        await Promise.all([page.waitForNavigation(), page.click('.buttons button[value="save"]')]);
        assert.equal(await page.evaluate('window.pwned'), undefined, `nothing ran on ${form} (search)`);
        for (const id of fields.filter((f) => !f.endsWith('_find'))) await page.fill(`#${id}`, `${id} ${HOSTILE}`);
        await Promise.all([page.waitForNavigation(), page.click('button[value="preview"]')]);
        assert.equal(await page.evaluate('window.pwned'), undefined, `nothing ran on ${form} (preview)`);
        assert.equal(await page.locator('main script, main img[onerror]').count(), 0, form);
        await Promise.all([page.waitForNavigation(), page.click('.buttons button[value="save"]')]);
        const record = new URL(page.url()).pathname;
        assert.match(record, /^\/(projects|events)\/\d+\/$/, `saved from ${form}`);
        for (const path of [record, `${record}edit/`]) {
          await page.goto(server.base + path);
          assert.equal(await page.evaluate('window.pwned'), undefined, `nothing ran on ${path}`);
          assert.equal(await page.locator('main script, main img[onerror]').count(), 0, path);
          assert.match((await page.textContent('main')) ?? '', /<script>window\.pwned = 1<\/script>/, `the script shown as text on ${path}`);
        }
      }
    } finally {
      await watched.close();
    }
  });

  for (const colorScheme of ['light', 'dark'] as const) {
    it(`axe-core finds no violation on the form pages, ${colorScheme} colour scheme`, async () => {
      const failures: string[] = [];
      const watched = await watchedPage(browser, server.base, { colorScheme });
      try {
        const { page } = watched;
        const check = async (what: string) => {
          const violations = await axe(page, { openDetails: true });
          if (violations.length > 0) failures.push(`${what}:\n${describeViolations(violations)}`);
        };
        await logInWithKeyboard(watched);
        for (const path of [
          '/projects/new/',
          `/projects/${project}/edit/`,
          `/projects/${project}/delete/`,
          '/events/new/',
          `/events/${event}/edit/`,
          `/meetings/${meeting}/edit/`,
          `/meetings/${meeting}/delete/`,
        ]) {
          const response = await page.goto(server.base + path);
          assert.equal(response?.status(), 200, path);
          await check(path);
        }
        // The form with its messages, a search's matches and a preview.
        await page.goto(`${server.base}/projects/new/`);
        await page.fill('#title', '   ');
        await page.fill('#participants_find', 'a');
        await Promise.all([page.waitForNavigation(), page.click('button[value="find:participants"]')]);
        await check('/projects/new/ with matches');
        await page.fill('#content', '# Title\n\ntext');
        await Promise.all([page.waitForNavigation(), page.click('button[value="preview"]')]);
        await check('/projects/new/ with a preview');
        await Promise.all([page.waitForNavigation(), page.click('.buttons button[value="save"]')]);
        assert.equal(await page.textContent('#title-error'), 'This field may not be blank.');
        await check('/projects/new/ with messages');
        assert.equal(failures.join('\n\n'), '');
      } finally {
        await watched.close();
      }
    });
  }
});

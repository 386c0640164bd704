// scripts/test-prerequisites.mjs, run as `npm test` runs it, on a made-up file tree: its test hooks
// (TEST_PREREQ_ROOT, a prefix for every path it looks for; TEST_PREREQ_NOT_ROOT=1, acting as a user
// other than root) let a package be missing without changing the machine, and keep it from installing.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';

const SCRIPT = path.resolve(import.meta.dirname, '../scripts/test-prerequisites.mjs');
const EXECUTABLES = { chromium: '/usr/bin/chromium', nginx: '/usr/sbin/nginx', mosquitto: '/usr/sbin/mosquitto', python: '/usr/bin/python3' };

const trees: string[] = [];
after(() => {
  for (const tree of trees) fs.rmSync(tree, { recursive: true, force: true });
});

/** A file tree holding the given files, with the given modes; a python3 that imports nothing when `python` is 'failing'. */
function treeWith(files: Record<string, number>, python: 'working' | 'failing' = 'working'): string {
  const tree = fs.mkdtempSync(path.join(os.tmpdir(), 'hackerspace-api-prereq-'));
  trees.push(tree);
  for (const [file, mode] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(tree + file), { recursive: true });
    fs.writeFileSync(tree + file, file === EXECUTABLES.python && python === 'failing' ? '#!/bin/sh\nexit 1\n' : '#!/bin/sh\n', { mode });
  }
  return tree;
}

/** A cache holding Debian's packages as if extracted already (scripts/test-prerequisites.mjs then downloads nothing). */
function cacheWithDebianPackages(tree: string): string {
  const cache = path.join(tree, 'cache');
  for (const name of ['python3-django', 'python3-djangorestframework']) {
    fs.mkdirSync(path.join(cache, 'hackerspace-api', 'debian-trixie', name), { recursive: true });
    fs.writeFileSync(path.join(cache, 'hackerspace-api', 'debian-trixie', name, '.complete'), 'pool/main/…\n');
  }
  return cache;
}

/** Runs the script for the SQLite suite (PostgreSQL is left alone) against `tree`, as a user other than root, Debian's packages in its cache. */
function prerequisites(tree: string, env: Record<string, string> = {}) {
  const base = { ...process.env };
  delete base.ORIGINAL_SOURCE;
  const result = spawnSync(process.execPath, [SCRIPT, 'sqlite'], {
    encoding: 'utf8',
    env: { ...base, TEST_PREREQ_ROOT: tree, TEST_PREREQ_NOT_ROOT: '1', XDG_CACHE_HOME: cacheWithDebianPackages(tree), ...env },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('test prerequisites (scripts/test-prerequisites.mjs)', () => {
  it('stops with the one install command for every missing package when none is there', () => {
    const result = prerequisites(treeWith({}));
    assert.equal(result.status, 1);
    assert.match(result.stderr, /^ {2}sudo apt-get install -y chromium nginx mosquitto python3-django python3-bcrypt python3-argon2$/m);
    assert.equal(result.stdout, '');
  });

  it('names only the missing packages, and counts a file that cannot run as missing', () => {
    const result = prerequisites(treeWith({ [EXECUTABLES.chromium]: 0o644, [EXECUTABLES.nginx]: 0o755, [EXECUTABLES.mosquitto]: 0o755, [EXECUTABLES.python]: 0o755 }));
    assert.equal(result.status, 1);
    assert.match(result.stderr, /^ {2}sudo apt-get install -y chromium$/m);
  });

  it("adds Django with its hashers when Python lacks them, and requests when ORIGINAL_SOURCE asks for the original's loaddata", () => {
    const tree = treeWith({ [EXECUTABLES.chromium]: 0o755, [EXECUTABLES.nginx]: 0o755, [EXECUTABLES.mosquitto]: 0o755, [EXECUTABLES.python]: 0o755 }, 'failing');
    assert.match(prerequisites(tree).stderr, /^ {2}sudo apt-get install -y python3-django python3-bcrypt python3-argon2$/m);
    const result = prerequisites(tree, { ORIGINAL_SOURCE: tree });
    assert.equal(result.status, 1);
    assert.match(result.stderr, /^ {2}sudo apt-get install -y python3-django python3-bcrypt python3-argon2 python3-requests$/m);
  });

  it('passes, saying nothing, when every package is there and the broker is elsewhere', () => {
    const tree = treeWith({ [EXECUTABLES.chromium]: 0o755, [EXECUTABLES.nginx]: 0o755, [EXECUTABLES.mosquitto]: 0o755, [EXECUTABLES.python]: 0o755 });
    const result = prerequisites(tree, { MQTT_TEST_URL: 'mqtt://127.0.0.1:1' });
    assert.deepEqual(result, { status: 0, stdout: '', stderr: '' });
  });

  it("says when Debian's catalogues cannot be downloaded, and goes on (test/api-messages.test.ts is then skipped)", () => {
    const tree = treeWith({ [EXECUTABLES.chromium]: 0o755, [EXECUTABLES.nginx]: 0o755, [EXECUTABLES.mosquitto]: 0o755, [EXECUTABLES.python]: 0o755 });
    const cache = path.join(tree, 'empty-cache');
    const result = prerequisites(tree, { MQTT_TEST_URL: 'mqtt://127.0.0.1:1', XDG_CACHE_HOME: cache, TEST_PREREQ_DEBIAN_MIRROR: 'http://127.0.0.1:1/debian' });
    assert.equal(result.status, 0);
    assert.match(result.stderr, /could not get Debian's catalogues \(.+\): test\/api-messages\.test\.ts will be skipped/);
    assert.equal(fs.existsSync(path.join(cache, 'hackerspace-api', 'debian-trixie', 'python3-django', '.complete')), false);
  });
});

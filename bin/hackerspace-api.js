#!/usr/bin/env node
// Runs the bundled CLI (dist/, built by `npm run build` and on install) when it is at least as
// new as every source file; otherwise runs the TypeScript sources through tsx, so a stale
// bundle is never used.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bundle = path.join(root, 'dist', 'hackerspace-api.mjs');

function newestSource(dir) {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

function bundleIsFresh() {
  try {
    return fs.statSync(bundle).mtimeMs >= newestSource(path.join(root, 'src'));
  } catch {
    return false;
  }
}

if (bundleIsFresh()) {
  await import(pathToFileURL(bundle).href);
} else {
  const { register } = await import('tsx/esm/api');
  register();
  await import(pathToFileURL(path.join(root, 'src', 'cli', 'main.ts')).href);
}

// wrk, the load generator: installing it, running it with the bench's Lua scripts and reading the
// one result line each script prints.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fail, log, sleep } from './log.js';
import { isAlive, run, start, stop } from './processes.js';

const BENCH = path.dirname(path.dirname(new URL(import.meta.url).pathname));
export const script = (name) => path.join(BENCH, name);

/** wrk on PATH; as root with apt-get, installed (Debian's package) when missing. */
export async function ensureWrk(work) {
  const has = () => {
    try {
      execFileSync('sh', ['-c', 'command -v wrk'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  if (has()) return;
  if (process.getuid?.() !== 0) fail("wrk is not installed: install it (Debian: 'sudo apt-get install wrk'), or run as root to let the benchmark install it");
  log('wrk is missing; installing it with apt-get');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const logFile = path.join(work, 'apt.log');
  if ((await run('apt-get', ['install', '-y', 'wrk'], { env, logFile })).code !== 0) {
    await run('apt-get', ['update'], { env, logFile });
    if ((await run('apt-get', ['install', '-y', 'wrk'], { env, logFile })).code !== 0) fail(`could not install wrk with apt-get (see ${logFile})`);
  }
  if (!has()) fail('apt-get installed wrk but it is not on PATH');
}

/** walk.lua times requests through LuaJIT's ffi: this wrk must have it (it loads the script, then fails to connect to port 1). */
export async function checkWrkFfi(work) {
  const file = path.join(work, 'ffi-check.lua');
  fs.writeFileSync(file, 'local ffi = require("ffi")\n');
  const { stdout, stderr } = await run('wrk', ['-t1', '-c1', '-d1s', '-s', file, 'http://127.0.0.1:1/']);
  if (`${stdout}${stderr}`.includes("module 'ffi' not found")) fail("this wrk's Lua has no ffi module (bench/walk.lua needs LuaJIT's)");
}

/** The fields of the last line starting with `tag` (RESULT, WALK, DOOR): numbers where they are numbers. */
export function resultLine(text, tag) {
  const line = text
    .split('\n')
    .filter((l) => l.startsWith(`${tag} `))
    .pop();
  if (!line) return null;
  const fields = {};
  for (const part of line
    .slice(tag.length + 1)
    .trim()
    .split(/\s+/)) {
    const eq = part.indexOf('=');
    const value = part.slice(eq + 1);
    fields[part.slice(0, eq)] = /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : value;
  }
  return fields;
}

/** Runs wrk to its end with its output in `file`; returns the output. */
async function wrk(args, { env = {}, pin = [], file }) {
  const [command, ...rest] = [...pin, 'wrk', ...args];
  const result = await run(command, rest, { env: { ...process.env, ...env } });
  const text = result.stdout + result.stderr;
  fs.writeFileSync(file, text);
  if (result.code !== 0) fail(`wrk failed (exit ${result.code}): ${text.trim().split('\n').slice(-5).join(' / ')} (${file})`);
  return text;
}

/**
 * One measurement with bench/report.lua: `seconds` of wrk -t1 -cN after `warmup` seconds of the
 * same load and one request of its own (the server still works through the requests wrk abandoned
 * at the end of the warm-up; this one queues behind them, so the measurement starts on an idle
 * server). Checks: no 4xx/5xx, every answer `status` when given (counted by report.lua), and the
 * bytes read fit `bytes` per answer when given. Returns { rps, p50, p90, p99 (ms), requests, socketErrors }.
 */
export async function measure(url, { connections, threads = 1, seconds, warmup = 1, headers = [], status, bytes, pin, file, check }) {
  const env = { WRK_STATUSES: status ? '1' : '0' };
  const args = (d) => [`-t${threads}`, `-c${connections}`, `-d${d}s`, '--timeout', '10s', '-s', script('report.lua'), ...headers.flatMap((h) => ['-H', h]), url];
  // A wrk that fails because the server under test died says so through check().
  const load = async (d, f) => {
    try {
      return await wrk(args(d), { env, pin, file: f });
    } catch (error) {
      if (check) await check();
      throw error;
    }
  };
  const outputs = [];
  if (warmup > 0) outputs.push(await load(warmup, `${file}.warmup`));
  if (check) await check();
  outputs.push(await load(seconds, file));
  if (check) await check();
  let r;
  for (const text of outputs) {
    r = resultLine(text, 'RESULT');
    if (!r) fail(`wrk printed no RESULT line (${file})`);
    if (r.status_errors !== 0) fail(`${url}: ${r.status_errors} answers were 4xx/5xx under load (${file})`);
    if (status && r.statuses !== `${status}:${r.requests}`) fail(`${url}: not every answer was ${status} under load: statuses ${r.statuses} of ${r.requests} answers (${file})`);
  }
  // No answer in the whole round (a large uncached page on a loaded machine): a round of 0 req/s,
  // said so by the caller; a dead server has failed check() above.
  if (r.requests <= 0) {
    log(`WARNING: ${url}: no request completed in ${seconds} s`);
    return { rps: 0, p50: NaN, p90: NaN, p99: NaN, requests: 0, socketErrors: '' };
  }
  // Every complete answer is counted; besides, at most one partial answer per connection at the end.
  if (bytes && !(r.bytes >= 0.98 * r.requests * bytes && r.bytes <= 1.02 * (r.requests + connections) * bytes)) {
    fail(`${url}: wrk read ${r.bytes} bytes in ${r.requests} answers, ${Math.round(r.bytes / r.requests)} per answer where each should be ${bytes} bytes (${file})`);
  }
  const socketErrors = r.connect + r.read + r.write + r.timeout;
  return {
    rps: r.requests / (r.duration_us / 1e6),
    p50: r.p50_us / 1000,
    p90: r.p90_us / 1000,
    p99: r.p99_us / 1000,
    requests: r.requests,
    socketErrors: socketErrors ? `connect ${r.connect}, read ${r.read}, write ${r.write}, timeout ${r.timeout}` : '',
  };
}

/**
 * bench/walk.lua: with `pages` (a list), each page once in that order over `connections`
 * connections (the walk stops itself after its last page; wrk is then interrupted, since it would
 * otherwise wait for limitS); with `page`, that page over and over for limitS. Every answer must be
 * 200. Returns { pages, planned, rps, p50, p90, p99, max (ms) }.
 */
export async function walk(urlPrefix, { pages, page, connections = 1, limitS, pin, file, check }) {
  const done = `${file}.done`;
  fs.rmSync(done, { force: true });
  const env = { ...process.env, WALK_THREADS: String(connections), WALK_DONE_FILE: done };
  if (pages) {
    fs.writeFileSync(`${file}.pages`, pages.join('\n') + '\n');
    env.WALK_LIST_FILE = `${file}.pages`;
  } else env.WALK_PAGE = String(page);
  const [command, ...rest] = [...pin, 'wrk', `-t${connections}`, `-c${connections}`, `-d${limitS}s`, '--timeout', '30s', '-s', script('walk.lua'), urlPrefix];
  const child = start(command, rest, { env, capture: true });
  const t0 = Date.now();
  let lastSignal = 0;
  while (isAlive(child)) {
    if (pages && fs.existsSync(done) && fs.readFileSync(done, 'utf8').split('\n').filter(Boolean).length >= connections) {
      // Every thread stopped; wrk's main thread sleeps until -d is up unless interrupted (again
      // every half second, in case the first signal reached a thread still finishing).
      if (Date.now() - lastSignal > 500) {
        child.kill('SIGINT');
        lastSignal = Date.now();
      }
    }
    if (Date.now() - t0 > (limitS + 30) * 1000) {
      await stop(child);
      fail(`wrk did not end ${limitS + 30} s after the walk began (${file})`);
    }
    await sleep(20);
  }
  const { code } = await child.done;
  const text = child.stdoutText + child.stderrText;
  fs.writeFileSync(file, text);
  if (code !== 0) fail(`wrk failed on the walk (exit ${code}): ${text.trim().split('\n').slice(-5).join(' / ')} (${file})`);
  if (check) await check();
  const w = resultLine(text, 'WALK');
  if (!w) fail(`wrk printed no WALK line (${file})`);
  if (w.pages <= 0) fail(`no page was answered (${file})`);
  if (w.statuses !== `200:${w.pages}`) fail(`not every page answered 200: statuses ${w.statuses} (${file})`);
  if (w.connect + w.read + w.write + w.timeout > 0)
    fail(`socket errors during the walk (connect ${w.connect}, read ${w.read}, write ${w.write}, timeout ${w.timeout}): it cannot be trusted (${file})`);
  return {
    pages: w.pages,
    planned: w.planned,
    rps: w.elapsed_us > 0 ? w.pages / (w.elapsed_us / 1e6) : 0,
    p50: w.p50_us / 1000,
    p90: w.p90_us / 1000,
    p99: w.p99_us / 1000,
    max: w.max_us / 1000,
  };
}

/** bench/door.lua: door posts with a token from the environment. Returns the DOOR line's fields. */
export async function door(url, { token, mode, first, connections, seconds, pin = [], file }) {
  const env = { DOOR_TOKEN: token, DOOR_MODE: mode === 'change' ? 'alternate' : 'same', DOOR_FIRST: String(first) };
  const text = await wrk(['-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', '10s', '-s', script('door.lua'), url], { env, pin, file });
  const d = resultLine(text, 'DOOR');
  // door.lua stops on a bad setting but wrk then goes on with plain GETs: the DOOR line is the proof.
  if (!d) fail(`wrk printed no DOOR line (${file})`);
  return d;
}

/** Deterministic pseudo-random numbers (mulberry32), so a seed gives the same walk in every run. */
export function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fisher–Yates shuffle of a copy of `list` with a seeded generator. */
export function shuffled(list, seed) {
  const next = random(seed);
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

// Child processes: every one the driver starts is registered here, and stopped at the end of the
// run, on a failure and on Ctrl-C or SIGTERM alike.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { fail, log, sleep } from './log.js';

const running = new Set();
const cleanups = [];

/**
 * Starts `command args` with its output to `logFile` (or returned, with capture: true). Returns
 * the ChildProcess with .done: a promise of { code, signal } (it never rejects).
 */
export function start(command, args, { env = process.env, logFile, cwd, capture = false } = {}) {
  const out = logFile ? fs.openSync(logFile, 'a') : 'ignore';
  const child = spawn(command, args, { env, cwd, stdio: ['ignore', capture ? 'pipe' : out, capture && !logFile ? 'pipe' : out] });
  if (logFile) fs.closeSync(out);
  child.stdoutText = '';
  child.stderrText = '';
  child.stdout?.on('data', (chunk) => (child.stdoutText += chunk));
  child.stderr?.on('data', (chunk) => (child.stderrText += chunk));
  running.add(child);
  child.done = new Promise((resolve) => {
    child.once('error', (error) => {
      running.delete(child);
      resolve({ code: 127, signal: null, error });
    });
    child.once('close', (code, signal) => {
      running.delete(child);
      resolve({ code, signal });
    });
  });
  return child;
}

/** Runs a command to its end; returns { code, stdout, stderr }. */
export async function run(command, args, options = {}) {
  const child = start(command, args, { ...options, capture: true });
  const { code, signal, error } = await child.done;
  return { code: error ? 127 : (code ?? 128), signal, stdout: child.stdoutText, stderr: child.stderrText + (error ? String(error.message) : '') };
}

/** Runs a command that must succeed; returns its stdout. */
export async function runOk(command, args, what, options = {}) {
  const result = await run(command, args, options);
  if (result.code !== 0) fail(`${what} failed (exit ${result.code}): ${(result.stderr || result.stdout).trim().split('\n').slice(-15).join('\n')}`);
  return result.stdout;
}

export const isAlive = (child) => child.exitCode === null && child.signalCode === null;

/** SIGTERM, then SIGKILL after 5 s; resolves when the process is gone. */
export async function stop(child) {
  if (!child || !running.has(child)) return;
  child.kill('SIGTERM');
  const timer = sleep(5000).then(() => 'timeout');
  if ((await Promise.race([child.done, timer])) === 'timeout') {
    log(`process ${child.pid} ignored SIGTERM for 5 s; killing it`);
    child.kill('SIGKILL');
    await child.done;
  }
}

/** Registers work for the end of the run (scratch databases, worktrees), run in reverse order. */
export function atExit(fn) {
  cleanups.push(fn);
}

/** Stops every process still running, then runs the registered clean-ups. */
export async function cleanup() {
  await Promise.all([...running].map((child) => stop(child)));
  while (cleanups.length) {
    try {
      await cleanups.pop()();
    } catch (error) {
      log(`WARNING: clean-up step failed: ${error.message}`);
    }
  }
}

/** The pids of the direct children of a process (the workers of a node:cluster primary). */
export function childrenOf(pid) {
  try {
    return fs
      .readdirSync(`/proc/${pid}/task`)
      .flatMap((task) => fs.readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').trim().split(/\s+/))
      .filter((p) => /^\d+$/.test(p))
      .map(Number);
  } catch {
    return [];
  }
}

/** VmHWM of a process in kB (its peak resident set size), or NaN. */
export function peakRssKb(pid) {
  try {
    return Number(/^VmHWM:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
  } catch {
    return NaN;
  }
}

/**
 * Runs main(); whatever happens, stops the processes and runs the clean-ups, then exits with
 * main's status (0, or 3 for a missed target), 1 on a failure, 2 on bad usage, 130/143 on signals.
 */
export async function runMain(name, main) {
  let stopping = false;
  for (const [signal, status] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ]) {
    process.on(signal, async () => {
      if (stopping) return;
      stopping = true;
      log(`${name}: ${signal}; stopping`);
      await cleanup();
      process.exit(status);
    });
  }
  let status;
  try {
    status = (await main()) ?? 0;
  } catch (error) {
    // On a signal the clean-up stops wrk and the servers under main's feet: its failure then is
    // no news, and the signal handler ends the process.
    if (stopping) return new Promise(() => {});
    status = error.status ?? 1;
    process.stderr.write(`\n${name}: ${status === 2 ? '' : 'FAILED: '}${error.status ? error.message : error.stack}\n`);
  }
  await cleanup();
  process.exit(status);
}

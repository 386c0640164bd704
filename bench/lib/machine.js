// The machine: is it idle, where do the load generator and the servers run, what is it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { log, sleep } from './log.js';

function cpuTimes() {
  const line = fs
    .readFileSync('/proc/stat', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('cpu '));
  const [user, nice, system, idle, iowait, irq, softirq] = line.trim().split(/\s+/).slice(1).map(Number);
  return { busy: user + nice + system + irq + softirq, idle: idle + iowait };
}

/** How busy all CPUs were (%) over one second, while the caller does nothing. */
export async function busyPercent() {
  try {
    const a = cpuTimes();
    await sleep(1000);
    const b = cpuTimes();
    const busy = b.busy - a.busy;
    const all = busy + b.idle - a.idle;
    return all > 0 ? Math.round((100 * busy) / all) : 0;
  } catch {
    return NaN;
  }
}

/** Samples before each measured section; any sample above 15 % marks the run as noisy. */
export class IdleChecks {
  samples = [];
  noisy = false;

  async check(when) {
    const pct = await busyPercent();
    this.samples.push(`${when}: ${Number.isFinite(pct) ? `${pct}%` : '?'}`);
    if (pct > 15) {
      log(`WARNING: the CPUs were ${pct}% busy ${when} with nothing of this benchmark running: other processes compete, results will be noisy`);
      this.noisy = true;
    }
  }

  note() {
    return `CPU busy with other processes (1 s samples, all cores): ${this.samples.join(', ')}${this.noisy ? ' — **the machine was not idle: noisy results**' : ''}`;
  }
}

/** The CPUs this process may run on. */
function allowedCpus() {
  const status = fs.readFileSync('/proc/self/status', 'utf8');
  const list = /^Cpus_allowed_list:\s*(.+)$/m.exec(status)?.[1] ?? '';
  return list.split(',').flatMap((part) => {
    const [a, b] = part.split('-').map(Number);
    return Number.isFinite(b) ? Array.from({ length: b - a + 1 }, (_, i) => a + i) : Number.isFinite(a) ? [a] : [];
  });
}

function hasTaskset() {
  try {
    execFileSync('taskset', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Where processes run. A server and its load generator talk over loopback at tens of thousands of
 * round trips a second; left to the scheduler they sometimes share one core for seconds. So wrk
 * and the other load clients get the first CPU and every server (the service and the ceiling
 * alike) the others. { load: [...prefix], server: [...prefix], text }
 */
export function cpuPlacement({ pin, workers }) {
  const cpus = allowedCpus();
  if (!pin) return { load: [], server: [], text: 'not pinned (--no-pin): the scheduler placed wrk and the servers' };
  if (workers) return { load: [], server: [], text: 'not pinned (--workers: the workers and wrk share the cores as the scheduler places them)' };
  if (cpus.length < 2 || !hasTaskset()) return { load: [], server: [], text: `not pinned (pinning needs taskset and 2 CPUs; this process may use ${cpus.length})` };
  const servers = cpus.slice(1).join(',');
  return {
    load: ['taskset', '-c', String(cpus[0])],
    server: ['taskset', '-c', servers],
    text: `wrk and the other load clients on CPU ${cpus[0]}, every server on CPU ${servers} (taskset)`,
  };
}

/** The short commit of a git work tree, with "+changes" when tracked files differ from it. */
export function gitRev(root) {
  try {
    const rev = execFileSync('git', ['-C', root, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['-C', root, 'status', '--porcelain', '--untracked-files=no'], { encoding: 'utf8' }).trim();
    return dirty ? `${rev}+changes` : rev;
  } catch {
    return 'unknown';
  }
}

export function machineNote() {
  const cpu = os.cpus()[0]?.model ?? '';
  let wrk;
  try {
    wrk = execFileSync('wrk', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    wrk = String(error.stdout ?? '');
  }
  return `${os.cpus().length} cores${cpu ? ` (${cpu})` : ''}, node ${process.version}, ${wrk.split(/\s+/).slice(0, 2).join(' ') || 'wrk'}`;
}

/**
 * Drops the OS page cache (sync, then /proc/sys/vm/drop_caches = 3: needs root). Returns null
 * when done, or why it could not be.
 */
export function dropPageCache() {
  try {
    execFileSync('sync');
    fs.writeFileSync('/proc/sys/vm/drop_caches', '3');
    return null;
  } catch (error) {
    return `${error.code ?? 'error'}: ${error.message.split('\n')[0]}`;
  }
}

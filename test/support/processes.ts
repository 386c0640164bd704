import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { request } from './http.js';

/** The installed command (the dist/ bundle when fresh, else the sources through tsx). */
export const BIN = path.resolve(import.meta.dirname, '../../bin/hackerspace-api.js');

/** Configuration variables not to inherit from the environment running the tests. */
const CONFIG_VARIABLES = [
  'DATABASE_URL',
  'DATABASE_POOL_SIZE',
  'DATABASE_STATEMENT_TIMEOUT_MS',
  'HOST',
  'PORT',
  'PUBLIC_URL',
  'TRUST_PROXY',
  'TIME_ZONE',
  'LANGUAGE_CODE',
  'LANGUAGES',
  'SPACE_NAME',
  'PAGE_SIZE',
  'MAX_PAGE_SIZE',
  'AVATAR_FIELD',
  'AVATAR_HASH',
  'AVATAR_DEFAULT',
  'RESPONSE_CACHE_MB',
  'LOG_LEVEL',
  'SPACEAPI_CONFIG',
  'WEBHOOK_URLS',
  'WEBHOOK_SECRET',
  'WEBHOOK_TIMEOUT_MS',
  'WEBHOOK_FIRST_RETRY_MS',
  'WEBHOOK_GIVE_UP_S',
  'WEBHOOK_RETENTION_DAYS',
  'STREAM_HEARTBEAT_MS',
  'STREAM_POLL_MS',
  'MQTT_URL',
  'MQTT_TOPIC_PREFIX',
  'MQTT_DOOR_TOPIC',
  'MQTT_HOMEASSISTANT',
  'HEADERS_TIMEOUT_MS',
  'REQUEST_TIMEOUT_MS',
  'METRICS_PORT',
  'METRICS_HOST',
  'OIDC_ISSUER',
  'OIDC_CLIENT_ID',
  'OIDC_CLIENT_SECRET',
  'OIDC_NAME',
  'OIDC_CREATE_MEMBERS',
  'PASSWORD_LOGIN',
  'PASSKEYS',
  'APPS',
  'NODE_TEST_CONTEXT',
  'NODE_OPTIONS',
  'NODE_CLUSTER_SCHED_POLICY',
];

export type LogLine = Record<string, unknown> & { pid?: number; msg?: string };

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A `hackerspace-api` child process, its parsed log lines and its output. */
export interface Service {
  name: string;
  child: ChildProcess;
  pid: number;
  /** `http://127.0.0.1:<PORT>` */
  base: string;
  /** Standard output's JSON lines, parsed, as they arrive. */
  logs: LogLine[];
  exited: Promise<Exit>;
  stderr(): string;
  /** Everything it printed, for assertion messages. */
  output(): string;
  /** Resolves once `check` holds for a log line (or for the lines so far); fails on timeout or exit. */
  waitForLog(check: (line: LogLine) => boolean, what: string, timeoutMs?: number): Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with how it ended. */
  stop(graceMs?: number): Promise<Exit>;
}

const running = new Set<ChildProcess>();
/** Worker pids seen in logs, killed too if the test process ends with them alive. */
const descendants = new Set<number>();

// Should the test process itself end abruptly, take the services with it.
process.on('exit', () => killAll());

/** SIGKILL for every service still running, and every worker pid they logged. */
export function killAll(): void {
  for (const child of running) child.kill('SIGKILL');
  for (const pid of descendants) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A TCP port that nothing listened on a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

let counter = 0;

/** Starts `bin` (the installed command unless another copy's is given) with `args` and `env` over a cleaned environment. */
export async function startService(args: string[], env: Record<string, string>, bin = BIN): Promise<Service> {
  const inherited: Record<string, string | undefined> = { ...process.env };
  for (const name of CONFIG_VARIABLES) delete inherited[name];
  const child = spawn(process.execPath, [bin, ...args], {
    env: { ...inherited, HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const name = `${args.join(' ')} #${++counter}`;
  const logs: LogLine[] = [];
  let stdout = '';
  let stderr = '';
  let pending = '';
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const listener of [...listeners]) listener();
  };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      try {
        const parsed = JSON.parse(line) as LogLine;
        logs.push(parsed);
        if (typeof parsed.worker === 'number') descendants.add(parsed.worker);
      } catch {
        // not a log line
      }
    }
    notify();
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  let exitedWith: Exit | undefined;
  const exited = new Promise<Exit>((resolve) => {
    child.on('exit', (code, signal) => {
      running.delete(child);
      exitedWith = { code, signal };
      resolve(exitedWith);
      notify();
    });
  });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  const output = () => `--- ${name} stdout ---\n${stdout}\n--- stderr ---\n${stderr}`;
  return {
    name,
    child,
    pid: child.pid!,
    base: `http://127.0.0.1:${env.PORT}`,
    logs,
    exited,
    stderr: () => stderr,
    output,
    waitForLog(check, what, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const test = () => {
          if (logs.some(check)) return done();
          if (exitedWith) return done(new Error(`${name} exited (${JSON.stringify(exitedWith)}) before ${what}\n${output()}`));
        };
        const timer = setTimeout(() => done(new Error(`timed out waiting for ${what}\n${output()}`)), timeoutMs);
        const done = (error?: Error) => {
          clearTimeout(timer);
          listeners.delete(test);
          if (error) reject(error);
          else resolve();
        };
        listeners.add(test);
        test();
      });
    },
    async stop(graceMs = 8_000) {
      if (exitedWith) return exitedWith;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      const exit = await exited;
      clearTimeout(timer);
      return exit;
    },
  };
}

/** Polls `/api/` until it answers 200 (fails if the process exits, or after `timeoutMs`). */
export async function waitUntilServing(service: Service, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const exit = await Promise.race([service.exited, new Promise<undefined>((r) => setTimeout(r, 0, undefined))]);
    if (exit) throw new Error(`${service.name} exited (${JSON.stringify(exit)}) before serving\n${service.output()}`);
    try {
      const res = await request(service.base, '/api/');
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`${service.name} was not serving after ${timeoutMs / 1000} s\n${service.output()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// The fast path through nginx (issue 17 §5): cached reads answered by the service directly and
// through Debian's nginx configured by the shipped examples/nginx.conf, each beside the node:http
// ceiling (bench/ceiling.js) measured the same way, directly and through the same nginx.
//
//   node bench/proxy.js [--rounds N] [--seconds S] [--warmup S] [--no-pin]
//
// Expected duration on the 2-core development machine: about 1.5 minutes (3 rounds of 6
// measurements of 1 + 2 s, plus a small demo dataset built each run).
//
// Method (fixed before measuring; printed at the top of the report):
// - a small demo dataset (the fast path's cost does not depend on the data: the answer is kept
//   bytes) in a SQLite file of the run's folder, built with the CLI's `demo`;
// - the service is the bundle dist/hackerspace-api.mjs (copied when the run starts), started with
//   TRUST_PROXY=127.0.0.1 and LOG_LEVEL=warn; a door token is made with `token create`;
// - one nginx process (/usr/sbin/nginx, `master_process off`) serves two copies of
//   examples/nginx.conf, its upstream address and listen port replaced: one in front of the
//   service, one in front of the ceiling; the ceiling answers the bytes and headers the service
//   sent for that request through nginx (so both paths carry the same answer);
// - load is `wrk -t1 -c32` with bench/report.lua; wrk runs on the first CPU, the service, the
//   ceiling and nginx on the others (taskset; --no-pin turns it off);
// - every round measures, in turn: the service directly, the ceiling directly, the service
//   through nginx, the ceiling through nginx, and the service through nginx with the token; each
//   ratio is computed per round; the report shows the median of the rounds with their min–max;
// - before measuring, the run checks that the service answered the repeated reads from its fast
//   path: its info-level log (a second server, not measured) must say "request completed from
//   the response cache" for a request through nginx with and without the token.
import fs from 'node:fs';
import path from 'node:path';
import { Rounds, figure, render } from './lib/figures.js';
import { answerBytes, freePort, get, saveAnswer, waitFor200 } from './lib/http.js';
import { fail, log, sleep } from './lib/log.js';
import { IdleChecks, cpuPlacement, machineNote } from './lib/machine.js';
import { envInteger, parseOptions } from './lib/options.js';
import { run, runMain, start, stop } from './lib/processes.js';
import { currentProgram, serverEnvFactory } from './lib/program.js';
import { assertAlive, serverPool } from './lib/servers.js';
import { spread } from './lib/stats.js';
import { ensureWrk, measure } from './lib/wrk.js';

const BENCH = path.dirname(new URL(import.meta.url).pathname);
const ROOT = path.dirname(BENCH);
const OUT = path.join(BENCH, 'out');
const NGINX = '/usr/sbin/nginx';
const EXAMPLE = path.join(ROOT, 'examples/nginx.conf');
const TARGET = '/api/users/';
const PUBLIC_HOST = 'space.example.org';

const USAGE = `
Fast path through nginx: node bench/proxy.js [options]
Every figure is the median of --rounds rounds (at least 3) with min–max. Exit 0: done; 1: failure;
2: usage. Environment: WRK_CONNECTIONS (32).`;

const SPEC = {
  rounds: { type: 'string', integer: [3, 99], help: 'rounds per figure (default 3)' },
  seconds: { type: 'string', integer: [1, 600], help: 'measured seconds per measurement (default 2)' },
  warmup: { type: 'string', integer: [0, 60], help: 'warm-up seconds before each measurement (default 1)' },
  'no-pin': { type: 'boolean', help: 'let the scheduler place wrk and the servers' },
};

/** examples/nginx.conf in front of `upstreamPort`, listening on 127.0.0.1:`listenPort`, its upstream named `name`. */
function siteConfig(upstreamPort, listenPort, name) {
  let text = fs.readFileSync(EXAMPLE, 'utf8');
  for (const [from, to] of [
    ['server 127.0.0.1:8000;', `server 127.0.0.1:${upstreamPort};`],
    ['listen 80;', `listen 127.0.0.1:${listenPort};`],
    ['listen [::]:80;', ''],
  ]) {
    if (!text.includes(from)) fail(`${EXAMPLE} no longer contains ${JSON.stringify(from)}: update bench/proxy.js`);
    text = text.replace(from, to);
  }
  return text.replaceAll('hackerspace_api', name);
}

async function main() {
  const o = parseOptions(process.argv.slice(2), SPEC, USAGE);
  const cfg = { rounds: o.rounds ?? 3, seconds: o.seconds ?? 2, warmup: o.warmup ?? 1, connections: envInteger('WRK_CONNECTIONS', 32, 1) };
  if (!fs.existsSync(NGINX)) fail(`${NGINX} is missing: apt-get install nginx`);
  const t0 = performance.now();
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const work = path.join(OUT, `proxy-${stamp}`);
  fs.mkdirSync(work, { recursive: true });
  await ensureWrk(work);
  const env = serverEnvFactory(ROOT);
  const program = await currentProgram(ROOT, work);
  log(`program: ${program.description}`);
  const placement = cpuPlacement({ pin: !o['no-pin'], workers: 0 });
  log(`CPU placement: ${placement.text}`);

  // The dataset and a token.
  const dbUrl = `sqlite:${path.join(work, 'proxy.sqlite')}`;
  const cli = async (args, what) => {
    const result = await run(process.execPath, [program.cli, ...args], { env: env({ DATABASE_URL: dbUrl }) });
    if (result.code !== 0) fail(`${what} failed: ${result.stderr.trim().split('\n').slice(-3).join(' / ')}`);
    return result.stdout.trim();
  };
  await cli(['demo', '--users', '300', '--openings', '3000', '--projects', '30', '--events', '50', '--meetings', '30', '--replace'], 'the demo dataset');
  const token = await cli(['token', 'create', '--name', 'bench', '--scope', 'door'], 'token create');

  const idle = new IdleChecks();
  await idle.check('before the servers start');
  const pool = serverPool({ work, env, pin: placement.server });
  const api = await pool.start(program, 'api', 'api', dbUrl, { TRUST_PROXY: '127.0.0.1' });
  // Logging every request would cost throughput: the fast path is checked on a second server.
  const logged = await pool.start(program, 'api-logged', 'check', dbUrl, { TRUST_PROXY: '127.0.0.1', LOG_LEVEL: 'info' });

  // What the service answers through nginx, for the ceiling to answer too.
  const ceilingPort = await freePort();
  const [nginxApi, nginxCeiling, nginxLogged] = [await freePort(), await freePort(), await freePort()];
  const nginxDir = path.join(work, 'nginx');
  fs.mkdirSync(nginxDir, { recursive: true });
  const sites = [
    [api.port, nginxApi, 'hs_api'],
    [ceilingPort, nginxCeiling, 'hs_ceiling'],
    [logged.port, nginxLogged, 'hs_logged'],
  ].map(([upstream, listen, name]) => {
    const file = path.join(nginxDir, `${name}.conf`);
    fs.writeFileSync(file, siteConfig(upstream, listen, name));
    return `    include ${file};`;
  });
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => `    ${kind}_temp_path ${path.join(nginxDir, kind)};`);
  const nginxConf = path.join(nginxDir, 'nginx.conf');
  fs.writeFileSync(
    nginxConf,
    `pid ${path.join(nginxDir, 'nginx.pid')};\nevents { worker_connections 1024; }\nhttp {\n    access_log off;\n${temp.join('\n')}\n${sites.join('\n')}\n}\n`,
  );
  const nginxLog = path.join(work, 'nginx.log');
  const [nginxCommand, ...nginxArgs] = [...placement.server, NGINX, '-p', `${nginxDir}/`, '-c', nginxConf, '-e', 'stderr', '-g', 'daemon off; master_process off;'];
  const nginx = start(nginxCommand, nginxArgs, { logFile: nginxLog });
  const nginxServer = { name: 'nginx', child: nginx, logFile: nginxLog };
  const headers = { host: PUBLIC_HOST, 'accept-encoding': 'gzip, br' };
  const viaNginx = `http://127.0.0.1:${nginxApi}${TARGET}`;
  await waitFor200(viaNginx, nginx, 20, nginxLog);
  await get(viaNginx, headers);
  const answer = await get(viaNginx, headers);
  if (answer.status !== 200) fail(`${viaNginx}: ${answer.status}`);
  // The ceiling's saved answer: what the service sent, without nginx's own headers (nginx adds them again).
  const answerFile = path.join(work, 'answer');
  const direct = await get(`${api.base}${TARGET}`, { ...headers, 'x-forwarded-host': PUBLIC_HOST, 'x-forwarded-proto': 'http' });
  if (!direct.body.equals(answer.body)) fail('the service answers differently directly and through nginx');
  saveAnswer(answerFile, direct);
  const ceilingLog = path.join(work, 'ceiling.log');
  const [ceilingCommand, ...ceilingArgs] = [...placement.server, process.execPath, path.join(BENCH, 'ceiling.js'), String(ceilingPort), answerFile];
  const ceilingChild = start(ceilingCommand, ceilingArgs, { logFile: ceilingLog });
  const ceiling = { name: 'ceiling', child: ceilingChild, logFile: ceilingLog };
  await waitFor200(`http://127.0.0.1:${ceilingPort}/r/0`, ceilingChild, 10, ceilingLog);
  const ceilingViaNginx = await get(`http://127.0.0.1:${nginxCeiling}/r/0`, headers);
  if (!ceilingViaNginx.body.equals(answer.body)) fail('the ceiling through nginx does not send the service\u2019s body');

  // The fast path answers through nginx, with and without the token (the logged server's log says so).
  const completions = () =>
    fs
      .readFileSync(logged.logFile, 'utf8')
      .split('\n')
      .filter((l) => l.includes('"msg":"request completed'));
  let sent = completions().length;
  for (const extra of [{}, { authorization: `Token ${token}` }]) {
    const url = `http://127.0.0.1:${nginxLogged}${TARGET}`;
    for (let i = 0; i < 3; i++, sent++) await get(url, { ...headers, ...extra });
    const deadline = Date.now() + 10_000;
    while (completions().length < sent) {
      if (Date.now() > deadline) fail(`the logged server logged ${completions().length} of ${sent} requests (log ${logged.logFile})`);
      await sleep(50);
    }
    if (!completions().at(-1).includes('from the response cache')) {
      fail(`a repeated read through nginx${extra.authorization ? ' with a token' : ''} was not answered by the fast path (log ${logged.logFile})`);
    }
  }
  log('checked: repeated reads through nginx, with and without a token, are answered by the fast path');
  await pool.stop(logged);

  const targets = [
    ['direct', `${api.base}${TARGET}`, [`X-Forwarded-Host: ${PUBLIC_HOST}`, 'X-Forwarded-Proto: http'], direct, api],
    ['ceiling', `http://127.0.0.1:${ceilingPort}/r/0`, [], direct, ceiling],
    ['nginx', viaNginx, [`Host: ${PUBLIC_HOST}`], answer, nginxServer],
    ['nginx-ceiling', `http://127.0.0.1:${nginxCeiling}/r/0`, [`Host: ${PUBLIC_HOST}`], ceilingViaNginx, nginxServer],
    ['nginx-token', viaNginx, [`Host: ${PUBLIC_HOST}`, `Authorization: Token ${token}`], answer, nginxServer],
  ];
  const R = new Rounds();
  await idle.check('before the measurements');
  for (let r = 1; r <= cfg.rounds; r++) {
    for (const [name, url, extra, expected, server] of targets) {
      const m = await measure(url, {
        connections: cfg.connections,
        seconds: cfg.seconds,
        warmup: cfg.warmup,
        headers: ['Accept-Encoding: gzip, br', ...extra],
        status: 200,
        bytes: answerBytes(expected),
        pin: placement.load,
        file: path.join(work, `wrk-${name}-${r}.txt`),
        check: () => assertAlive(`${name} (round ${r})`, server, api, ceiling),
      });
      if (m.socketErrors) fail(`${name}: socket errors ${m.socketErrors}`);
      R.add(name, 'all', m.rps);
      log(`round ${r}: ${name} ${Math.round(m.rps)} req/s, p50 ${m.p50.toFixed(2)} ms`);
    }
  }
  await stop(ceilingChild);
  await stop(nginx);
  await pool.stop(api);

  const ratio = (a, b) => R.ratio(a, b, ['all']).all;
  const rps = (name) => figure('req/s', R.get(name));
  const rows = [
    {
      label: `service directly (X-Forwarded-* as nginx sends them)`,
      figures: [rps('direct'), figure('÷ its ceiling', { all: ratio('direct', 'ceiling') }, { digits: 3, kind: 'ceiling' })],
    },
    { label: 'node:http ceiling directly', figures: [rps('ceiling'), figure('÷ its ceiling', {}, { text: '—' })] },
    { label: 'service through nginx', figures: [rps('nginx'), figure('÷ its ceiling', { all: ratio('nginx', 'nginx-ceiling') }, { digits: 3, kind: 'ceiling' })] },
    { label: 'node:http ceiling through nginx', figures: [rps('nginx-ceiling'), figure('÷ its ceiling', {}, { text: '—' })] },
    {
      label: 'service through nginx, with a token',
      figures: [rps('nginx-token'), figure('÷ its ceiling', { all: ratio('nginx-token', 'nginx-ceiling') }, { digits: 3, kind: 'ceiling' })],
    },
  ];
  const report = [
    `# The fast path through nginx (bench/proxy.js)`,
    '',
    `- Program: ${program.description}; ${machineNote()}; nginx ${fs.existsSync(NGINX) ? (await run(NGINX, ['-v'])).stderr.trim().replace('nginx version: ', '') : '?'}.`,
    `- Read: \`GET ${TARGET}\` with \`Accept-Encoding: gzip, br\` (${answer.body.length} bytes of body, ${answer.headers['content-encoding'] ?? 'identity'}), cached; examples/nginx.conf in front (keepalive upstream).`,
    `- Load: \`wrk -t1 -c${cfg.connections}\`, ${cfg.warmup} s warm-up + ${cfg.seconds} s per measurement; ${cfg.rounds} rounds, each measuring every row in turn; median (min–max). CPU placement: ${placement.text}.`,
    `- ${idle.note()}`,
    '',
    render('answered by', rows, ['all']),
    '',
    `- Through nginx ÷ directly (the service): ${spread(ratio('nginx', 'direct'), 3)}; the ceiling: ${spread(ratio('nginx-ceiling', 'ceiling'), 3)}.`,
    `- Run time: ${Math.round((performance.now() - t0) / 1000)} s.`,
    '',
  ].join('\n');
  const reportFile = path.join(OUT, `proxy-${stamp}.md`);
  fs.writeFileSync(reportFile, report);
  process.stdout.write(`\n${report}\n(report: ${path.relative(ROOT, reportFile)})\n`);
  return 0;
}

await runMain('proxy', main);

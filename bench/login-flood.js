// The flood of bench/login.js: clients posting wrong passwords to the login form in a loop, each
// post from a client address of its own (X-Forwarded-For, which the server trusts from loopback)
// so that no throttling rule is reached and every post costs the server one password hash.
//
//   node bench/login-flood.js --base http://127.0.0.1:PORT --clients 50 --names bench-flood- --first-address N
//
// 1. each client GETs /accounts/login/ once (its pre-session CSRF cookie and the form's token,
//    kept for every post: the token is tied to the cookie, not to a request);
// 2. then POSTs, one at a time and as soon as the last one answered, `username` = <names><client,
//    3 digits>, a wrong password, the token, with the cookie, `Origin` = the site and
//    `X-Forwarded-For` = the next address of a counter from --first-address (10.x.y.z, one per
//    post: the 5-per-pair and 30-per-address rules never trip; the 100-per-name rule needs 100
//    posts per client within an hour);
// 3. prints `READY` once every client has its token and its first post is on its way, then a
//    JSON line of the answers so far by status ({"statuses": {"422": n, …}, "errors": n}) on each
//    SIGUSR2, and a last one on SIGTERM, after which it stops posting and exits (posts still in
//    flight are abandoned, not counted).
import http from 'node:http';

const args = Object.fromEntries(process.argv.slice(2).reduce((pairs, arg, i, all) => (arg.startsWith('--') ? [...pairs, [arg.slice(2), all[i + 1]]] : pairs), []));
const base = new URL(args.base);
const CLIENTS = Number(args.clients ?? 50);
const NAMES = args.names ?? 'bench-flood-';
let nextAddress = Number(args['first-address'] ?? 0);

const statuses = {};
let errors = 0;
let stopping = false;
const agents = [];

const address = () => {
  const n = nextAddress++ % 16_777_216;
  return `10.${n >>> 16}.${(n >>> 8) & 255}.${n & 255}`;
};

/** One request on the client's own keep-alive connection; resolves { status, headers, body }. */
function request(agent, method, path, headers, body) {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, base), { method, headers, agent, timeout: 300_000 }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end(body);
  });
}

function cookieOf(res, name) {
  for (const line of res.headers['set-cookie'] ?? []) {
    const m = new RegExp(`^${name}=([^;]*)`).exec(line);
    if (m) return m[1];
  }
  return null;
}

async function client(i, started) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  agents.push(agent);
  const form = await request(agent, 'GET', '/accounts/login/', {});
  const cookie = cookieOf(form, 'csrftoken');
  const token = /name="csrfmiddlewaretoken" value="([^"]*)"/.exec(form.body)?.[1];
  if (form.status !== 200 || !cookie || !token) throw new Error(`client ${i}: GET /accounts/login/ gave ${form.status} without a csrftoken cookie and a token`);
  const username = `${NAMES}${String(i).padStart(3, '0')}`;
  let first = true;
  while (!stopping) {
    const body = new URLSearchParams({ csrfmiddlewaretoken: token, username, password: `wrong-${nextAddress}` }).toString();
    const pending = request(
      agent,
      'POST',
      '/accounts/login/',
      {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: `csrftoken=${cookie}`,
        origin: base.origin,
        'x-forwarded-for': address(),
      },
      body,
    );
    if (first) {
      first = false;
      started();
    }
    try {
      const res = await pending;
      if (!stopping) statuses[res.status] = (statuses[res.status] ?? 0) + 1;
    } catch {
      if (!stopping) errors++;
    }
  }
}

const report = () => process.stdout.write(`${JSON.stringify({ statuses, errors })}\n`);
process.on('SIGUSR2', report);
process.on('SIGTERM', () => {
  stopping = true;
  report();
  for (const agent of agents) agent.destroy();
  process.exit(0);
});

let waiting = CLIENTS;
const started = () => {
  if (--waiting === 0) process.stdout.write('READY\n');
};
await Promise.all(Array.from({ length: CLIENTS }, (_, i) => client(i, started))).catch((error) => {
  process.stderr.write(`login-flood: ${error.message}\n`);
  process.exit(1);
});

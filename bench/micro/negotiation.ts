// Accept and Accept-Encoding negotiation as it is (src/drf/negotiation.ts acceptsJson,
// src/cache/content-coding.ts negotiateCoding) against the libraries that could do it:
// negotiator (jshttp, Express's) and @fastify/accept-negotiator. First where their answers
// differ from ours (the contract pins ours), then what each costs per request.
//
//   node --import tsx bench/micro/negotiation.ts        (ROUNDS=n to change the 7 rounds)
//
// The libraries are not dependencies: install them beside this script first, without touching
// the project's package.json (bench/micro/node_modules is ignored by git):
//   npm install --prefix bench/micro --no-save negotiator@1 @fastify/accept-negotiator@2
import { negotiateCoding } from '../../src/cache/content-coding.js';
import { preferredMedia } from '../../src/drf/negotiation.js';

/** What acceptsJson answered before HTML pages existed: whether the Accept admits JSON at all. */
const acceptsJson = (accept: string | undefined): boolean => preferredMedia(accept) !== null;
import { measure, report, type Contender } from './rounds.js';

type Libraries = {
  Negotiator: new (request: { headers: Record<string, string | undefined> }) => {
    mediaType(available: string[]): string | undefined;
    encoding(available: string[], options?: { preferred?: string[] }): string | undefined;
  };
  fastifyNegotiate: (header: string, supported: string[]) => string | null;
};
let libraries: Libraries;
try {
  // Not dependencies: loaded by names TypeScript does not resolve, so that typecheck passes without them.
  const names: string[] = ['negotiator', '@fastify/accept-negotiator'];
  const [negotiator, fastify] = await Promise.all(names.map((name) => import(name)));
  libraries = { Negotiator: negotiator.default, fastifyNegotiate: fastify.negotiate };
} catch (error) {
  console.error(
    `a library is not installed here (${(error as Error).message.split('\n')[0]}):\n  npm install --prefix bench/micro --no-save negotiator@1 @fastify/accept-negotiator@2`,
  );
  process.exit(1);
}
const { Negotiator, fastifyNegotiate } = libraries;

/** acceptsJson on negotiator: whether application/json is among the acceptable media types. */
const negotiatorAcceptsJson = (accept: string | undefined) => new Negotiator({ headers: { accept } }).mediaType(['application/json']) !== undefined;
/**
 * negotiateCoding on negotiator: br on a tie (`preferred`), x-gzip as gzip's old name (RFC 9110
 * §8.4.1.3, which negotiator does not know), identity when neither is acceptable.
 */
function negotiatorCoding(header: string | undefined): string {
  if (header === undefined || header === '') return 'identity';
  const coding = new Negotiator({ headers: { 'accept-encoding': header } }).encoding(['br', 'gzip', 'x-gzip'], { preferred: ['br', 'gzip', 'x-gzip'] });
  return coding === undefined ? 'identity' : coding === 'x-gzip' ? 'gzip' : coding;
}
/** The memo negotiateCoding keeps, in front of another parser: the same bound, the same clearing. */
function remembered(parse: (header: string) => string): (header: string | undefined) => string {
  const memo = new Map<string, string>();
  return (header) => {
    if (header === undefined || header === '') return 'identity';
    let coding = memo.get(header);
    if (coding === undefined) {
      coding = parse(header);
      if (memo.size >= 256) memo.clear();
      memo.set(header, coding);
    }
    return coding;
  };
}
const negotiatorRemembered = remembered(negotiatorCoding);
const fastifyCoding = (header: string | undefined) => (header ? (fastifyNegotiate(header, ['br', 'gzip']) ?? 'identity') : 'identity');

// Where the answers differ: the headers of the unit and contract tests, and a few more edges.
const ACCEPT_CHECKS: (string | undefined)[] = [
  undefined,
  '',
  '*/*',
  'application/*',
  'application/json',
  'application/json;q=0',
  'application/json;q=0.5;indent=4',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'text/html, application/json;q=0.9',
  'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'application/xml',
  'text/csv',
  'text/html',
  'garbage',
  'text/*',
  'image/png',
  'application/jsonx',
  'text/html, application/xml;q=0.9',
  '*/*;q=0',
  'application/json;q=0, */*',
];
const CODING_CHECKS: (string | undefined)[] = [
  undefined,
  'gzip, deflate, br',
  'gzip',
  'x-gzip',
  'br;q=0.1, gzip;q=0.5',
  'br;q=0, *',
  '*;q=0.3',
  'gzip;q=0, br;q=0',
  'identity',
  'deflate',
  'GZIP;Q=1',
  'br;q=1.0, gzip;q=0.8, *;q=0.1',
  'gzip;q=abc',
  'x-gzip, gzip;q=0',
  '*',
  'gzip;q=0.5, br;q=0.5',
];
console.log('Accept: where a library answers otherwise than acceptsJson');
for (const accept of ACCEPT_CHECKS) {
  const ours = acceptsJson(accept);
  const lib = negotiatorAcceptsJson(accept);
  if (lib !== ours) console.log(`  ${JSON.stringify(accept) ?? '(absent)'}: ours ${ours ? 'JSON' : '406'}, negotiator ${lib ? 'JSON' : '406'}`);
}
console.log('Accept-Encoding: where a library answers otherwise than negotiateCoding');
for (const header of CODING_CHECKS) {
  const ours = negotiateCoding(header);
  for (const [name, answer] of [
    ['negotiator (with x-gzip)', negotiatorCoding(header)],
    ['@fastify/accept-negotiator', fastifyCoding(header)],
  ]) {
    if (answer !== ours) console.log(`  ${JSON.stringify(header) ?? '(absent)'}: ours ${ours}, ${name} ${answer}`);
  }
}

const CURL = '*/*';
const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const ACCEPTS: Array<[string, string | undefined]> = [
  ['none', undefined],
  ['*/*', '*/*'],
  ['application/json', 'application/json'],
  ["a browser's", BROWSER],
  ['application/json;q=0', 'application/json;q=0'],
  ["curl's (*/*)", CURL],
];
const ENCODINGS = ['gzip, deflate, br', 'gzip', 'br;q=1.0, gzip;q=0.8, *;q=0.1', 'identity'];

/** A contender that calls `f` on the same header `ops` times and counts the truthy answers. */
function each<T>(name: string, header: T, f: (header: T) => unknown): Contender {
  return {
    name,
    run(ops) {
      let n = 0;
      for (let i = 0; i < ops; i++) if (f(header)) n++;
      return n;
    },
  };
}

for (const [label, accept] of ACCEPTS) {
  report(`Accept: ${label}`, measure([each('ours: acceptsJson', accept, acceptsJson), each('negotiator: mediaType', accept, negotiatorAcceptsJson)], 1_000_000));
}

// Every client sends one of a few headers, so negotiateCoding remembers its answers: a request
// costs a Map lookup. A header it has not seen (or one of more than 256 distinct headers) is
// parsed: that is the "new header" case, made by adding an unknown coding that changes nothing,
// with one of 1000 q-values (always the same name: a new name per header would also measure V8's
// hidden classes for ours, which keeps q-values in an object keyed by coding).
const NEW = 1000;
for (const header of ENCODINGS) {
  const fresh = Array.from({ length: NEW }, (_, i) => `${header}, x;q=0.${String(i).padStart(3, '0')}`);
  const rotating = (f: (h: string) => unknown) => (i: number) => f(fresh[i % NEW]);
  const fromFresh = (name: string, f: (h: string) => unknown): Contender => ({
    name,
    run(ops) {
      let n = 0;
      const g = rotating(f);
      for (let i = 0; i < ops; i++) if (g(i)) n++;
      return n;
    },
  });
  report(
    `Accept-Encoding: ${header}`,
    measure(
      [
        each('ours: negotiateCoding, remembered', header, negotiateCoding),
        fromFresh('ours: negotiateCoding, new header', negotiateCoding),
        each('negotiator behind the memo, remembered', header, negotiatorRemembered),
        fromFresh('negotiator behind the memo, new header', negotiatorRemembered),
        fromFresh('negotiator: encoding (no memo)', negotiatorCoding),
        fromFresh('@fastify/accept-negotiator', fastifyCoding),
      ],
      500_000,
    ),
  );
}

import path from 'node:path';
import { normalTag } from './i18n/languages.js';

/** Where the data lives. */
export type DatabaseTarget =
  | { engine: 'sqlite'; path: string }
  | {
      engine: 'postgres';
      /** The connection URL as given (it may hold a password: never log it; see `location`). */
      url: string;
      poolSize: number;
      /** Longest a statement may run, and longest a request waits for a connection, in ms. */
      statementTimeoutMs: number;
    };

export type AvatarField = 'avatar' | 'gravatar';
export type AvatarHash = 'md5' | 'sha256';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export interface Config {
  readonly database: DatabaseTarget;
  /** APPS: the apps turned on, by name (null: every installed app); the composition checks the names and adds those always on. */
  readonly apps: readonly string[] | null;
  readonly host: string;
  readonly port: number;
  /** Base of every absolute URL, without a trailing slash; null means "from the request". */
  readonly publicUrl: string | null;
  /** Passed to Fastify's trustProxy: false, true, or a comma-separated list of addresses/CIDRs. */
  readonly trustProxy: boolean | string;
  readonly timeZone: string;
  /** LANGUAGE_CODE: the space's language (pages for a browser that asks for none of ours, mails to members without a choice, the API's messages); `en` by default. */
  readonly languageCode: string;
  /** LANGUAGES: the languages offered, as tags (null: every language with a catalogue). */
  readonly languages: readonly string[] | null;
  /** The space's name on the web pages when no SpaceAPI file names it (SPACE_NAME); null: "Hackerspace". */
  readonly spaceName: string | null;
  readonly pageSize: number;
  readonly maxPageSize: number;
  readonly avatarField: AvatarField;
  readonly avatarHash: AvatarHash;
  readonly avatarDefault: string;
  readonly logLevel: LogLevel;
  /** Upper bound, in bytes, of the response bodies kept for repeated reads (0 disables). */
  readonly responseCacheBytes: number;
  /** Cache-Control of every GET/HEAD answer of the API (200 and 304). */
  readonly cacheControl: string;
  /** Bodies at least this long are sent compressed to clients that accept gzip or br. */
  readonly compressMinBytes: number;
  /** The operator's SpaceAPI file (absolute path), read and validated by apps/space/spaceapi/; null: no /spaceapi.json. */
  readonly spaceApiConfig: string | null;
  /** The push stream (GET /api/space/stream/). */
  readonly stream: StreamSettings;
  /** Webhooks for changes of the space's state; none when `urls` is empty. */
  readonly webhooks: WebhookSettings;
  /** The MQTT bridge (live/mqtt.ts); null when MQTT_URL is not set. */
  readonly mqtt: MqttSettings | null;
  /** How long a client may take to send a request (slow and hostile clients). */
  readonly requests: RequestTimeouts;
  /** The Prometheus listener (metrics/); null when METRICS_PORT is not set. */
  readonly metrics: MetricsSettings | null;
  /** Members' accounts, logins and mail (members.md). */
  readonly members: MemberSettings;
  /** The slate's money rules (ledger.md §1, §3). */
  readonly ledger: LedgerSettings;
}

export interface MemberSettings {
  /** PBKDF2 iterations of new and upgraded password hashes (PASSWORD_ITERATIONS; the original's default). */
  readonly passwordIterations: number;
  /** Password hashings waiting for a core at most (HASH_QUEUE); past it, 503. */
  readonly hashQueue: number;
  /** A session lasts this long from its last use (SESSION_DAYS). */
  readonly sessionDays: number;
  /** Sending invitations and resets (SMTP_URL, MAIL_FROM); null without mail. */
  readonly mail: MailSettings | null;
  /** Logging in with the space's OpenID provider (OIDC_*); null without OIDC_ISSUER. */
  readonly oidc: OidcSettings | null;
  /** PASSWORD_LOGIN: whether the login page offers the password form (false: only single sign-on). */
  readonly passwordLogin: boolean;
  /** PASSKEYS: whether members may add passkeys and log in with them (false: only the other ways, passkeys kept but unused). */
  readonly passkeys: boolean;
}

export interface OidcSettings {
  /** OIDC_ISSUER: the provider's issuer URL, as its discovery document names it. */
  readonly issuer: string;
  readonly clientId: string;
  /** OIDC_CLIENT_SECRET: never logged. */
  readonly clientSecret: string;
  /** OIDC_NAME: the provider as the login page names it ("Log in with …"). */
  readonly name: string;
  /** OIDC_CREATE_MEMBERS: a person the provider vouches for but no member matches becomes a member with no rights. */
  readonly createMembers: boolean;
}

export interface MailSettings {
  /** `smtp://host:port` or `smtps://…`, without credentials: fit for logs. */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** smtps: TLS from the start; smtp: STARTTLS when the server offers it. */
  readonly secure: boolean;
  /** From SMTP_URL's user part, decoded; null when it has none. */
  readonly username: string | null;
  /** From SMTP_URL's password part, decoded; never logged. */
  readonly password: string | null;
  /** MAIL_FROM: the sender's address. */
  readonly from: string;
}

export interface RequestTimeouts {
  /** A request's headers must all arrive within this (HEADERS_TIMEOUT_MS), else 408 and the connection closes. */
  readonly headersTimeoutMs: number;
  /** The whole request, body included, within this (REQUEST_TIMEOUT_MS); at least headersTimeoutMs. */
  readonly requestTimeoutMs: number;
}

export interface StreamSettings {
  /** A comment line this often on every stream (STREAM_HEARTBEAT_MS). */
  readonly heartbeatMs: number;
  /** SQLite: how often a process with stream clients looks for other processes' commits (STREAM_POLL_MS). */
  readonly pollMs: number;
}

export interface WebhookSettings {
  readonly urls: readonly string[];
  /** The HMAC key of X-Signature-256 (never logged); non-null whenever `urls` is not empty. */
  readonly secret: string | null;
  /** Longest wait for a receiver's answer to one attempt. */
  readonly timeoutMs: number;
  /** Delay before the first retry; each next one doubles (up to a minute). */
  readonly firstRetryMs: number;
  /** No retry starts later than this after the first attempt. */
  readonly giveUpMs: number;
  /** Delivered and abandoned deliveries are kept this long in the outbox, then pruned (WEBHOOK_RETENTION_DAYS). */
  readonly retentionMs: number;
}

export interface MqttSettings {
  /** The broker, `mqtt://host[:port]` or `mqtts://…`, without credentials: fit for logs. */
  readonly url: string;
  /** From MQTT_URL's user part, decoded; null when it has none. */
  readonly username: string | null;
  /** From MQTT_URL's password part, decoded; never logged. */
  readonly password: string | null;
  /** The service's topics are `<prefix>/state`, `<prefix>/state/open` and `<prefix>/status`. */
  readonly topicPrefix: string;
  /** A door sensor reports `open`/`closed` here; null: no door over MQTT. */
  readonly doorTopic: string | null;
  /** Publish Home Assistant's MQTT discovery config. */
  readonly homeAssistant: boolean;
}

export interface LedgerSettings {
  /** LEDGER_MAX_AMOUNT: the largest amount one form may move, in cents (500.00 by default). */
  readonly maxAmountCents: number;
  /** LEDGER_DEBT_LIMIT: how far below zero a balance may go, in cents (a negative number), or null for no limit (the original's). */
  readonly debtLimitCents: number | null;
  /** LEDGER_UNDO_MINUTES: how long a member may undo their own entry. */
  readonly undoMinutes: number;
  /** RECEIPT_MAX_MB: the largest receipt a treasurer may upload. */
  readonly receiptMaxBytes: number;
}

export interface MetricsSettings {
  /** METRICS_HOST: the address of the metrics listener, never the API's port. */
  readonly host: string;
  readonly port: number;
}

export const DEFAULT_DATABASE_FILE = 'data/hackerspace.sqlite';

/** Thrown for a bad environment variable; the message names the variable. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    reason: string,
  ) {
    super(`${variable}: ${reason}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function readDatabase(env: Env): DatabaseTarget {
  const value = env.DATABASE_URL;
  if (value === undefined || value.trim() === '') {
    return { engine: 'sqlite', path: path.resolve(DEFAULT_DATABASE_FILE) };
  }
  if (/^postgres(ql)?:\/\//i.test(value)) {
    try {
      new URL(value);
    } catch {
      throw new ConfigError('DATABASE_URL', 'is not a valid postgres://user:password@host:port/database URL');
    }
    return {
      engine: 'postgres',
      url: value.trim(),
      poolSize: readInteger(env, 'DATABASE_POOL_SIZE', 10, 1, 1000),
      statementTimeoutMs: readInteger(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 5000, 100, 3_600_000),
    };
  }
  const match = /^sqlite:(?:\/\/)?(.+)$/i.exec(value);
  if (!match) {
    throw new ConfigError('DATABASE_URL', `expected sqlite:<path> or postgres://…, got ${JSON.stringify(value.replace(/\/\/[^@/]*@/, '//…@'))}`);
  }
  const file = match[1];
  return { engine: 'sqlite', path: file === ':memory:' ? file : path.resolve(file) };
}

function readInteger(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\s*\d+\s*$/.test(raw)) throw new ConfigError(name, `expected a whole number, got ${JSON.stringify(raw)}`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function readChoice<T extends string>(env: Env, name: string, fallback: T, choices: readonly T[]): T {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = raw.trim().toLowerCase();
  if (!(choices as readonly string[]).includes(value)) {
    throw new ConfigError(name, `expected one of ${choices.join(', ')}, got ${JSON.stringify(raw)}`);
  }
  return value as T;
}

/** A header value: visible ASCII and spaces, no line breaks (it goes into every response). */
function readCacheControl(raw: string | undefined): string {
  if (raw === undefined || raw.trim() === '') return 'no-cache';
  const value = raw.trim();
  if (!/^[\x20-\x7e]+$/.test(value)) throw new ConfigError('CACHE_CONTROL', `expected a Cache-Control header value (printable ASCII), got ${JSON.stringify(raw)}`);
  return value;
}

function readPublicUrl(raw: string | undefined): string | null {
  if (raw === undefined || raw.trim() === '') return null;
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new ConfigError('PUBLIC_URL', `not an absolute URL: ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError('PUBLIC_URL', 'must start with http:// or https://');
  }
  if (url.search || url.hash) throw new ConfigError('PUBLIC_URL', 'must not contain a query or a fragment');
  return url.href.replace(/\/+$/, '');
}

function readTrustProxy(raw: string | undefined): boolean | string {
  if (raw === undefined || raw.trim() === '') return false;
  const value = raw.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(value)) return true;
  if (['false', '0', 'no', 'off'].includes(value)) return false;
  // A comma-separated list of proxy addresses or CIDR ranges.
  if (/^[0-9a-f:./,\s]+$/.test(value))
    return value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .join(',');
  throw new ConfigError('TRUST_PROXY', `expected true, false or a comma-separated list of proxy addresses, got ${JSON.stringify(raw)}`);
}

function readTimeZone(raw: string | undefined): string {
  const zone = raw === undefined || raw.trim() === '' ? 'UTC' : raw.trim();
  // UTC is always known; asking ICU would load its data (15–20 ms of a start) for nothing.
  if (zone === 'UTC') return zone;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
  } catch {
    throw new ConfigError('TIME_ZONE', `unknown IANA time zone ${JSON.stringify(raw)} (for example Europe/Brussels)`);
  }
  return zone;
}

/** LANGUAGE_CODE: one language tag (`fr-be`, `nl`); whether a catalogue has it is checked when the catalogues are read. */
function readLanguageCode(raw: string | undefined): string {
  if (raw === undefined || raw.trim() === '') return 'en';
  const tag = normalTag(raw);
  if (tag === null) throw new ConfigError('LANGUAGE_CODE', `expected a language tag (like fr-be or nl), got ${JSON.stringify(raw)}`);
  return tag;
}

/** LANGUAGES: comma-separated language tags (`fr,nl,en`); unset or blank means every language with a catalogue. */
function readLanguages(raw: string | undefined): readonly string[] | null {
  if (raw === undefined || raw.trim() === '') return null;
  const tags = raw.split(',').map((part) => normalTag(part));
  if (tags.some((tag) => tag === null)) throw new ConfigError('LANGUAGES', `expected comma-separated language tags (like fr,nl,en), got ${JSON.stringify(raw)}`);
  return Object.freeze([...new Set(tags as string[])]);
}

function readAvatarDefault(raw: string | undefined): string {
  if (raw === undefined || raw.trim() === '') return 'wavatar';
  const value = raw.trim();
  if (value.length > 2000) throw new ConfigError('AVATAR_DEFAULT', 'is too long');
  return value;
}

/**
 * The SpaceAPI file (YAML when its name ends in .yaml/.yml, else JSON). Its content is read and
 * checked when the server starts (apps/space/spaceapi/config-file.ts), not by every command.
 */
function readSpaceApiConfig(raw: string | undefined): string | null {
  if (raw === undefined || raw.trim() === '') return null;
  return path.resolve(raw.trim());
}

/** WEBHOOK_URLS: comma-separated absolute http(s) URLs (duplicates ignored). */
function readWebhookUrls(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === '') return [];
  const urls: string[] = [];
  for (const [index, item] of raw
    .split(',')
    .map((s) => s.trim())
    .entries()) {
    if (item === '') continue;
    let url: URL;
    try {
      url = new URL(item);
    } catch {
      throw new ConfigError('WEBHOOK_URLS', `item ${index + 1} is not an absolute URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new ConfigError('WEBHOOK_URLS', `item ${index + 1} must start with http:// or https://`);
    }
    try {
      // Credentials in the URL are sent as Basic authorization, decoded: check they decode now.
      decodeURIComponent(url.username);
      decodeURIComponent(url.password);
    } catch {
      throw new ConfigError('WEBHOOK_URLS', `item ${index + 1} has a user or password with a malformed %-escape`);
    }
    if (!urls.includes(url.href)) urls.push(url.href);
  }
  return urls;
}

function readWebhooks(env: Env): WebhookSettings {
  const urls = readWebhookUrls(env.WEBHOOK_URLS);
  // Used as given (the receivers must use the same bytes); never echoed in a message.
  const secret = env.WEBHOOK_SECRET === undefined || env.WEBHOOK_SECRET.trim() === '' ? null : env.WEBHOOK_SECRET;
  if (urls.length > 0 && secret === null) throw new ConfigError('WEBHOOK_SECRET', 'is required when WEBHOOK_URLS is set (the key that signs every delivery)');
  return Object.freeze({
    urls: Object.freeze<string[]>(urls),
    secret,
    timeoutMs: readInteger(env, 'WEBHOOK_TIMEOUT_MS', 5000, 10, 600_000),
    firstRetryMs: readInteger(env, 'WEBHOOK_FIRST_RETRY_MS', 1000, 10, 5000),
    giveUpMs: readInteger(env, 'WEBHOOK_GIVE_UP_S', 600, 1, 7 * 86_400) * 1000,
    retentionMs: readInteger(env, 'WEBHOOK_RETENTION_DAYS', 7, 1, 3650) * 86_400_000,
  });
}

/**
 * A broker's or server's URL, `<scheme>://[user[:password]@]host[:port]` (MQTT_URL, SMTP_URL). Its
 * credentials are split off (decoded) so that the URL kept can be logged; no message here repeats
 * the value.
 */
function readServiceUrl(name: string, raw: string, scheme: 'mqtt' | 'smtp'): { url: URL; loggable: string; username: string | null; password: string | null } {
  const value = raw.trim();
  const expected = `expected ${scheme}://[user:password@]host[:port] or ${scheme}s://…`;
  if (!new RegExp(`^${scheme}s?://`, 'i').test(value)) throw new ConfigError(name, expected);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(name, `is not a valid URL: ${expected}`);
  }
  if (url.hostname === '') throw new ConfigError(name, `has no host: ${expected}`);
  if ((url.pathname !== '' && url.pathname !== '/') || url.search !== '' || url.hash !== '') throw new ConfigError(name, 'must not have a path, a query or a fragment');
  let username: string;
  let password: string;
  try {
    username = decodeURIComponent(url.username);
    password = decodeURIComponent(url.password);
  } catch {
    throw new ConfigError(name, 'has a user or password with a malformed %-escape');
  }
  return { url, loggable: `${url.protocol}//${url.host}`, username: username === '' ? null : username, password: password === '' ? null : password };
}

/** A topic name the service publishes or subscribes to: levels separated by `/`, none empty, no wildcard. */
function readTopic(env: Env, name: string, fallback: string | null): string | null {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const topic = raw.trim();
  // eslint-disable-next-line no-control-regex
  if (topic.length > 200 || /[\u0000-\u001f\u007f]/.test(topic)) throw new ConfigError(name, 'must be at most 200 characters, without control characters');
  if (/[+#]/.test(topic)) throw new ConfigError(name, `must be a topic name, without the wildcards + and #, got ${JSON.stringify(topic)}`);
  if (topic.startsWith('$')) throw new ConfigError(name, `must not start with $ (the broker's own topics), got ${JSON.stringify(topic)}`);
  if (topic.split('/').includes('')) throw new ConfigError(name, `must not start or end with / nor have empty levels (//), got ${JSON.stringify(topic)}`);
  return topic;
}

function readMqtt(env: Env): MqttSettings | null {
  const prefix = readTopic(env, 'MQTT_TOPIC_PREFIX', null);
  const doorTopic = readTopic(env, 'MQTT_DOOR_TOPIC', null);
  const homeAssistant = readChoice(env, 'MQTT_HOMEASSISTANT', 'false', ['true', 'false'] as const) === 'true';
  if (env.MQTT_URL === undefined || env.MQTT_URL.trim() === '') {
    // Set without a broker, they would silently do nothing (a door that reports to no one).
    if (prefix !== null) throw new ConfigError('MQTT_TOPIC_PREFIX', 'is set but MQTT_URL is not');
    if (doorTopic !== null) throw new ConfigError('MQTT_DOOR_TOPIC', 'is set but MQTT_URL is not');
    if (homeAssistant) throw new ConfigError('MQTT_HOMEASSISTANT', 'is true but MQTT_URL is not');
    return null;
  }
  const topicPrefix = prefix ?? 'hackerspace';
  // The service would read its own retained messages as the door's reports.
  const published = [`${topicPrefix}/state`, `${topicPrefix}/state/open`, `${topicPrefix}/status`];
  if (doorTopic !== null && published.includes(doorTopic))
    throw new ConfigError('MQTT_DOOR_TOPIC', `must not be one of the topics the service publishes (${published.join(', ')})`);
  const { loggable, username, password } = readServiceUrl('MQTT_URL', env.MQTT_URL, 'mqtt');
  return Object.freeze({ url: loggable, username, password, topicPrefix, doorTopic, homeAssistant });
}

/**
 * METRICS_PORT turns the Prometheus listener on, on a port of its own: the API's port never
 * answers /metrics. METRICS_HOST defaults to loopback (the figures are for the operator).
 */
function readMetrics(env: Env): MetricsSettings | null {
  const host = (env.METRICS_HOST ?? '').trim();
  if (env.METRICS_PORT === undefined || env.METRICS_PORT.trim() === '') {
    if (host !== '') throw new ConfigError('METRICS_HOST', 'is set but METRICS_PORT is not');
    return null;
  }
  const port = readInteger(env, 'METRICS_PORT', 0, 1, 65535);
  const apiPort = readInteger(env, 'PORT', 8000, 0, 65535);
  if (port === apiPort) throw new ConfigError('METRICS_PORT', `must differ from PORT (${apiPort}): metrics are never served on the API's port`);
  return Object.freeze({ host: host || '127.0.0.1', port });
}

/** Reads and validates the environment once; the result is frozen. */
export function loadConfig(env: Env = process.env): Config {
  // 10,000 keeps a page's id list within SQLite's limit on bound parameters.
  const pageSize = readInteger(env, 'PAGE_SIZE', 100, 1, 10_000);
  const maxPageSize = readInteger(env, 'MAX_PAGE_SIZE', Math.max(1000, pageSize), 1, 10_000);
  if (maxPageSize < pageSize) {
    throw new ConfigError('MAX_PAGE_SIZE', `must be at least PAGE_SIZE (${pageSize}), got ${maxPageSize}`);
  }
  const host = (env.HOST ?? '').trim() || '127.0.0.1';
  return Object.freeze({
    database: Object.freeze(readDatabase(env)),
    host,
    port: readInteger(env, 'PORT', 8000, 0, 65535),
    publicUrl: readPublicUrl(env.PUBLIC_URL),
    trustProxy: readTrustProxy(env.TRUST_PROXY),
    timeZone: readTimeZone(env.TIME_ZONE),
    languageCode: readLanguageCode(env.LANGUAGE_CODE),
    languages: readLanguages(env.LANGUAGES),
    spaceName: readSpaceName(env.SPACE_NAME),
    pageSize,
    maxPageSize,
    avatarField: readChoice(env, 'AVATAR_FIELD', 'avatar', ['avatar', 'gravatar'] as const),
    avatarHash: readChoice(env, 'AVATAR_HASH', 'md5', ['md5', 'sha256'] as const),
    avatarDefault: readAvatarDefault(env.AVATAR_DEFAULT),
    logLevel: readChoice(env, 'LOG_LEVEL', 'info', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const),
    responseCacheBytes: readInteger(env, 'RESPONSE_CACHE_MB', 64, 0, 65_536) * 1024 * 1024,
    cacheControl: readCacheControl(env.CACHE_CONTROL),
    compressMinBytes: readInteger(env, 'COMPRESS_MIN_BYTES', 1024, 0, 1_073_741_824),
    spaceApiConfig: readSpaceApiConfig(env.SPACEAPI_CONFIG),
    stream: Object.freeze({
      heartbeatMs: readInteger(env, 'STREAM_HEARTBEAT_MS', 15_000, 10, 3_600_000),
      pollMs: readInteger(env, 'STREAM_POLL_MS', 100, 10, 60_000),
    }),
    webhooks: readWebhooks(env),
    mqtt: readMqtt(env),
    requests: readRequestTimeouts(env),
    metrics: readMetrics(env),
    members: readMembers(env),
    ledger: readLedger(env),
    apps: readApps(env.APPS),
  });
}

/** An amount of money as the original writes it (`500`, `12.50`, `-20`), in cents; `negative` allows a sign. */
function readCents(env: Env, name: string, negative: boolean): number | null {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return null;
  const m = /^\s*(-?)(\d{1,7})(?:[.,](\d{1,2}))?\s*$/.exec(raw);
  if (m === null || (m[1] === '-' && !negative)) {
    throw new ConfigError(name, `expected an amount with at most two decimals${negative ? ' (like -20.00)' : ' (like 500.00)'}, got ${JSON.stringify(raw)}`);
  }
  const cents = Number(m[2]) * 100 + Number((m[3] ?? '').padEnd(2, '0'));
  return m[1] === '-' ? -cents : cents;
}

function readLedger(env: Env): LedgerSettings {
  const maxAmountCents = readCents(env, 'LEDGER_MAX_AMOUNT', false) ?? 50_000;
  if (maxAmountCents < 1) throw new ConfigError('LEDGER_MAX_AMOUNT', 'must be more than 0');
  const debtLimitCents = readCents(env, 'LEDGER_DEBT_LIMIT', true);
  if (debtLimitCents !== null && debtLimitCents > 0)
    throw new ConfigError('LEDGER_DEBT_LIMIT', `is how far below zero a balance may go: 0 or less (like -20.00), got ${JSON.stringify(env.LEDGER_DEBT_LIMIT)}`);
  return Object.freeze({
    maxAmountCents,
    debtLimitCents,
    undoMinutes: readInteger(env, 'LEDGER_UNDO_MINUTES', 5, 0, 10_080),
    receiptMaxBytes: readInteger(env, 'RECEIPT_MAX_MB', 10, 1, 100) * 1024 * 1024,
  });
}

/** APPS: comma-separated app names (`users,space,events`); unset or blank means all. */
function readApps(raw: string | undefined): readonly string[] | null {
  if (raw === undefined || raw.trim() === '') return null;
  const names = raw.split(',').map((name) => name.trim());
  const bad = names.find((name) => !/^[a-z][a-z0-9_]{0,39}$/.test(name));
  if (bad !== undefined) throw new ConfigError('APPS', `expected comma-separated app names (like users,space,events), got ${JSON.stringify(bad)}`);
  return Object.freeze([...new Set(names)]);
}

function readMembers(env: Env): MemberSettings {
  return Object.freeze({
    passwordIterations: readInteger(env, 'PASSWORD_ITERATIONS', 1_200_000, 1000, 100_000_000),
    hashQueue: readInteger(env, 'HASH_QUEUE', 256, 0, 100_000),
    sessionDays: readInteger(env, 'SESSION_DAYS', 14, 1, 3650),
    mail: readMail(env),
    ...readLogins(env),
    passkeys: readChoice(env, 'PASSKEYS', 'true', ['true', 'false'] as const) === 'true',
  });
}

const OIDC_COMPANIONS = ['OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET', 'OIDC_NAME', 'OIDC_CREATE_MEMBERS'] as const;

/** OIDC_* and PASSWORD_LOGIN. No message repeats the client secret. */
function readLogins(env: Env): { oidc: OidcSettings | null; passwordLogin: boolean } {
  const passwordLogin = readChoice(env, 'PASSWORD_LOGIN', 'true', ['true', 'false'] as const) === 'true';
  const given = (name: string) => (env[name] ?? '').trim();
  if (given('OIDC_ISSUER') === '') {
    // Set without a provider, they would silently do nothing; without either, no one could log in.
    for (const name of OIDC_COMPANIONS) if (given(name) !== '') throw new ConfigError(name, 'is set but OIDC_ISSUER is not');
    if (!passwordLogin) throw new ConfigError('PASSWORD_LOGIN', 'is false but OIDC_ISSUER is not set: no one could log in');
    return { oidc: null, passwordLogin };
  }
  const issuer = readIssuer(given('OIDC_ISSUER'));
  if (given('OIDC_CLIENT_ID') === '') throw new ConfigError('OIDC_CLIENT_ID', 'is required with OIDC_ISSUER (the client id registered at the provider)');
  // Used as given, like WEBHOOK_SECRET: the provider compares the exact bytes.
  const clientSecret = env.OIDC_CLIENT_SECRET ?? '';
  if (clientSecret.trim() === '') throw new ConfigError('OIDC_CLIENT_SECRET', 'is required with OIDC_ISSUER (the client secret registered at the provider)');
  const name = given('OIDC_NAME') || 'single sign-on';
  // eslint-disable-next-line no-control-regex
  if (name.length > 100 || /[\u0000-\u001f\u007f]/.test(name)) throw new ConfigError('OIDC_NAME', 'must be at most 100 characters, without control characters');
  const createMembers = readChoice(env, 'OIDC_CREATE_MEMBERS', 'false', ['true', 'false'] as const) === 'true';
  return { oidc: Object.freeze({ issuer, clientId: given('OIDC_CLIENT_ID'), clientSecret, name, createMembers }), passwordLogin };
}

/** An https:// issuer; http:// only on the loopback interface (a provider on the same machine, for development and tests). */
function readIssuer(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('OIDC_ISSUER', `not an absolute URL: ${JSON.stringify(raw)}`);
  }
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) throw new ConfigError('OIDC_ISSUER', 'must start with https:// (http:// only for localhost)');
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '')
    throw new ConfigError('OIDC_ISSUER', 'must not contain credentials, a query or a fragment');
  return raw;
}

/** SMTP_URL: `smtp://[user:password@]host[:port]` or `smtps://…`; MAIL_FROM is then required. No message repeats the URL. */
function readMail(env: Env): MailSettings | null {
  const raw = (env.SMTP_URL ?? '').trim();
  const from = (env.MAIL_FROM ?? '').trim();
  if (raw === '') {
    if (from !== '') throw new ConfigError('MAIL_FROM', 'is set but SMTP_URL is not');
    return null;
  }
  const { url, loggable, username, password } = readServiceUrl('SMTP_URL', raw, 'smtp');
  // A bare address, without a display name or line breaks: it goes into a header.
  if (!/^[^\s@<>",]+@[^\s@<>",]+$/.test(from)) throw new ConfigError('MAIL_FROM', "is required with SMTP_URL: the sender's address, like space@example.org");
  const secure = url.protocol === 'smtps:';
  return Object.freeze({
    url: loggable,
    host: url.hostname.replace(/^\[|\]$/g, ''),
    port: url.port === '' ? (secure ? 465 : 587) : Number(url.port),
    secure,
    username,
    password,
    from,
  });
}

function readRequestTimeouts(env: Env): RequestTimeouts {
  const headersTimeoutMs = readInteger(env, 'HEADERS_TIMEOUT_MS', 10_000, 100, 600_000);
  const requestTimeoutMs = readInteger(env, 'REQUEST_TIMEOUT_MS', Math.max(30_000, headersTimeoutMs), 100, 3_600_000);
  // Node's server refuses a headers timeout above the request's (the headers are part of it).
  if (requestTimeoutMs < headersTimeoutMs) throw new ConfigError('REQUEST_TIMEOUT_MS', `must be at least HEADERS_TIMEOUT_MS (${headersTimeoutMs}), got ${requestTimeoutMs}`);
  return Object.freeze({ headersTimeoutMs, requestTimeoutMs });
}

function readSpaceName(raw: string | undefined): string | null {
  const name = (raw ?? '').trim();
  if (name === '') return null;
  // eslint-disable-next-line no-control-regex
  if (name.length > 100 || /[\u0000-\u001f\u007f]/.test(name)) throw new ConfigError('SPACE_NAME', 'must be at most 100 characters, without control characters');
  return name;
}

/** A config for tests and tools: defaults plus overrides, validated the same way. */
export function configFrom(overrides: Env): Config {
  return loadConfig(overrides);
}

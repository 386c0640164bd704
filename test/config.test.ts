import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';

const CLI = path.resolve(import.meta.dirname, '../bin/hackerspace-api.js');

function configError(env: Record<string, string>): ConfigError {
  try {
    loadConfig(env);
  } catch (error) {
    assert.ok(error instanceof ConfigError, `expected a ConfigError, got ${String(error)}`);
    return error;
  }
  assert.fail(`expected ${JSON.stringify(env)} to be rejected`);
}

describe('configuration from the environment', () => {
  it('has documented defaults', () => {
    const config = loadConfig({});
    assert.equal(config.database.engine, 'sqlite');
    assert.equal(config.database.path, path.resolve('data/hackerspace.sqlite'));
    assert.equal(config.port, 8000);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.publicUrl, null);
    assert.equal(config.trustProxy, false);
    assert.equal(config.timeZone, 'UTC');
    assert.equal(config.pageSize, 100);
    assert.equal(config.maxPageSize, 1000);
    assert.equal(config.avatarField, 'avatar');
    assert.equal(config.avatarHash, 'md5');
    assert.equal(config.avatarDefault, 'wavatar');
    assert.equal(config.logLevel, 'info');
    assert.equal(config.responseCacheBytes, 64 * 1024 * 1024);
    assert.equal(config.spaceApiConfig, null);
    assert.equal(config.mqtt, null);
    assert.equal(config.members.oidc, null);
    assert.equal(config.members.passwordLogin, true);
    assert.equal(config.members.passkeys, true);
    assert.ok(Object.isFrozen(config));
    const sso = loadConfig({ OIDC_ISSUER: 'http://localhost:9000/', OIDC_CLIENT_ID: 'c', OIDC_CLIENT_SECRET: 's' }).members.oidc;
    assert.deepEqual(sso, { issuer: 'http://localhost:9000/', clientId: 'c', clientSecret: 's', name: 'single sign-on', createMembers: false });
    assert.ok(Object.isFrozen(sso));
  });

  it('reads every variable', () => {
    const config = loadConfig({
      DATABASE_URL: 'sqlite:/tmp/x/db.sqlite',
      HOST: '0.0.0.0',
      PORT: '9000',
      PUBLIC_URL: 'https://space.example.org/incubator/',
      TRUST_PROXY: 'true',
      TIME_ZONE: 'Europe/Brussels',
      LANGUAGE_CODE: 'fr-BE',
      LANGUAGES: 'fr,nl,en',
      SPACE_NAME: ' UrLab ',
      PAGE_SIZE: '20',
      MAX_PAGE_SIZE: '50',
      AVATAR_FIELD: 'gravatar',
      AVATAR_HASH: 'sha256',
      AVATAR_DEFAULT: 'identicon',
      LOG_LEVEL: 'warn',
      RESPONSE_CACHE_MB: '0',
      CACHE_CONTROL: ' public, max-age=60 ',
      COMPRESS_MIN_BYTES: '0',
      SPACEAPI_CONFIG: '/etc/space/spaceapi.yaml',
      STREAM_HEARTBEAT_MS: '1000',
      STREAM_POLL_MS: '100',
      WEBHOOK_URLS: 'https://hooks.example.org/space',
      WEBHOOK_SECRET: 's3cret',
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_FIRST_RETRY_MS: '500',
      WEBHOOK_GIVE_UP_S: '60',
      MQTT_URL: 'mqtts://bridge:p%40ss@broker.example.org:8883',
      PASSWORD_ITERATIONS: '600000',
      HASH_QUEUE: '10',
      SESSION_DAYS: '30',
      SMTP_URL: 'smtp://mailer:p%3Ass@mail.example.org',
      MAIL_FROM: 'space@example.org',
      MQTT_TOPIC_PREFIX: ' spaces/urlab ',
      MQTT_DOOR_TOPIC: 'spaces/urlab/door',
      MQTT_HOMEASSISTANT: 'TRUE',
      HEADERS_TIMEOUT_MS: '2000',
      REQUEST_TIMEOUT_MS: '4000',
      METRICS_PORT: '9464',
      METRICS_HOST: '10.0.0.2',
      OIDC_ISSUER: 'https://sso.example.org/realms/space',
      OIDC_CLIENT_ID: ' hackerspace-api ',
      OIDC_CLIENT_SECRET: 'oidc s3cret',
      OIDC_NAME: 'Spacekey',
      OIDC_CREATE_MEMBERS: 'true',
      PASSWORD_LOGIN: 'false',
      PASSKEYS: 'false',
      APPS: ' events , users,events ',
      LEDGER_MAX_AMOUNT: '250.00',
      LEDGER_DEBT_LIMIT: '-20,50',
      LEDGER_UNDO_MINUTES: '10',
      RECEIPT_MAX_MB: '5',
    });
    assert.deepEqual(
      { ...config },
      {
        database: { engine: 'sqlite', path: '/tmp/x/db.sqlite' },
        apps: ['events', 'users'],
        host: '0.0.0.0',
        port: 9000,
        publicUrl: 'https://space.example.org/incubator',
        trustProxy: true,
        timeZone: 'Europe/Brussels',
        languageCode: 'fr-be',
        languages: ['fr', 'nl', 'en'],
        spaceName: 'UrLab',
        pageSize: 20,
        maxPageSize: 50,
        avatarField: 'gravatar',
        avatarHash: 'sha256',
        avatarDefault: 'identicon',
        logLevel: 'warn',
        responseCacheBytes: 0,
        cacheControl: 'public, max-age=60',
        compressMinBytes: 0,
        spaceApiConfig: '/etc/space/spaceapi.yaml',
        stream: { heartbeatMs: 1000, pollMs: 100 },
        webhooks: { urls: ['https://hooks.example.org/space'], secret: 's3cret', timeoutMs: 2000, firstRetryMs: 500, giveUpMs: 60_000, retentionMs: 7 * 86_400_000 },
        mqtt: {
          url: 'mqtts://broker.example.org:8883',
          username: 'bridge',
          password: 'p@ss',
          topicPrefix: 'spaces/urlab',
          doorTopic: 'spaces/urlab/door',
          homeAssistant: true,
        },
        requests: { headersTimeoutMs: 2000, requestTimeoutMs: 4000 },
        metrics: { host: '10.0.0.2', port: 9464 },
        members: {
          passwordIterations: 600_000,
          hashQueue: 10,
          sessionDays: 30,
          // STARTTLS on the submission port when none is given.
          mail: { url: 'smtp://mail.example.org', host: 'mail.example.org', port: 587, secure: false, username: 'mailer', password: 'p:ss', from: 'space@example.org' },
          oidc: { issuer: 'https://sso.example.org/realms/space', clientId: 'hackerspace-api', clientSecret: 'oidc s3cret', name: 'Spacekey', createMembers: true },
          passwordLogin: false,
          passkeys: false,
        },
        // ledger.md §1 and §3: amounts in cents; 5 MB of receipt.
        ledger: { maxAmountCents: 25_000, debtLimitCents: -2_050, undoMinutes: 10, receiptMaxBytes: 5 * 1024 * 1024 },
      },
    );
  });

  it('accepts sqlite:// and relative paths', () => {
    assert.deepEqual(loadConfig({ DATABASE_URL: 'sqlite:///srv/db.sqlite' }).database, { engine: 'sqlite', path: '/srv/db.sqlite' });
    assert.deepEqual(loadConfig({ DATABASE_URL: 'sqlite:rel/db.sqlite' }).database, { engine: 'sqlite', path: path.resolve('rel/db.sqlite') });
  });

  it('names the bad variable in every error', () => {
    const cases: [Record<string, string>, string, RegExp][] = [
      [{ PORT: 'eighty' }, 'PORT', /whole number/],
      [{ PORT: '70000' }, 'PORT', /between/],
      [{ PAGE_SIZE: '0' }, 'PAGE_SIZE', /between/],
      [{ PAGE_SIZE: '50', MAX_PAGE_SIZE: '10' }, 'MAX_PAGE_SIZE', /at least PAGE_SIZE/],
      [{ TIME_ZONE: 'Mars/Olympus' }, 'TIME_ZONE', /unknown IANA time zone/],
      [{ SPACE_NAME: 'x'.repeat(101) }, 'SPACE_NAME', /at most 100 characters/],
      [{ SPACE_NAME: 'Ur\nLab' }, 'SPACE_NAME', /without control characters/],
      [{ AVATAR_FIELD: 'picture' }, 'AVATAR_FIELD', /avatar, gravatar/],
      [{ AVATAR_HASH: 'sha1' }, 'AVATAR_HASH', /md5, sha256/],
      [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL', /info/],
      [{ RESPONSE_CACHE_MB: '-1' }, 'RESPONSE_CACHE_MB', /whole number/],
      [{ CACHE_CONTROL: 'no-cache\r\nSet-Cookie: x=1' }, 'CACHE_CONTROL', /printable ASCII/],
      [{ COMPRESS_MIN_BYTES: 'lots' }, 'COMPRESS_MIN_BYTES', /whole number/],
      [{ PUBLIC_URL: 'not a url' }, 'PUBLIC_URL', /absolute URL/],
      [{ PUBLIC_URL: 'ftp://x.org' }, 'PUBLIC_URL', /http/],
      [{ TRUST_PROXY: 'maybe' }, 'TRUST_PROXY', /true, false/],
      [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL', /sqlite:<path>/],
      [{ MQTT_URL: 'http://broker.example.org' }, 'MQTT_URL', /mqtt:\/\//],
      [{ SMTP_URL: 'http://mail.example.org', MAIL_FROM: 'a@b.org' }, 'SMTP_URL', /smtp:\/\//],
      [{ SMTP_URL: 'smtp://mail.example.org/x', MAIL_FROM: 'a@b.org' }, 'SMTP_URL', /path/],
      [{ SMTP_URL: 'smtp://mail.example.org' }, 'MAIL_FROM', /required/],
      [{ SMTP_URL: 'smtp://mail.example.org', MAIL_FROM: 'Space <a@b.org>' }, 'MAIL_FROM', /address/],
      [{ MAIL_FROM: 'a@b.org' }, 'MAIL_FROM', /SMTP_URL/],
      [{ PASSWORD_ITERATIONS: '10' }, 'PASSWORD_ITERATIONS', /between/],
      [{ MQTT_URL: 'mqtt://' }, 'MQTT_URL', /mqtt:\/\//],
      [{ MQTT_URL: 'mqtt://broker.example.org/space' }, 'MQTT_URL', /path/],
      [{ MQTT_URL: 'mqtt://broker.example.org?x=1' }, 'MQTT_URL', /query/],
      [{ MQTT_URL: 'mqtt://b', MQTT_TOPIC_PREFIX: 'space/+' }, 'MQTT_TOPIC_PREFIX', /wildcards/],
      [{ MQTT_URL: 'mqtt://b', MQTT_TOPIC_PREFIX: 'space/#' }, 'MQTT_TOPIC_PREFIX', /wildcards/],
      [{ MQTT_URL: 'mqtt://b', MQTT_TOPIC_PREFIX: '/space' }, 'MQTT_TOPIC_PREFIX', /empty levels/],
      [{ MQTT_URL: 'mqtt://b', MQTT_TOPIC_PREFIX: 'space/' }, 'MQTT_TOPIC_PREFIX', /empty levels/],
      [{ MQTT_URL: 'mqtt://b', MQTT_TOPIC_PREFIX: 'a//b' }, 'MQTT_TOPIC_PREFIX', /empty levels/],
      [{ MQTT_URL: 'mqtt://b', MQTT_TOPIC_PREFIX: '$SYS/space' }, 'MQTT_TOPIC_PREFIX', /\$/],
      [{ MQTT_URL: 'mqtt://b', MQTT_TOPIC_PREFIX: 'a\u0000b' }, 'MQTT_TOPIC_PREFIX', /control characters/],
      [{ MQTT_URL: 'mqtt://b', MQTT_DOOR_TOPIC: 'door/+/state' }, 'MQTT_DOOR_TOPIC', /wildcards/],
      [{ MQTT_URL: 'mqtt://b', MQTT_DOOR_TOPIC: 'door/' }, 'MQTT_DOOR_TOPIC', /empty levels/],
      [{ MQTT_URL: 'mqtt://b', MQTT_DOOR_TOPIC: 'hackerspace/state/open' }, 'MQTT_DOOR_TOPIC', /publishes/],
      [{ MQTT_URL: 'mqtt://b', MQTT_TOPIC_PREFIX: 'x', MQTT_DOOR_TOPIC: 'x/status' }, 'MQTT_DOOR_TOPIC', /publishes/],
      [{ MQTT_URL: 'mqtt://b', MQTT_HOMEASSISTANT: 'yes' }, 'MQTT_HOMEASSISTANT', /true, false/],
      [{ MQTT_DOOR_TOPIC: 'space/door' }, 'MQTT_DOOR_TOPIC', /MQTT_URL/],
      [{ MQTT_TOPIC_PREFIX: 'space' }, 'MQTT_TOPIC_PREFIX', /MQTT_URL/],
      [{ MQTT_HOMEASSISTANT: 'true' }, 'MQTT_HOMEASSISTANT', /MQTT_URL/],
      [{ OIDC_ISSUER: 'http://sso.example.org', OIDC_CLIENT_ID: 'c', OIDC_CLIENT_SECRET: 's' }, 'OIDC_ISSUER', /https:\/\//],
      [{ OIDC_ISSUER: 'https://sso.example.org?x=1', OIDC_CLIENT_ID: 'c', OIDC_CLIENT_SECRET: 's' }, 'OIDC_ISSUER', /query/],
      [{ OIDC_ISSUER: 'sso.example.org', OIDC_CLIENT_ID: 'c', OIDC_CLIENT_SECRET: 's' }, 'OIDC_ISSUER', /absolute URL/],
      [{ OIDC_ISSUER: 'https://sso.example.org', OIDC_CLIENT_SECRET: 's' }, 'OIDC_CLIENT_ID', /required/],
      [{ OIDC_ISSUER: 'https://sso.example.org', OIDC_CLIENT_ID: 'c' }, 'OIDC_CLIENT_SECRET', /required/],
      [{ OIDC_ISSUER: 'https://sso.example.org', OIDC_CLIENT_ID: 'c', OIDC_CLIENT_SECRET: 's', OIDC_CREATE_MEMBERS: 'yes' }, 'OIDC_CREATE_MEMBERS', /true, false/],
      [{ OIDC_CLIENT_ID: 'c' }, 'OIDC_CLIENT_ID', /OIDC_ISSUER/],
      [{ OIDC_NAME: 'Spacekey' }, 'OIDC_NAME', /OIDC_ISSUER/],
      [{ PASSWORD_LOGIN: 'false' }, 'PASSWORD_LOGIN', /no one could log in/],
      [{ PASSWORD_LOGIN: 'no' }, 'PASSWORD_LOGIN', /true, false/],
      [{ PASSKEYS: 'off' }, 'PASSKEYS', /true, false/],
    ];
    for (const [env, variable, reason] of cases) {
      const error = configError(env);
      assert.equal(error.variable, variable, JSON.stringify(env));
      assert.match(error.message, new RegExp(`^${variable}: `));
      assert.match(error.message, reason);
    }
  });

  it('reads a PostgreSQL URL with its pool size and statement timeout', () => {
    assert.deepEqual(loadConfig({ DATABASE_URL: 'postgres://u:secret@db:5432/space' }).database, {
      engine: 'postgres',
      url: 'postgres://u:secret@db:5432/space',
      poolSize: 10,
      statementTimeoutMs: 5000,
    });
    const tuned = loadConfig({ DATABASE_URL: 'postgresql://db/space', DATABASE_POOL_SIZE: '4', DATABASE_STATEMENT_TIMEOUT_MS: '800' });
    assert.deepEqual(tuned.database, { engine: 'postgres', url: 'postgresql://db/space', poolSize: 4, statementTimeoutMs: 800 });
    assert.equal(configError({ DATABASE_URL: 'postgres://db/x', DATABASE_POOL_SIZE: '0' }).variable, 'DATABASE_POOL_SIZE');
    // Credentials are sent decoded as Basic authorization: a malformed escape is caught at start.
    const webhook = configError({ WEBHOOK_URLS: 'https://bot:p%zz@hooks.example/x', WEBHOOK_SECRET: 's' });
    assert.equal(webhook.variable, 'WEBHOOK_URLS');
    assert.ok(!webhook.message.includes('p%zz'), 'the password is not repeated');
    assert.equal(configError({ DATABASE_URL: 'postgres://db/x', DATABASE_STATEMENT_TIMEOUT_MS: 'soon' }).variable, 'DATABASE_STATEMENT_TIMEOUT_MS');
  });

  it('never repeats a password in its messages', () => {
    const error = configError({ DATABASE_URL: 'mysql://u:secret@db:5432/space' });
    assert.equal(error.variable, 'DATABASE_URL');
    assert.doesNotMatch(error.message, /secret/);
    for (const url of [
      'mqtp://u:secret@broker',
      'mqtt://u:secret@broker/path',
      'mqtt://u:secret@broker?q',
      'mqtt://u:secret%zz@broker',
      'mqtt://u:secret@',
      'mqtt://u:secret@[broker',
    ]) {
      const mqtt = configError({ MQTT_URL: url });
      assert.equal(mqtt.variable, 'MQTT_URL', url);
      assert.doesNotMatch(mqtt.message, /secret/, url);
    }
  });

  it('reads MQTT_URL with its defaults, without credentials in the URL kept', () => {
    assert.deepEqual(loadConfig({ MQTT_URL: ' mqtt://127.0.0.1:1883/ ' }).mqtt, {
      url: 'mqtt://127.0.0.1:1883',
      username: null,
      password: null,
      topicPrefix: 'hackerspace',
      doorTopic: null,
      homeAssistant: false,
    });
    const config = loadConfig({ MQTT_URL: 'MQTT://door@Broker.Example.org', MQTT_HOMEASSISTANT: 'false' });
    assert.deepEqual({ ...config.mqtt }, { url: 'mqtt://Broker.Example.org', username: 'door', password: null, topicPrefix: 'hackerspace', doorTopic: null, homeAssistant: false });
    assert.ok(Object.isFrozen(config.mqtt));
    // Without MQTT_URL, MQTT_HOMEASSISTANT=false is harmless.
    assert.equal(loadConfig({ MQTT_HOMEASSISTANT: 'false' }).mqtt, null);
  });

  it('fails fast at start with the message and exit code 78', () => {
    const result = spawnSync(process.execPath, [CLI, 'serve'], {
      env: { ...process.env, TIME_ZONE: 'Nowhere/Atlantis', DATABASE_URL: 'sqlite::memory:' },
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(result.status, 78);
    assert.match(result.stderr, /configuration error: TIME_ZONE: unknown IANA time zone "Nowhere\/Atlantis"/);
    assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
  });
});

describe('request timeouts (slow clients)', () => {
  it('default to 10 s for the headers and 30 s for the whole request, frozen', () => {
    const { requests } = loadConfig({});
    assert.deepEqual(requests, { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000 });
    assert.ok(Object.isFrozen(requests));
  });

  it('reads HEADERS_TIMEOUT_MS and REQUEST_TIMEOUT_MS; the request timeout follows a longer headers timeout by default', () => {
    assert.deepEqual(loadConfig({ HEADERS_TIMEOUT_MS: '500', REQUEST_TIMEOUT_MS: '1000' }).requests, { headersTimeoutMs: 500, requestTimeoutMs: 1000 });
    assert.deepEqual(loadConfig({ HEADERS_TIMEOUT_MS: '60000' }).requests, { headersTimeoutMs: 60_000, requestTimeoutMs: 60_000 });
  });

  it('rejects values that are not whole numbers in range, and a request timeout below the headers timeout', () => {
    assert.match(configError({ HEADERS_TIMEOUT_MS: '10s' }).message, /^HEADERS_TIMEOUT_MS: expected a whole number/);
    assert.match(configError({ HEADERS_TIMEOUT_MS: '0' }).message, /^HEADERS_TIMEOUT_MS: must be between 100 and 600000/);
    assert.match(configError({ REQUEST_TIMEOUT_MS: '-1' }).message, /^REQUEST_TIMEOUT_MS: expected a whole number/);
    assert.match(configError({ HEADERS_TIMEOUT_MS: '5000', REQUEST_TIMEOUT_MS: '4000' }).message, /^REQUEST_TIMEOUT_MS: must be at least HEADERS_TIMEOUT_MS \(5000\), got 4000/);
  });
});

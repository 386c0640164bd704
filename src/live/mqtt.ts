import { randomBytes } from 'node:crypto';
import type { IClientPublishOptions, MqttClient } from 'mqtt';
import type { MqttSettings } from '../config.js';
import type { DatabaseHandle } from '../db/connection.js';
import { json } from '../json.js';
import { currentSpaceState, spaceStatusRecord, type SpaceState } from '../apps/space/openings.js';
import type { TimeFormatter } from '../time.js';
import { reportDoor } from '../apps/space/live/door.js';
import type { AnnouncedWrites } from './writes.js';

export interface MqttLog {
  debug(object: object, message: string): void;
  info(object: object, message: string): void;
  warn(object: object, message: string): void;
  error(object: object, message: string): void;
}

/** The first wait before connecting again after a failure; each next one doubles, up to the maximum. */
export const FIRST_RECONNECT_MS = 1000;
export const MAX_RECONNECT_MS = 30_000;
/** Shutdown: longest wait for the broker to take `offline`, and then the disconnection. */
const CLOSE_GRACE_MS = 2000;
/** Every message the service publishes: kept by the broker for later subscribers, delivered at least once. */
const RETAINED: IClientPublishOptions = { qos: 1, retain: true };
/** How much of an unreadable door message goes into the log. */
const LOGGED_PAYLOAD_CHARS = 40;

export const ONLINE = 'online';
export const OFFLINE = 'offline';

/** The topics under MQTT_TOPIC_PREFIX. */
export function mqttTopics(prefix: string): { state: string; open: string; status: string } {
  return { state: `${prefix}/state`, open: `${prefix}/state/open`, status: `${prefix}/status` };
}

/** A door sensor's report: `open`/`true`/`1` or `closed`/`false`/`0`, trimmed, in any case; null for anything else. */
export function parseDoorPayload(payload: Buffer): boolean | null {
  if (payload.length > 32) return null;
  const text = payload.toString('utf8').trim().toLowerCase();
  if (text === 'open' || text === 'true' || text === '1') return true;
  if (text === 'closed' || text === 'false' || text === '0') return false;
  return null;
}

/** The body of `<prefix>/state`: exactly the body of `/api/space/status/`. */
export function stateBody(state: SpaceState, times: TimeFormatter): Buffer {
  return json(spaceStatusRecord(state, { time: (micros) => times.format(micros) }));
}

/**
 * `<prefix>/state/open`: `true` or `false`; while no state was ever recorded, an empty message,
 * which deletes a retained value (so that a subscriber never reads a stale one as current).
 */
export function openPayload(state: SpaceState): Buffer {
  return Buffer.from(state.isOpen === null ? '' : String(state.isOpen));
}

/**
 * Home Assistant's MQTT discovery: one binary sensor (a door: on is open) for the space, available
 * while the service's status is `online`, with the status body's fields as attributes.
 */
export function homeAssistantDiscovery(prefix: string, spaceName: string): { topic: string; payload: Buffer } {
  const topics = mqttTopics(prefix);
  // Discovery's node and object ids allow [a-zA-Z0-9_-] only.
  const nodeId = prefix.replace(/[^a-zA-Z0-9_-]/g, '_');
  const config = {
    name: 'Door',
    unique_id: `hackerspace_api_${nodeId}_open`,
    state_topic: topics.open,
    payload_on: 'true',
    payload_off: 'false',
    device_class: 'door',
    json_attributes_topic: topics.state,
    availability_topic: topics.status,
    payload_available: ONLINE,
    payload_not_available: OFFLINE,
    qos: 1,
    device: { identifiers: [`hackerspace_api_${nodeId}`], name: spaceName, manufacturer: 'hackerspace-api', model: 'hackerspace-api' },
  };
  return { topic: `homeassistant/binary_sensor/${nodeId}/config`, payload: json(config) };
}

/** A message's start, for a log line: never more than a few dozen characters of it. */
function preview(payload: Buffer): string {
  const text = payload.subarray(0, LOGGED_PAYLOAD_CHARS * 4).toString('utf8');
  return text.length > LOGGED_PAYLOAD_CHARS || payload.length > LOGGED_PAYLOAD_CHARS * 4 ? `${text.slice(0, LOGGED_PAYLOAD_CHARS)}…` : text;
}

function errorOf(error: unknown): { error: string } {
  const err = error as { code?: unknown; message?: unknown };
  return { error: typeof err.code === 'string' ? err.code : String(err.message ?? error) };
}

export interface MqttBridgeOptions {
  settings: MqttSettings;
  database: DatabaseHandle;
  times: TimeFormatter;
  /** The door's reports over MQTT are recorded through these, as the HTTP door's are. */
  writes: AnnouncedWrites;
  /** Home Assistant's device name: the space's name, as on the web pages. */
  spaceName: string;
  log: MqttLog;
}

/**
 * The MQTT bridge (MQTT_URL). It publishes the space's state, retained, on `<prefix>/state` (the
 * body of /api/space/status/) and `<prefix>/state/open` (`true`/`false`): on every change this
 * process commits (`changed`, called by SpaceLive after the stream and the webhooks, so that with
 * several processes each change is published once, by the process that recorded it), and on every
 * connection, read afresh from the database (any process: a restarted broker may have lost
 * everything). `<prefix>/status` is `online` while connected, `offline` otherwise (the last will,
 * and on shutdown). With MQTT_HOMEASSISTANT, the discovery config is published on each connection.
 *
 * With MQTT_DOOR_TOPIC, the door's reports on that topic are recorded by the door's transaction
 * (apps/space/live/door.ts: change-only, audited, streamed, sent to webhooks), one at a time in their order.
 *
 * Nothing here waits for the broker: publishing is fire-and-forget after the commit, and while the
 * broker is away changes are not queued (the connection publishes the state it then reads). The
 * client reconnects after 1 s, then 2, 4… up to 30 s between attempts.
 */
export class MqttBridge {
  private client: MqttClient | null = null;
  private readonly topics: ReturnType<typeof mqttTopics>;
  private readonly clientId = `hackerspace-${randomBytes(5).toString('hex')}`;
  private closed = false;
  private reconnectMs = FIRST_RECONNECT_MS;
  /** The state's publications, one at a time, in the order of the changes. */
  private publishing: Promise<void> = Promise.resolve();
  /** The door's reports, recorded one at a time, in the order received. */
  private reports: Promise<void> = Promise.resolve();
  /** Counts connections: a read of the state for an earlier one is not published. */
  private connection = 0;
  private syncRetry: NodeJS.Timeout | null = null;
  private syncRetryMs = FIRST_RECONNECT_MS;

  constructor(private readonly options: MqttBridgeOptions) {
    this.topics = mqttTopics(options.settings.topicPrefix);
  }

  /** Whether the broker is connected now (for tests and logs). */
  get connected(): boolean {
    return this.client?.connected ?? false;
  }

  /** Connects (in the background: the broker may well be down; it is tried again and again). */
  async start(): Promise<void> {
    if (this.client !== null || this.closed) return;
    // Loaded when a broker is configured, not at every start: MQTT.js and its transports are a
    // fifth of the bundle (scripts/build.mjs splits dynamic imports into chunks of their own).
    // `default`: a CommonJS package's exports object, both in Node and in the bundle's chunk (where
    // esbuild gives a dynamically imported CommonJS module no named exports).
    const { connect } = (await import('mqtt')).default;
    if (this.client !== null || this.closed) return;
    const { settings, log } = this.options;
    const client = connect(settings.url, {
      clientId: this.clientId,
      username: settings.username ?? undefined,
      password: settings.password ?? undefined,
      clean: true,
      keepalive: 30,
      connectTimeout: 10_000,
      reconnectPeriod: FIRST_RECONNECT_MS,
      // A broker refusing us (not authorized, unavailable) may change its mind: keep trying.
      reconnectOnConnackError: true,
      // Subscriptions are made again on each connection (onConnect).
      resubscribe: false,
      will: { topic: this.topics.status, payload: Buffer.from(OFFLINE), qos: 1, retain: true },
    });
    this.client = client;
    client.on('connect', () => this.onConnect(client));
    client.on('reconnect', () => {
      // The period MQTT.js waits after the next failure: the backoff grows with each attempt.
      this.reconnectMs = Math.min(this.reconnectMs * 2, MAX_RECONNECT_MS);
      client.options.reconnectPeriod = this.reconnectMs;
    });
    client.on('error', (error) => {
      if (!this.closed) log.warn({ broker: settings.url, ...errorOf(error), retryInMs: client.options.reconnectPeriod }, 'MQTT: cannot reach the broker; retrying');
    });
    let wasConnected = false;
    client.on('connect', () => (wasConnected = true));
    client.on('close', () => {
      if (wasConnected && !this.closed) log.warn({ broker: settings.url, retryInMs: client.options.reconnectPeriod }, 'MQTT: connection to the broker lost; reconnecting');
      wasConnected = false;
    });
    client.on('message', (topic, payload) => this.onMessage(topic, payload));
    log.info({ broker: settings.url, clientId: this.clientId, prefix: settings.topicPrefix, door: settings.doorTopic }, 'MQTT: connecting');
  }

  /** After the commit of a change of the space's state by this process (never throws, never waits). */
  readonly changed = (state: SpaceState): void => {
    if (this.closed) {
      this.options.log.warn({ id: state.id }, 'MQTT: a change committed during shutdown was not published');
      return;
    }
    // While disconnected nothing is queued: the next connection publishes what the database says then.
    if (!this.connected) return;
    this.enqueue(() => this.publishState(state));
  };

  /** Publishes `offline` on the status topic, then disconnects cleanly (a clean disconnection sends no last will). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.syncRetry) clearTimeout(this.syncRetry);
    this.syncRetry = null;
    const client = this.client;
    if (client === null) return;
    // Door reports already received are recorded (the database closes after this).
    await this.reports;
    const clean = client.connected && (await bounded(client.publishAsync(this.topics.status, OFFLINE, RETAINED))) && (await bounded(client.endAsync(false)));
    if (clean) return;
    // Not connected, or the broker does not answer: drop the connection (its last will says `offline`).
    if (client.connected) this.options.log.warn({ broker: this.options.settings.url }, 'MQTT: the broker did not acknowledge "offline" at shutdown');
    client.end(true);
    client.stream?.destroy();
  }

  private onConnect(client: MqttClient): void {
    if (this.closed) return;
    const { settings, log } = this.options;
    this.reconnectMs = FIRST_RECONNECT_MS;
    client.options.reconnectPeriod = FIRST_RECONNECT_MS;
    const connection = ++this.connection;
    log.info({ broker: settings.url, clientId: this.clientId }, 'MQTT: connected');
    // Subscribed before saying `online` (the broker takes a client's packets in order): once
    // `online` is out, door reports are heard. The status topic: another process's last will (or
    // shutdown) says `offline` while this one still serves; it says `online` again (onMessage).
    const subscriptions: Record<string, { qos: 0 | 1 }> = { [this.topics.status]: { qos: 1 } };
    if (settings.doorTopic !== null) subscriptions[settings.doorTopic] = { qos: 1 };
    client.subscribe(subscriptions, (error) => {
      if (error && !this.closed) log.error({ broker: settings.url, ...errorOf(error) }, 'MQTT: could not subscribe');
    });
    if (settings.homeAssistant) {
      const discovery = homeAssistantDiscovery(settings.topicPrefix, this.options.spaceName);
      this.publish(discovery.topic, discovery.payload);
    }
    this.publish(this.topics.status, Buffer.from(ONLINE));
    this.syncRetryMs = FIRST_RECONNECT_MS;
    this.sync(connection);
  }

  /** Publishes the current state, read afresh (after a reconnection the broker may have lost it). */
  private sync(connection: number): void {
    this.enqueue(async () => {
      if (this.closed || connection !== this.connection || !this.connected) return;
      let state: SpaceState;
      try {
        state = await currentSpaceState(this.options.database.db);
      } catch (error) {
        if (this.closed || connection !== this.connection) return;
        this.options.log.warn({ ...errorOf(error), retryInMs: this.syncRetryMs }, 'MQTT: cannot read the space state to publish it; retrying');
        this.syncRetry = setTimeout(() => {
          this.syncRetry = null;
          this.sync(connection);
        }, this.syncRetryMs);
        this.syncRetryMs = Math.min(this.syncRetryMs * 2, MAX_RECONNECT_MS);
        return;
      }
      if (connection === this.connection) this.publishState(state);
    });
  }

  private enqueue(task: () => void | Promise<void>): void {
    this.publishing = this.publishing.then(task).catch((error: unknown) => this.options.log.error({ err: error }, 'MQTT: could not publish the space state'));
  }

  private publishState(state: SpaceState): void {
    if (this.closed || !this.connected) return;
    this.publish(this.topics.state, stateBody(state, this.options.times));
    this.publish(this.topics.open, openPayload(state));
    this.options.log.debug({ id: state.id, is_open: state.isOpen }, 'MQTT: state published');
  }

  private publish(topic: string, payload: Buffer): void {
    this.client?.publish(topic, payload, RETAINED, (error) => {
      if (error && !this.closed) this.options.log.warn({ topic, ...errorOf(error) }, 'MQTT: a message was not published (it is published again on reconnection)');
    });
  }

  private onMessage(topic: string, payload: Buffer): void {
    if (this.closed) return;
    const { doorTopic } = this.options.settings;
    if (topic === this.topics.status) {
      if (payload.toString('utf8') === OFFLINE && this.connected) this.publish(this.topics.status, Buffer.from(ONLINE));
      return;
    }
    if (topic !== doorTopic) return;
    const isOpen = parseDoorPayload(payload);
    if (isOpen === null) {
      this.options.log.warn({ topic, bytes: payload.length, payload: preview(payload) }, 'MQTT: ignored a message on the door topic (expected open, closed, true, false, 1 or 0)');
      return;
    }
    this.reports = this.reports.then(() => this.recordReport(topic, isOpen));
  }

  private async recordReport(topic: string, isOpen: boolean): Promise<void> {
    try {
      const recorded = await reportDoor(
        this.options.writes,
        { isOpen },
        { timeUs: Date.now() * 1000, tokenId: null, tokenName: `mqtt:${topic}`, method: 'MQTT', path: topic, collection: 'space/openings', status: 201 },
      );
      this.options.log[recorded.created ? 'info' : 'debug']({ topic, is_open: isOpen, id: recorded.id, created: recorded.created }, 'MQTT: door report');
    } catch (error) {
      this.options.log.error({ topic, is_open: isOpen, ...errorOf(error) }, 'MQTT: could not record the door report');
    }
  }
}

/** Whether `promise` settled successfully within the shutdown's grace period. */
async function bounded(promise: Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(resolve, CLOSE_GRACE_MS, false)));
  try {
    return await Promise.race([promise.then(() => true), late]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

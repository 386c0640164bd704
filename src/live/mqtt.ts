import { randomBytes } from 'node:crypto';
import type { IClientPublishOptions, MqttClient } from 'mqtt';
import type { MqttSettings } from '../config.js';

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
/** How much of an unreadable message goes into the log (preview). */
const LOGGED_PAYLOAD_CHARS = 40;

export const ONLINE = 'online';
export const OFFLINE = 'offline';

/** `<prefix>/status`: `online` while the service is connected, `offline` otherwise. */
export function statusTopic(prefix: string): string {
  return `${prefix}/status`;
}

/** One retained message. */
export interface MqttMessage {
  readonly topic: string;
  readonly payload: Buffer;
}

/**
 * What an app publishes and hears over MQTT (the space's: apps/space/live/space-mqtt.ts): its
 * state, retained, on every change and on every connection, and the messages of one topic it
 * subscribes to.
 */
export interface MqttSource<State> {
  /** What the log calls the state (`the space state`). */
  readonly name: string;
  /** The state now, read afresh on each connection (a restarted broker may have lost everything). */
  current(): Promise<State>;
  /** The retained messages that say `state`, in the order they are published. */
  messages(state: State): readonly MqttMessage[];
  /** What a log line says of a state. */
  logged(state: State): object;
  /** Published, retained, on each connection before `online` (Home Assistant's discovery). */
  onConnect(): readonly MqttMessage[];
  /** The topic it subscribes to, and what a message on it does (one at a time, in the order received; never throws); null for none. */
  readonly hears: { readonly topic: string; hear(payload: Buffer): Promise<void> } | null;
}

/** A message's start, for a log line: never more than a few dozen characters of it. */
export function preview(payload: Buffer): string {
  const text = payload.subarray(0, LOGGED_PAYLOAD_CHARS * 4).toString('utf8');
  return text.length > LOGGED_PAYLOAD_CHARS || payload.length > LOGGED_PAYLOAD_CHARS * 4 ? `${text.slice(0, LOGGED_PAYLOAD_CHARS)}…` : text;
}

/** An error as a log line gives it: its code, else its message. */
export function errorOf(error: unknown): { error: string } {
  const err = error as { code?: unknown; message?: unknown };
  return { error: typeof err.code === 'string' ? err.code : String(err.message ?? error) };
}

export interface MqttBridgeOptions<State> {
  settings: MqttSettings;
  /** What is published and heard. */
  source: MqttSource<State>;
  log: MqttLog;
}

/**
 * The MQTT bridge (MQTT_URL). It publishes its source's state, retained (the space's: `<prefix>/state`
 * and `<prefix>/state/open`, apps/space/live/space-mqtt.ts): on every change this process commits
 * (`changed`, called by the app after the stream and the webhooks, so that with several processes
 * each change is published once, by the process that recorded it), and on every connection, read
 * afresh from the database (any process: a restarted broker may have lost everything).
 * `<prefix>/status` is `online` while connected, `offline` otherwise (the last will, and on
 * shutdown). The source's connection messages (Home Assistant's discovery) go out on each connection.
 *
 * The messages of the topic the source hears (the door's reports, MQTT_DOOR_TOPIC) are handed to
 * it one at a time in their order.
 *
 * Nothing here waits for the broker: publishing is fire-and-forget after the commit, and while the
 * broker is away changes are not queued (the connection publishes the state it then reads). The
 * client reconnects after 1 s, then 2, 4… up to 30 s between attempts.
 */
export class MqttBridge<State> {
  private client: MqttClient | null = null;
  private readonly status: string;
  private readonly clientId = `hackerspace-${randomBytes(5).toString('hex')}`;
  private closed = false;
  private reconnectMs = FIRST_RECONNECT_MS;
  /** The state's publications, one at a time, in the order of the changes. */
  private publishing: Promise<void> = Promise.resolve();
  /** The messages heard, handled one at a time, in the order received. */
  private reports: Promise<void> = Promise.resolve();
  /** Counts connections: a read of the state for an earlier one is not published. */
  private connection = 0;
  private syncRetry: NodeJS.Timeout | null = null;
  private syncRetryMs = FIRST_RECONNECT_MS;

  constructor(private readonly options: MqttBridgeOptions<State>) {
    this.status = statusTopic(options.settings.topicPrefix);
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
      will: { topic: this.status, payload: Buffer.from(OFFLINE), qos: 1, retain: true },
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

  /** After the commit of a change of the state by this process (never throws, never waits). */
  readonly changed = (state: State): void => {
    if (this.closed) {
      this.options.log.warn(this.options.source.logged(state), 'MQTT: a change committed during shutdown was not published');
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
    // Messages already received are handled (the database closes after this).
    await this.reports;
    const clean = client.connected && (await bounded(client.publishAsync(this.status, OFFLINE, RETAINED))) && (await bounded(client.endAsync(false)));
    if (clean) return;
    // Not connected, or the broker does not answer: drop the connection (its last will says `offline`).
    if (client.connected) this.options.log.warn({ broker: this.options.settings.url }, 'MQTT: the broker did not acknowledge "offline" at shutdown');
    client.end(true);
    client.stream?.destroy();
  }

  private onConnect(client: MqttClient): void {
    if (this.closed) return;
    const { settings, source, log } = this.options;
    this.reconnectMs = FIRST_RECONNECT_MS;
    client.options.reconnectPeriod = FIRST_RECONNECT_MS;
    const connection = ++this.connection;
    log.info({ broker: settings.url, clientId: this.clientId }, 'MQTT: connected');
    // Subscribed before saying `online` (the broker takes a client's packets in order): once
    // `online` is out, the source's topic (the door's reports) is heard. The status topic: another
    // process's last will (or shutdown) says `offline` while this one still serves; it says
    // `online` again (onMessage).
    const subscriptions: Record<string, { qos: 0 | 1 }> = { [this.status]: { qos: 1 } };
    if (source.hears !== null) subscriptions[source.hears.topic] = { qos: 1 };
    client.subscribe(subscriptions, (error) => {
      if (error && !this.closed) log.error({ broker: settings.url, ...errorOf(error) }, 'MQTT: could not subscribe');
    });
    for (const message of source.onConnect()) this.publish(message.topic, message.payload);
    this.publish(this.status, Buffer.from(ONLINE));
    this.syncRetryMs = FIRST_RECONNECT_MS;
    this.sync(connection);
  }

  /** Publishes the current state, read afresh (after a reconnection the broker may have lost it). */
  private sync(connection: number): void {
    this.enqueue(async () => {
      if (this.closed || connection !== this.connection || !this.connected) return;
      let state: State;
      try {
        state = await this.options.source.current();
      } catch (error) {
        if (this.closed || connection !== this.connection) return;
        this.options.log.warn({ ...errorOf(error), retryInMs: this.syncRetryMs }, `MQTT: cannot read ${this.options.source.name} to publish it; retrying`);
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
    this.publishing = this.publishing.then(task).catch((error: unknown) => this.options.log.error({ err: error }, `MQTT: could not publish ${this.options.source.name}`));
  }

  private publishState(state: State): void {
    if (this.closed || !this.connected) return;
    const { source, log } = this.options;
    for (const message of source.messages(state)) this.publish(message.topic, message.payload);
    log.debug(source.logged(state), 'MQTT: state published');
  }

  private publish(topic: string, payload: Buffer): void {
    this.client?.publish(topic, payload, RETAINED, (error) => {
      if (error && !this.closed) this.options.log.warn({ topic, ...errorOf(error) }, 'MQTT: a message was not published (it is published again on reconnection)');
    });
  }

  private onMessage(topic: string, payload: Buffer): void {
    if (this.closed) return;
    const { hears } = this.options.source;
    if (topic === this.status) {
      if (payload.toString('utf8') === OFFLINE && this.connected) this.publish(this.status, Buffer.from(ONLINE));
      return;
    }
    if (topic !== hears?.topic) return;
    this.reports = this.reports.then(() => hears.hear(payload));
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

import type { MqttSettings } from '../../../config.js';
import type { DatabaseHandle } from '../../../db/connection.js';
import { json } from '../../../json.js';
import { errorOf, OFFLINE, ONLINE, preview, statusTopic, type MqttLog, type MqttSource } from '../../../live/mqtt.js';
import type { AnnouncedWrites } from '../../../live/writes.js';
import type { TimeFormatter } from '../../../time.js';
import { currentSpaceState, spaceStatusRecord, type SpaceState } from '../openings.js';
import { reportDoor } from './door.js';

/** The topics under MQTT_TOPIC_PREFIX. */
export function mqttTopics(prefix: string): { state: string; open: string; status: string } {
  return { state: `${prefix}/state`, open: `${prefix}/state/open`, status: statusTopic(prefix) };
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

export interface SpaceMqttOptions {
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
 * The space over MQTT (live/mqtt.ts publishes it): its state, retained, on `<prefix>/state` (the
 * body of /api/space/status/) and `<prefix>/state/open` (`true`/`false`); with MQTT_HOMEASSISTANT,
 * the discovery config on each connection. With MQTT_DOOR_TOPIC, the door's reports on that topic
 * are recorded by the door's transaction (door.ts: change-only, audited, streamed, sent to
 * webhooks), one at a time in their order.
 */
export function spaceMqttSource(options: SpaceMqttOptions): MqttSource<SpaceState> {
  const { settings, database, times, writes, spaceName, log } = options;
  const topics = mqttTopics(settings.topicPrefix);
  const doorTopic = settings.doorTopic;
  return {
    name: 'the space state',
    current: () => currentSpaceState(database.db),
    messages: (state) => [
      { topic: topics.state, payload: stateBody(state, times) },
      { topic: topics.open, payload: openPayload(state) },
    ],
    logged: (state) => ({ id: state.id, is_open: state.isOpen }),
    onConnect: () => (settings.homeAssistant ? [homeAssistantDiscovery(settings.topicPrefix, spaceName)] : []),
    hears: doorTopic === null ? null : { topic: doorTopic, hear: (payload) => hearDoor(doorTopic, payload) },
  };

  async function hearDoor(topic: string, payload: Buffer): Promise<void> {
    const isOpen = parseDoorPayload(payload);
    if (isOpen === null) {
      log.warn({ topic, bytes: payload.length, payload: preview(payload) }, 'MQTT: ignored a message on the door topic (expected open, closed, true, false, 1 or 0)');
      return;
    }
    try {
      const recorded = await reportDoor(
        writes,
        { isOpen },
        { timeUs: Date.now() * 1000, tokenId: null, tokenName: `mqtt:${topic}`, method: 'MQTT', path: topic, collection: 'space/openings', status: 201 },
      );
      log[recorded.created ? 'info' : 'debug']({ topic, is_open: isOpen, id: recorded.id, created: recorded.created }, 'MQTT: door report');
    } catch (error) {
      log.error({ topic, is_open: isOpen, ...errorOf(error) }, 'MQTT: could not record the door report');
    }
  }
}

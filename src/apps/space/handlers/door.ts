/**
 * The door's transaction, shared by the API's `POST /api/space/openings/` (collections.ts) and the
 * original's `POST /space/change_status` (legacy-door.ts). It lives in apps/space/live/door.ts, below the
 * HTTP layer, because the MQTT door topic (live/space-mqtt.ts) records reports through it too.
 */
export { reportDoor, type DoorReport } from '../live/door.js';

import type { Json } from '../../../openapi/components.js';
import { DEFAULT_WEEKS, MAX_WEEKS } from '../opening-hours.js';

/** The space's parameters in the OpenAPI document (`#/components/parameters/<name>`): the hours' `weeks`, the stream's resumption. */
export const SPACE_PARAMETERS: Json = {
  weeks: {
    name: 'weeks',
    in: 'query',
    description: 'Over how many weeks before now; anything else is a 400',
    schema: { type: 'integer', minimum: 1, maximum: MAX_WEEKS, default: DEFAULT_WEEKS },
  },
  'Last-Event-ID': {
    name: 'Last-Event-ID',
    in: 'header',
    description: 'Resume after this event id (EventSource sends it by itself when it reconnects)',
    schema: { type: 'integer', minimum: 0 },
  },
  lastEventId: { name: 'lastEventId', in: 'query', description: 'The same, for a client that cannot set the header', schema: { type: 'integer', minimum: 0 } },
};

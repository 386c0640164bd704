import type { Json } from '../../openapi/components.js';
import { DEFAULT_EVENT_ORDER } from './events.js';

/** The events' parameters in the OpenAPI document (`#/components/parameters/<name>`): the list's `ordering`. */
export const EVENTS_PARAMETERS: Json = {
  ordering: {
    name: 'ordering',
    in: 'query',
    description: `Comma-separated fields among ${DEFAULT_EVENT_ORDER.map(({ field }) => `\`${field}\``).join(', ')}, \`-\` for descending; unknown ones are ignored. Default: \`${DEFAULT_EVENT_ORDER.map(({ field }) => field).join(',')}\`, then id.`,
    schema: { type: 'string' },
    example: '-start',
  },
};

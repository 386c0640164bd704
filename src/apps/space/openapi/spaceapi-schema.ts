import { SPACEAPI_SCHEMAS } from '../spaceapi/schema.js';
import type { Json } from '../../../openapi/components.js';

/**
 * The SpaceAPI schema `/spaceapi.json` is valid against, as schemas of `components.schemas`, so
 * the OpenAPI document stands alone (offline validators and code generators never fetch its
 * published address). The official schema is draft-07; OpenAPI 3.1's dialect is JSON Schema
 * 2020-12, so the keywords whose meaning changed are rewritten: `$schema` and `$id` dropped,
 * `definitions` moved into components and their `$ref`s with them, tuple `items` to
 * `prefixItems`, `dependencies` to `dependentRequired`/`dependentSchemas`.
 */

/** The version `/spaceapi.json` declares and is checked against at start. */
export const SPACEAPI_VERSION = '15';
/** Its name in `components.schemas`; a definition of the official schema becomes `SpaceApi<Name>`. */
export const SPACEAPI_SCHEMA_NAME = 'SpaceApi';

/** Keywords whose values are instances, not schemas: copied as they are. */
const INSTANCE_VALUES = new Set(['const', 'enum', 'examples', 'default']);

const componentRef = (name: string) => `#/components/schemas/${name}`;

/** The official schema's definitions' names in components (`#/definitions/sensor` → `SpaceApiSensor`). */
const definitionName = (name: string) => SPACEAPI_SCHEMA_NAME + name.replace(/(?:^|[\s_-])(\w)/g, (_, c: string) => c.toUpperCase());

function rewritten(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewritten);
  if (node === null || typeof node !== 'object') return node;
  const schema: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    if (key === '$schema' || key === '$id' || key === 'definitions') continue;
    if (INSTANCE_VALUES.has(key)) schema[key] = value as unknown;
    else if (key === '$ref') schema.$ref = localRef(value as string);
    else if (key === 'items' && Array.isArray(value)) schema.prefixItems = rewritten(value);
    else if (key === 'additionalItems') schema.items = rewritten(value);
    else if (key === 'dependencies') {
      for (const [property, dependency] of Object.entries(value as Json)) {
        const keyword = Array.isArray(dependency) ? 'dependentRequired' : 'dependentSchemas';
        schema[keyword] = { ...(schema[keyword] as Json | undefined), [property]: rewritten(dependency) };
      }
    } else if (key === 'properties' || key === 'patternProperties') {
      // Property names are the instance's keys, not keywords: only their schemas are rewritten.
      schema[key] = Object.fromEntries(Object.entries(value as Json).map(([name, inner]) => [name, rewritten(inner)]));
    } else schema[key] = rewritten(value);
  }
  return schema;
}

/** A `$ref` of the official schema, pointing into the document; anything else would leave the document. */
function localRef(ref: string): string {
  if (ref === '#') return componentRef(SPACEAPI_SCHEMA_NAME);
  const definition = /^#\/definitions\/([^/]+)$/.exec(ref);
  if (definition === null) throw new Error(`The SpaceAPI schema refers to ${ref}, which the OpenAPI document cannot hold`);
  return componentRef(definitionName(definition[1]));
}

/** `{SpaceApi: …, SpaceApi<Definition>: …}` for `components.schemas`. */
export function spaceApiSchemas(): Json {
  const official = SPACEAPI_SCHEMAS[SPACEAPI_VERSION] as Json;
  const schemas: Json = { [SPACEAPI_SCHEMA_NAME]: rewritten(official) };
  for (const [name, definition] of Object.entries((official.definitions ?? {}) as Json)) schemas[definitionName(name)] = rewritten(definition);
  return schemas;
}

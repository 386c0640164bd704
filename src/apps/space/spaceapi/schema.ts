import { Ajv2019, type ErrorObject, type ValidateFunction } from 'ajv/dist/2019.js';
import draft07 from 'ajv/dist/refs/json-schema-draft-07.json' with { type: 'json' };
import schema14 from './schema-14.json' with { type: 'json' };
import schema15 from './schema-15.json' with { type: 'json' };

/**
 * The SpaceAPI JSON Schemas, as published by the SpaceAPI project (SpaceApi/schema, commit
 * 85322b8), bundled into the build. They are draft-07 schemas that also use 2019-09's
 * `dependentRequired` (location: `lat` needs `lon` and the reverse), so they are compiled with
 * Ajv's 2019 build, which knows both.
 */
export const SPACEAPI_SCHEMAS = { '14': schema14, '15': schema15 } as const;
export type SpaceApiVersion = keyof typeof SPACEAPI_SCHEMAS;

/** The versions the published document claims, and is checked against at start. */
export const API_COMPATIBILITY: readonly SpaceApiVersion[] = ['14', '15'];

let validators: Record<SpaceApiVersion, ValidateFunction> | undefined;

/** Compiled once per process, on first use (a few tens of milliseconds). */
function compiled(): Record<SpaceApiVersion, ValidateFunction> {
  if (validators) return validators;
  const ajv = new Ajv2019({ allErrors: true, strict: false });
  ajv.addMetaSchema(draft07);
  validators = { '14': ajv.compile(schema14), '15': ajv.compile(schema15) };
  return validators;
}

/** The problems of `document` against one version's schema, in words; empty when it is valid. */
export function schemaProblems(document: unknown, version: SpaceApiVersion): string[] {
  const validate = compiled()[version];
  if (validate(document)) return [];
  return describeErrors(validate.errors ?? []);
}

/** Ajv's errors as `where: what` lines, without the noise of its internal schema paths. */
function describeErrors(errors: readonly ErrorObject[]): string[] {
  const lines: string[] = [];
  for (const error of errors) {
    const where = pathOf(error.instancePath);
    let line: string;
    if (error.keyword === 'required') {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      line = `${where === '' ? '' : where + '.'}${missing} is required`;
    } else if (error.keyword === 'dependentRequired') {
      const { property, missingProperty } = error.params as { property: string; missingProperty: string };
      line = `${where === '' ? '' : where + ': '}${missingProperty} is required when ${property} is given`;
    } else if (error.keyword === 'enum') {
      const allowed = (error.params as { allowedValues: unknown[] }).allowedValues;
      line = `${where || 'the document'} must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`;
    } else if (error.keyword === 'contains' && where === 'api_compatibility') {
      continue;
    } else {
      line = `${where || 'the document'} ${error.message ?? 'is invalid'}`;
    }
    if (!lines.includes(line)) lines.push(line);
  }
  return lines;
}

/** `/contact/keymasters/0/name` → `contact.keymasters[0].name` */
function pathOf(instancePath: string): string {
  let text = '';
  for (const raw of instancePath.split('/').slice(1)) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    text += /^\d+$/.test(segment) ? `[${segment}]` : (text === '' ? '' : '.') + segment;
  }
  return text;
}

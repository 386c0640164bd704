import fs from 'node:fs';
import { parseDocument } from 'yaml';
import { ConfigError, type Config } from '../../../config.js';
import { spaceApiDocument, type LiveParts } from './document.js';
import { API_COMPATIBILITY, schemaProblems, type SpaceApiVersion } from './schema.js';
import { KEYMASTER_FIELDS, type KeymasterField, type SpaceApiSetup } from './setup.js';

/** The variable naming the operator's file; every error about the file names it. */
export const SPACEAPI_VARIABLE = 'SPACEAPI_CONFIG';

export { KEYMASTER_FIELDS, type KeymasterField, type SpaceApiSetup } from './setup.js';

/** Keys of `state` that only the database knows. */
const LIVE_STATE_KEYS: Record<string, string> = {
  open: 'comes from the database (the latest opening)',
  lastchange: 'comes from the database (the time of the latest opening)',
  trigger_person: 'would name who changed the state last, which the database does not record',
};

const LIVE_OPTIONS = ['keymasters', 'keymaster_field'];

function fail(file: string, problem: string): never {
  throw new ConfigError(SPACEAPI_VARIABLE, `${file}: ${problem}`);
}

/**
 * Reads, checks and validates the operator's SpaceAPI file: JSON, or YAML when its name ends in
 * `.yaml`/`.yml`. Throws a ConfigError naming SPACEAPI_CONFIG and the file, saying every problem
 * found, so that a bad file stops the service at start rather than serving a broken document.
 */
export function readSpaceApiFile(file: string): SpaceApiSetup {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    fail(file, `cannot read the file (${(error as Error).message})`);
  }
  const parsed = /\.ya?ml$/i.test(file) ? parseYaml(file, text) : parseJson(file, text);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    fail(file, `the file must hold a mapping of the document's fields (space, logo, url, contact, …), got ${describeType(parsed)}`);
  }
  const { live, ...document } = parsed as Record<string, unknown>;
  const problems = [...serviceOwnedProblems(document), ...liveProblems(live)];
  const keymasters = keymasterField(live);
  if (keymasters !== null && isObject(document.contact) && 'keymasters' in document.contact) {
    problems.push('contact.keymasters comes from the database when live.keymasters is true: remove one of them');
  }
  if (problems.length > 0) fail(file, problems.join('; '));

  const draft = { file, document, keymasters, compatibility: API_COMPATIBILITY, notes: [] };
  // The live parts in every shape they can take: an open, a closed and an unknown state; key holders.
  const samples: LiveParts[] = [
    { isOpen: true, sinceUs: 1_700_000_000_000_000, keyHolders: ['keyholder'] },
    { isOpen: false, sinceUs: 0, keyHolders: [] },
    { isOpen: null, sinceUs: null, keyHolders: [] },
  ];
  // Every version the service supports is claimed when the document is valid for it; the newest must be.
  const newest = API_COMPATIBILITY[API_COMPATIBILITY.length - 1];
  const compatibility: SpaceApiVersion[] = [];
  const notes: string[] = [];
  for (const version of API_COMPATIBILITY) {
    const invalid = [...new Set(samples.flatMap((sample) => schemaProblems(spaceApiDocument(draft, sample), version)))];
    if (invalid.length === 0) compatibility.push(version);
    else if (version === newest) fail(file, `not a valid SpaceAPI ${version} document: ${invalid.join('; ')}`);
    else notes.push(`not valid for SpaceAPI ${version}, so api_compatibility leaves it out: ${invalid.join('; ')}`);
  }
  return Object.freeze({ file, document: deepFreeze(document), keymasters, compatibility: Object.freeze(compatibility), notes: Object.freeze(notes) });
}

function parseJson(file: string, text: string): unknown {
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    const message = (error as Error).message;
    const at = /at position (\d+)/.exec(message);
    fail(file, `not valid JSON: ${message}${at ? ` (${lineAndColumn(text, Number(at[1]))})` : ''}`);
  }
}

function parseYaml(file: string, text: string): unknown {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  if (doc.errors.length > 0) fail(file, `not valid YAML: ${doc.errors[0].message.split('\n', 1)[0].replace(/:$/, '')}`);
  try {
    // Through JSON, so that what is validated is exactly what will be served.
    const value: unknown = doc.toJS({ maxAliasCount: 100 });
    return value === undefined ? null : JSON.parse(JSON.stringify(value));
  } catch (error) {
    fail(file, `not valid YAML: ${(error as Error).message}`);
  }
}

/** Fields the service writes itself, or that would be wrong when read from a file. */
function serviceOwnedProblems(document: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if ('state' in document && !isObject(document.state)) problems.push(`state must be a mapping (message, icon), got ${describeType(document.state)}`);
  if ('api_compatibility' in document) {
    problems.push('api_compatibility is set by the service (the versions the document is valid for): remove it');
  }
  if (isObject(document.state)) {
    for (const [key, why] of Object.entries(LIVE_STATE_KEYS)) {
      if (key in document.state) problems.push(`state.${key} ${why}: remove it`);
    }
  }
  if ('sensors' in document) {
    problems.push('sensors are live measurements, and the service has none to publish (it records the door, not who is inside): remove them');
  }
  return problems;
}

function liveProblems(live: unknown): string[] {
  if (live === undefined) return [];
  if (!isObject(live)) return [`live must be a mapping of options (keymasters, keymaster_field), got ${describeType(live)}`];
  const problems: string[] = [];
  for (const key of Object.keys(live)) {
    if (key === 'people_now_present') {
      problems.push('live.people_now_present is not supported: the database records when the door opens and closes, not who is inside, so any number would be made up');
    } else if (!LIVE_OPTIONS.includes(key)) {
      problems.push(`live.${key} is not an option (the options are ${LIVE_OPTIONS.join(', ')})`);
    }
  }
  if ('keymasters' in live && typeof live.keymasters !== 'boolean') {
    problems.push(`live.keymasters must be true or false, got ${JSON.stringify(live.keymasters)}`);
  }
  if ('keymaster_field' in live) {
    if (!(KEYMASTER_FIELDS as readonly unknown[]).includes(live.keymaster_field)) {
      problems.push(`live.keymaster_field must be one of ${KEYMASTER_FIELDS.join(', ')}, got ${JSON.stringify(live.keymaster_field)}`);
    } else if (live.keymasters !== true) {
      problems.push('live.keymaster_field has no effect without live.keymasters: true');
    }
  }
  return problems;
}

function keymasterField(live: unknown): KeymasterField | null {
  if (!isObject(live) || live.keymasters !== true) return null;
  return (live.keymaster_field as KeymasterField | undefined) ?? 'name';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function describeType(value: unknown): string {
  if (value === null) return 'nothing (null)';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'a mapping' : `a ${typeof value} (${JSON.stringify(value)})`;
}

function lineAndColumn(text: string, position: number): string {
  const before = text.replace(/^\uFEFF/, '').slice(0, position);
  const line = before.split('\n').length;
  return `line ${line}, column ${position - before.lastIndexOf('\n')}`;
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/** The operator's file named by SPACEAPI_CONFIG, checked; null when /spaceapi.json is not configured. */
export function loadSpaceApi(config: Pick<Config, 'spaceApiConfig'>): SpaceApiSetup | null {
  return config.spaceApiConfig === null ? null : readSpaceApiFile(config.spaceApiConfig);
}

/** The space's name on the pages and in mails: the SpaceAPI file's `space`, else SPACE_NAME, else "Hackerspace" (web.md §3). */
export function spaceNameOf(setup: SpaceApiSetup | null, config: Pick<Config, 'spaceName'>): string {
  const space = setup?.document.space;
  if (typeof space === 'string' && space.trim() !== '') return space.trim();
  return config.spaceName ?? 'Hackerspace';
}

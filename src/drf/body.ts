import { message } from '../resources/write-errors.js';
import { ApiError } from './errors.js';
import { parseQuery } from './query.js';
import type { RequestData } from './serializer.js';

/**
 * The body of a write, parsed as DRF's parsers would: JSON or a URL-encoded form. No body, or a
 * body without a Content-Type, is empty data (as DRF treats it), so required fields are reported.
 */
export function parseBody(contentType: string | undefined, body: Buffer | undefined): RequestData {
  const mediaType = contentType?.split(';', 1)[0].trim().toLowerCase() ?? '';
  if (body === undefined || body.length === 0 || mediaType === '') {
    if (mediaType !== '' && mediaType !== 'application/json' && mediaType !== 'application/x-www-form-urlencoded') throw unsupported(contentType!);
    return mediaType === 'application/x-www-form-urlencoded' ? { kind: 'form', fields: new Map() } : { kind: 'json', value: {} };
  }
  if (mediaType === 'application/json') return { kind: 'json', value: parseJson(body) };
  if (mediaType === 'application/x-www-form-urlencoded') return { kind: 'form', fields: parseForm(body) };
  throw unsupported(contentType!);
}

function unsupported(contentType: string): ApiError {
  return new ApiError(415, message('Unsupported media type "{media_type}" in request.', { media_type: contentType.trim() }));
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function parseJson(body: Buffer): unknown {
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    throw new ApiError(400, 'JSON parse error - the body is not valid UTF-8');
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ApiError(400, `JSON parse error - ${jsonReason(error as Error)}`);
  }
}

/** Form fields in order, every value kept (a relation list is sent as repeated fields). */
export function parseForm(body: Buffer): Map<string, string[]> {
  const fields = new Map<string, string[]>();
  for (const [key, value] of parseQuery(body.toString('utf8'))) {
    const values = fields.get(key);
    if (values) values.push(value);
    else fields.set(key, [value]);
  }
  return fields;
}

/**
 * V8's message without the excerpt of the body it may quote (`Unexpected token 'x', "…" is not
 * valid JSON`, shortened with `...` for long bodies), which could hold a secret or an address.
 */
function jsonReason(error: Error): string {
  const message = error.message;
  const excerpt = message.search(/,? (?:\.\.\.)?"/);
  return (excerpt === -1 ? message : message.slice(0, excerpt)).trim() || 'not valid JSON';
}

/**
 * HTML forms as browsers post them (`application/x-www-form-urlencoded`), read strictly: a body
 * that is not valid UTF-8 once percent-decoded is refused (a 400 page, never U+FFFD in a stored
 * name), a field sent twice keeps its first value (as the form has it once, a second one is
 * someone else's), and the caller reads only the fields it knows. Pure, without Fastify.
 */

export const FORM_TYPE = 'application/x-www-form-urlencoded';

/** Django's DATA_UPLOAD_MAX_NUMBER_FIELDS: far above any form of ours, and a bound on the work. */
export const MAX_FORM_FIELDS = 1000;

/** A posted form's fields, by name. */
export type Form = ReadonlyMap<string, string>;

/** Every value of every field, in order: the members ticked in a list of checkboxes share one name. */
export type FormLists = ReadonlyMap<string, readonly string[]>;

export type FormReading = { ok: true; form: Form; lists: FormLists } | { ok: false; problem: string };

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/** Whether a Content-Type names an urlencoded form (any charset parameter is ignored: the body must be UTF-8). */
export function isFormType(contentType: string | undefined): boolean {
  return contentType !== undefined && contentType.split(';', 1)[0].trim().toLowerCase() === FORM_TYPE;
}

/** Reads a form's body (already bounded by the body limit). */
export function parseForm(body: Buffer | string | undefined): FormReading {
  const text = body === undefined ? '' : typeof body === 'string' ? body : body.toString('latin1');
  const form = new Map<string, string>();
  const lists = new Map<string, string[]>();
  if (text === '') return { ok: true, form, lists };
  const pieces = text.split('&');
  if (pieces.length > MAX_FORM_FIELDS) return { ok: false, problem: `The form has more than ${MAX_FORM_FIELDS} fields.` };
  for (const piece of pieces) {
    if (piece === '') continue;
    const eq = piece.indexOf('=');
    const name = decodeStrict(eq === -1 ? piece : piece.slice(0, eq));
    const value = decodeStrict(eq === -1 ? '' : piece.slice(eq + 1));
    if (name === null || value === null) return { ok: false, problem: 'The form was not sent as UTF-8 text.' };
    if (!form.has(name)) form.set(name, value);
    const values = lists.get(name);
    if (values === undefined) lists.set(name, [value]);
    else values.push(value);
  }
  return { ok: true, form, lists };
}

/** `+` is a space, `%XX` a byte; the bytes must be UTF-8 (null when not). Bytes above 0x7F sent raw count as themselves. */
function decodeStrict(text: string): string | null {
  const bytes = new Uint8Array(text.length);
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x2b) bytes[n++] = 0x20;
    else if (c === 0x25 && i + 2 < text.length && isHex(text.charCodeAt(i + 1)) && isHex(text.charCodeAt(i + 2))) {
      bytes[n++] = parseInt(text.slice(i + 1, i + 3), 16);
      i += 2;
    } else bytes[n++] = c;
  }
  try {
    return strictUtf8.decode(bytes.subarray(0, n));
  } catch {
    return null;
  }
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** A field's value, or '' when absent. */
export function field(form: Form, name: string): string {
  return form.get(name) ?? '';
}

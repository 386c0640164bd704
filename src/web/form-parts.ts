import { CSRF_FIELD } from '../request/csrf.js';
import { html, type Html } from './html.js';

/** The pieces every form of the site is made of: its CSRF token, and a field's messages tied to it for assistive technology. */

/** Messages by field name, as FieldErrors has them. */
export type FieldMessages = Readonly<Record<string, readonly string[]>>;

export function csrfInput(csrf: string): Html {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${csrf}">`;
}

/** A field's messages, under the id its input names in aria-describedby (described()). */
export function fieldError(name: string, errors: FieldMessages): Html {
  const messages = errors[name];
  if (!messages || messages.length === 0) return html``;
  return html`<span class="form-error" id="${name}-error">${messages.join(' ')}</span>`;
}

/** The attributes of an input whose field has messages. */
export function described(name: string, errors: FieldMessages): Html {
  return errors[name]?.length ? html` aria-invalid="true" aria-describedby="${name}-error"` : html``;
}

/**
 * HTML that escapes by default. `html` is a tagged template: every interpolated value is escaped
 * unless it is already `Html` (made by `html` itself, or by `trustedHtml` for markup our own code
 * produced, such as rendered Markdown). Arrays are joined, and null, undefined and false render
 * nothing, so that lists and conditionals read naturally:
 *
 *   html`<ul>${items.map((item) => html`<li>${item.title}</li>`)}</ul>`
 *
 * A forgotten escape cannot happen silently: a string can only become markup through this
 * module, and the type checker refuses a plain string where `Html` is required.
 */
export class Html {
  /** @internal use `html` or `trustedHtml` */
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

export type HtmlValue = Html | string | number | boolean | null | undefined | readonly HtmlValue[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for an element's content and for a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

function render(value: HtmlValue): string {
  if (value instanceof Html) return value.text;
  if (value === null || value === undefined || value === false) return '';
  if (Array.isArray(value)) return (value as readonly HtmlValue[]).map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): Html {
  let out = strings[0];
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1];
  return new Html(out);
}

/** Markup that our own code made and vouches for (a Markdown renderer with raw HTML off, an inline SVG). */
export function trustedHtml(markup: string): Html {
  return new Html(markup);
}

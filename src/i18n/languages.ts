/**
 * Language tags, matched as Django matches them (`get_supported_language_variant`,
 * `parse_accept_lang_header`): lower case, `fr-BE` asks for `fr-be`, then `fr`, then any other
 * `fr-…` offered; `Accept-Language` in quality order, `q=0` refused.
 */

/** The pseudo-language of the tests: English, every message wrapped and stretched (⟦Ŀöĝ ĩñ⟧). Offered only when LANGUAGES names it. */
export const PSEUDO_LANGUAGE = 'qps-ploc';

const TAG = /^[a-z]{1,8}(?:-[a-z0-9]{1,8})*$/;

/** The tag in Django's form (lower case, `-`), or null when it is no language tag. */
export function normalTag(tag: string): string | null {
  const normal = tag.trim().toLowerCase().replaceAll('_', '-');
  return TAG.test(normal) ? normal : null;
}

/** The offered language a tag asks for: itself, its generic language, or a variant of it; null for none. */
export function matchLanguage(tag: string, offered: readonly string[]): string | null {
  const normal = normalTag(tag);
  if (normal === null) return null;
  if (offered.includes(normal)) return normal;
  const generic = normal.split('-')[0];
  if (offered.includes(generic)) return generic;
  return offered.find((language) => language.startsWith(generic + '-')) ?? null;
}

/** The tags of an Accept-Language header, best first (a stable sort: equal qualities keep their order); `*` and `q=0` left out. */
export function acceptedTags(header: string): string[] {
  const ranked: { tag: string; q: number }[] = [];
  for (const part of header.split(',')) {
    const [range, ...params] = part.split(';');
    const tag = range.trim();
    if (tag === '' || tag === '*') continue;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=');
      if (name.trim().toLowerCase() === 'q') q = Number(value);
    }
    if (Number.isFinite(q) && q > 0 && q <= 1) ranked.push({ tag, q });
    if (ranked.length === 32) break;
  }
  return ranked.sort((a, b) => b.q - a.q).map((r) => r.tag);
}

/** The best offered language of an Accept-Language header, or null when it asks for none of them. */
export function acceptedLanguage(header: string, offered: readonly string[]): string | null {
  for (const tag of acceptedTags(header)) {
    const language = matchLanguage(tag, offered);
    if (language !== null) return language;
  }
  return null;
}

import type { FastifyReply } from 'fastify';
import { ApiError, forbidden, methodNotAllowed } from '../drf/errors.js';
import type { Exchange } from '../http/route.js';
import { PRIVATE } from '../http/viewing.js';
import { normalTag } from '../i18n/languages.js';
import { isHttps, setCookie } from '../request/cookies.js';
import { CSRF_FIELD, csrfTokenMatches, originAllowed } from '../request/csrf.js';
import { LANGUAGE_COOKIE } from '../request/facts.js';
import { isFormType, parseForm } from '../request/form.js';
import { safeNext } from '../request/next-path.js';

/** How long the browser keeps a visitor's choice: a year, renewed by each choice. */
const LANGUAGE_COOKIE_SECONDS = 365 * 24 * 3600;

/**
 * `POST /i18n/setlang/` (Django's `set_language`): `language` kept in the language cookie, and on
 * the profile of a logged-in member (whose form carries its CSRF token); then back to `next`, else
 * to the page the form was on (`Referer`), else `/`. A language not offered changes nothing.
 */
export async function setLanguage(ex: Exchange<unknown>): Promise<FastifyReply> {
  const { request, reply, facts, services } = ex;
  if (facts.method !== 'POST') throw methodNotAllowed(facts.method, { allow: 'POST' });
  // A foreign page may not choose the language of this site's visitors.
  if (!originAllowed(request.headers.origin, facts.base)) throw forbidden();
  const reading = isFormType(request.headers['content-type']) ? parseForm(request.body as Buffer | undefined) : null;
  if (reading !== null && !reading.ok) throw new ApiError(400, reading.problem);
  const form = reading?.form ?? new Map<string, string>();
  const asked = normalTag(form.get('language') ?? '');
  const language = asked !== null && services.catalogue.offered.includes(asked) ? asked : null;
  const viewer = facts.session === null ? null : await services.viewing.of(facts);
  if (viewer !== null) {
    reply.header('cache-control', PRIVATE);
    // A member's profile changes only through their own pages' forms.
    if (!csrfTokenMatches(facts.session, form.get(CSRF_FIELD))) throw forbidden();
    if (language !== null) await services.viewing.chooseLanguage(viewer, language);
  }
  if (language !== null) reply.header('set-cookie', setCookie(LANGUAGE_COOKIE, language, { https: isHttps(facts.base), maxAgeSeconds: LANGUAGE_COOKIE_SECONDS }));
  return reply
    .code(302)
    .header('location', safeNext(form.get('next') ?? refererPath(request.headers.referer, facts.base)))
    .send();
}

/** The path and query of a Referer on this site; undefined for another site's or none. */
function refererPath(referer: string | undefined, base: string | null): string | undefined {
  if (referer === undefined || base === null) return undefined;
  try {
    const url = new URL(referer);
    return url.origin === new URL(base).origin ? url.pathname + url.search : undefined;
  } catch {
    return undefined;
  }
}

import type { Media } from '../drf/negotiation.js';
import { lastValue } from '../drf/query.js';
import type { Target } from '../drf/request.js';
import { STATUS_CODES } from 'node:http';
import { messagePage } from './message-page.js';
import { browsablePage } from './browsable.js';
import type { Site } from './layout.js';
import { notFoundPage } from './not-found.js';

/** An error as the error handler is about to send it. */
export interface ErrorAnswer {
  method: string;
  /** The request's target, as its facts split it. */
  target: Target;
  /** The media the request's Accept prefers (request/facts.ts). */
  preferred: Media | null;
  /** Whether the request is for a page of the web face (its route says so): its errors are pages whatever the Accept. */
  isPage: boolean;
  status: number;
  body: unknown;
  /** The headers of the answer so far (Allow, Vary, …), shown on the browsable page. */
  headers: Readonly<Record<string, unknown>>;
}

/**
 * The HTML form of an error, for a person's browser (web.md §1–§2), or null for JSON: a 404 is
 * the "not found" page (on a page's path always, elsewhere when the Accept prefers HTML); any
 * other error of an API route is its browsable view. A 406 is always JSON, and so is anything
 * asked for with `format=json` or a `.json` suffix.
 */
export function htmlError(site: Site, error: ErrorAnswer): Buffer | null {
  const { rawPath, rawQuery, query } = error.target;
  const { isPage } = error;
  if (error.status === 406) return null;
  if (!isPage) {
    if (error.preferred !== 'html') return null;
    if (lastValue(query, 'format') === 'json' || /\.json\/?$/.test(rawPath)) return null;
  }
  if (error.status === 404) return notFoundPage(site, rawPath, detailOf(error.body));
  if (!rawPath.startsWith('/api/'))
    return isPage ? messagePage(site, { title: STATUS_CODES[error.status] ?? 'Error', message: detailOf(error.body) ?? 'The request could not be answered.' }) : null;
  const shown = (['allow', 'vary'] as const).filter((name) => typeof error.headers[name] === 'string').map((name) => [headerName(name), String(error.headers[name])] as const);
  return browsablePage(site, {
    method: error.method,
    target: rawPath + (rawQuery === '' ? '' : `?${rawQuery}`),
    base: '',
    status: error.status,
    headers: [...shown, ['Content-Type', 'application/json']],
    body: error.body,
  });
}

const headerName = (name: string) => name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase());

function detailOf(body: unknown): string | undefined {
  const detail = (body as { detail?: unknown } | null)?.detail;
  return typeof detail === 'string' ? detail : undefined;
}

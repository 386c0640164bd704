import type { Media } from '../drf/negotiation.js';
import { lastValue } from '../drf/query.js';
import type { Target } from '../drf/request.js';
import type { MessageKey } from '../i18n/words.js';
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
  if (error.status === 404) return notFoundPage(site, rawPath);
  if (!rawPath.startsWith('/api/')) {
    if (!isPage) return null;
    // The page's own words for the status: the JSON's detail is the API's (LANGUAGE_CODE's), not the page's.
    const { title, message } = STATUS_WORDS[error.status] ?? (error.status >= 500 ? STATUS_WORDS[500] : STATUS_WORDS[400]);
    return messagePage(site, { title: site.words.t(title), message: site.words.t(message) });
  }
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

/** An error page's title and explanation by status (a 4xx without its own: 400's; a 5xx: 500's). */
const STATUS_WORDS: Readonly<Record<number, { readonly title: MessageKey; readonly message: MessageKey }>> = {
  400: { title: 'site.error.400.title', message: 'site.error.400.message' },
  403: { title: 'site.error.403.title', message: 'site.error.403.message' },
  405: { title: 'site.error.405.title', message: 'site.error.405.message' },
  406: { title: 'site.error.406.title', message: 'site.error.406.message' },
  409: { title: 'site.error.409.title', message: 'site.error.409.message' },
  413: { title: 'site.error.413.title', message: 'site.error.413.message' },
  415: { title: 'site.error.415.title', message: 'site.error.415.message' },
  422: { title: 'site.error.422.title', message: 'site.error.422.message' },
  429: { title: 'site.error.429.title', message: 'site.error.429.message' },
  500: { title: 'site.error.500.title', message: 'site.error.500.message' },
  503: { title: 'site.error.503.title', message: 'site.error.503.message' },
};

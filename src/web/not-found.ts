import { html } from './html.js';
import { layout, type Site } from './layout.js';

/** The HTML answer to a 404 in a browser: unknown paths, unknown records, and 404s of the API. */
export function notFoundPage(site: Site, path: string, detail = 'Not found.'): Buffer {
  const main = html`<h1>Not found</h1>
<p>There is nothing at <code>${path}</code>${detail === 'Not found.' ? '.' : html`: ${detail}`}</p>
<p><a href="/">Back to the dashboard</a> or <a href="/api/">browse the API</a>.</p>`;
  return layout(site, { title: 'Not found', main, mainClass: 'not-found' });
}

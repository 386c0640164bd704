import { html, type Html } from './html.js';
import { layout, type Site } from './layout.js';

/** A short page for an answer that is not the page asked for: a refused form, a wait, a bad request. */
export function messagePage(site: Site, { title, message }: { title: string; message: Html | string }): Buffer {
  const main = html`<section class="message" aria-labelledby="message-heading">
<h1 id="message-heading">${title}</h1>
<p>${message}</p>
<p><a href="/">${site.words.t('site.error.back')}</a></p>
</section>`;
  return layout(site, { title, main });
}

/*
 * The dashboard's live state (docs/web.md §3). Plain ES2020 for the browser, no build step,
 * written for a strict CSP (script-src 'self': no inline handlers, no eval). Loaded with `defer` on
 * `/` only; on a page without `#space-state` it does nothing.
 *
 * The server renders the complete page; this only keeps it current:
 * - it listens to `/api/space/stream/` (`event: state`, data `{"is_open": true|false|null,
 *   "since": "ISO-8601"|null}`), and on each event sets `data-open` on `#space-state`, the
 *   `.state-word`, the `<time>` (datetime and relative text), `.state-absolute` (in the section's
 *   `data-time-zone`), `.state-stale` and the page title ("Open · NAME");
 * - its words are the page's (the server renders them from the catalogue into the section's
 *   `data-word-open|closed|unknown`, `data-just-now`, `data-stale-text`, and `data-locale` for
 *   Intl's dates and relative times; `data-wrap-open|close` wrap a formatted value as the page's
 *   language does, for the pseudo-language);
 * - it refreshes the relative time every 30 s (a server-rendered or cached page may be minutes old);
 * - it sets `data-live` on `#space-state`: "connected" once a state has come from the stream,
 *   "reconnecting" while the stream is down (absent until the first event, and without JavaScript).
 *
 * Never throws: a missing element is skipped, a malformed event is ignored.
 */
/* global document, window, EventSource */
(function () {
  'use strict';

  var STREAM_URL = '/api/space/stream/';
  var REFRESH_MS = 30 * 1000;
  var DAY_MS = 24 * 60 * 60 * 1000;
  // A state older than this is "stale": the page says how long it has not changed. The server
  // renders `.state-stale` by the same rule (older than 7 days; N counted in whole days, rounded
  // down), so that a page without JavaScript says the same thing.
  var STALE_DAYS = 7;

  var section = document.getElementById('space-state');
  if (!section) return;

  var siteNameElement = document.querySelector('.site-name');
  var siteName = siteNameElement ? siteNameElement.textContent.trim() : '';

  /** A word the server put on the section from the catalogue. */
  function word(name, fallback) {
    var text = section.getAttribute('data-' + name);
    return text === null ? fallback : text;
  }
  var locale = word('locale', 'en');
  var wrapOpen = word('wrap-open', '');
  var wrapClose = word('wrap-close', '');
  function wrap(text) {
    return wrapOpen + text + wrapClose;
  }

  var relativeFormat = makeFormat(function (tag) {
    return new Intl.RelativeTimeFormat(tag, { numeric: 'auto' });
  });
  var absoluteFormat = makeAbsoluteFormat(section.getAttribute('data-time-zone'));

  /** A format in the page's locale, else English. */
  function makeFormat(make) {
    try {
      return make(locale);
    } catch {
      return make('en');
    }
  }

  function makeAbsoluteFormat(timeZone) {
    // The server's format (src/i18n/words.ts, Words.dateTime), so that a live update reads like a reload.
    var options = { dateStyle: 'medium', timeStyle: 'short' };
    if (timeZone) {
      try {
        return new Intl.DateTimeFormat(locale, Object.assign({ timeZone: timeZone }, options));
      } catch {
        // An unknown time zone or locale: fall back to the browser's own zone.
      }
    }
    return makeFormat(function (tag) {
      return new Intl.DateTimeFormat(tag, options);
    });
  }

  /** "25 Nov 2026, 14:00" (in the page's language), as the server writes it. */
  function formatAbsolute(date) {
    return wrap(absoluteFormat.format(date));
  }

  /** "just now", "5 minutes ago", "3 hours ago", "yesterday", "2 days ago", in the page's language. */
  function formatRelative(date, now) {
    var seconds = Math.max(0, (now - date.getTime()) / 1000);
    if (seconds < 60) return word('just-now', 'just now');
    var minutes = Math.floor(seconds / 60);
    if (minutes < 60) return wrap(relativeFormat.format(-minutes, 'minute'));
    var hours = Math.floor(minutes / 60);
    if (hours < 24) return wrap(relativeFormat.format(-hours, 'hour'));
    return wrap(relativeFormat.format(-Math.floor(hours / 24), 'day'));
  }

  function parseDate(text) {
    if (!text) return null;
    var date = new Date(text);
    return isNaN(date.getTime()) ? null : date;
  }

  /** The `.state-since` paragraph with its `<time>` and `.state-absolute`, made if the page lacks them. */
  function sinceElements() {
    var since = section.querySelector('.state-since');
    if (!since) {
      since = document.createElement('p');
      since.className = 'state-since';
      var wordElement = section.querySelector('.state-word');
      section.insertBefore(since, wordElement ? wordElement.nextSibling : section.firstChild);
    }
    var time = since.querySelector('time');
    var absolute = since.querySelector('.state-absolute');
    if (!time || !absolute) {
      // The server renders these (src/apps/space/web/panels.ts), hidden while nothing is known;
      // a page without them gets the two values alone: "27 Mar 2021, 21:00 (3 hours ago)".
      since.textContent = '';
      time = document.createElement('time');
      time.className = 'state-relative';
      absolute = document.createElement('span');
      absolute.className = 'state-absolute';
      since.appendChild(absolute);
      since.appendChild(document.createTextNode(' ('));
      since.appendChild(time);
      since.appendChild(document.createTextNode(')'));
    }
    return { since: since, time: time, absolute: absolute };
  }

  /** The relative time and the stale note, from the `<time>`'s datetime and the clock. */
  function refresh() {
    var time = section.querySelector('.state-since time');
    var date = parseDate(time && time.getAttribute('datetime'));
    var now = Date.now();
    if (time && date) {
      var text = formatRelative(date, now);
      if (time.textContent !== text) time.textContent = text;
    }
    var stale = section.querySelector('.state-stale');
    if (stale) {
      var age = date ? now - date.getTime() : 0;
      if (age > STALE_DAYS * DAY_MS) {
        stale.textContent = word('stale-text', 'No change for {days} days.').replace('{days}', String(Math.floor(age / DAY_MS)));
        stale.hidden = false;
      } else {
        stale.hidden = true;
      }
    }
  }

  function apply(state) {
    if (!state || typeof state !== 'object') return;
    var isOpen = state.is_open;
    var stateWord = isOpen === true ? word('word-open', 'Open') : isOpen === false ? word('word-closed', 'Closed') : word('word-unknown', 'Unknown');
    if (isOpen === true || isOpen === false) section.setAttribute('data-open', String(isOpen));
    else section.removeAttribute('data-open');

    var wordElement = section.querySelector('.state-word');
    if (wordElement) wordElement.textContent = stateWord;

    var date = parseDate(state.since);
    if (date) {
      var parts = sinceElements();
      parts.since.hidden = false;
      var none = section.querySelector('.state-none');
      if (none) none.hidden = true;
      parts.time.setAttribute('datetime', state.since);
      parts.absolute.textContent = formatAbsolute(date);
    } else {
      var since = section.querySelector('.state-since');
      if (since) since.hidden = true;
    }
    refresh();

    document.title = siteName ? stateWord + ' · ' + siteName : stateWord;
  }

  function onState(event) {
    var state;
    try {
      state = JSON.parse(event.data);
    } catch {
      return; // not JSON: ignore this event, keep listening
    }
    apply(state);
    section.setAttribute('data-live', 'connected');
  }

  // EventSource reconnects by itself after a dropped connection (readyState CONNECTING). It gives
  // up only when the server answers with an error status or another content type (CLOSED): then
  // we open a new one, waiting longer each time (5 s, 10 s, … at most 5 minutes).
  var retryMs = 5000;
  var source = null;
  function connect() {
    if (typeof EventSource !== 'function') return;
    try {
      source = new EventSource(STREAM_URL);
    } catch {
      return;
    }
    source.addEventListener('state', onState);
    source.addEventListener('open', function () {
      retryMs = 5000;
    });
    source.addEventListener('error', function () {
      section.setAttribute('data-live', 'reconnecting');
      if (source && source.readyState === EventSource.CLOSED) {
        source.close();
        source = null;
        window.setTimeout(connect, retryMs);
        retryMs = Math.min(retryMs * 2, 5 * 60 * 1000);
      }
    });
  }

  refresh();
  window.setInterval(refresh, REFRESH_MS);
  document.addEventListener('visibilitychange', function () {
    if (!document.hidden) refresh();
  });
  connect();
})();

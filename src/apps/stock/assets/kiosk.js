/*
 * The kiosk by the fridge (ledger.md §4; the page: src/apps/stock/web/kiosk.ts). Plain ES2017 for
 * the browser, no build step, written for a strict CSP (script-src 'self': no inline handlers, no
 * eval). Without it the page still works: names are links (`?member=`), products and undo are forms.
 *
 * With it, the page never reloads between members:
 * - step 1 (`data-step="members"` on `main.kiosk`, "#kiosk" below): a tap on a name, or a scanned member card, goes to
 *   step 2 for them; step 2: a tap on a product, or a scanned barcode, buys it (JSON to
 *   `data-purchase` / `data-scan`, with the page's token in X-CSRFToken);
 * - each purchase action gets its own one-time key (crypto.randomUUID): a request sent again
 *   records once, answered as the first time;
 * - after a purchase, #kiosk-said tells the product, its price and the member's new balance, and
 *   #kiosk-undo offers to undo it for `data-undo-seconds` (the server's count of what is left);
 * - untouched for `data-idle-ms` (read at each touch: a test may shorten it), the page goes back
 *   to step 1, forgetting the member and what was said (the balance is shown to no one else), and
 *   dispatches `kiosk:idle` on #kiosk; back at step 1 after `data-reload-ms`, it loads itself again.
 *
 * Keyboard-wedge scanners type a code's characters then Enter within milliseconds, wherever the
 * focus is: keys that arrive at most `data-scan-gap-ms` apart are collected anywhere on the page,
 * and such a run of 3 or more followed by Enter is a scan (that Enter is kept from the focused
 * button). A scanner's double read (the same code again within `data-repeat-ms`), its second
 * Enter, and the same product tapped twice within `data-repeat-ms` are ignored: charged once.
 * While that window is open, #kiosk carries `data-repeat-window` (a test waits for it to go).
 *
 * Words come from the server: its answers' `said` and `detail`, and #kiosk's `data-say-…`.
 */
/* global document, window, Element, HTMLFormElement */
(function () {
  'use strict';

  var kiosk = document.querySelector('main.kiosk');
  if (!kiosk) return;

  var membersStep = document.getElementById('kiosk-members');
  var productsStep = document.getElementById('kiosk-products');
  var productsHeading = document.getElementById('kiosk-products-heading');
  var said = document.getElementById('kiosk-said');
  var errorLine = document.getElementById('kiosk-error');
  var undoForm = document.getElementById('kiosk-undo');
  var undoLeft = document.getElementById('kiosk-undo-left');
  var loadedAt = Date.now();

  function data(name, fallback) {
    var value = kiosk.getAttribute('data-' + name);
    return value === null ? fallback : value;
  }
  function number(name, fallback) {
    var value = Number(data(name, ''));
    return isFinite(value) && value > 0 ? value : fallback;
  }

  var member = null;
  var memberId = data('member', null);
  if (memberId !== null) member = { id: Number(memberId), name: data('member-name', '') };

  // ---- One-time keys ----

  function newKey() {
    if (window.crypto && typeof window.crypto.randomUUID === 'function') return window.crypto.randomUUID();
    // Outside a secure context (a tablet on plain HTTP), randomUUID is missing: the same 122 random bits.
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    var hex = '';
    for (var i = 0; i < bytes.length; i++) hex += (bytes[i] + 0x100).toString(16).slice(1);
    return hex;
  }

  // ---- Steps ----

  function setStep(step) {
    kiosk.setAttribute('data-step', step);
    if (membersStep) membersStep.hidden = step !== 'members';
    if (productsStep) productsStep.hidden = step !== 'products';
  }

  function chooseMember(chosen) {
    member = chosen;
    kiosk.setAttribute('data-member', String(chosen.id));
    if (productsHeading) productsHeading.textContent = data('say-what', '{name}').split('{name}').join(chosen.name);
    clearOutcome();
    setStep('products');
    var first = productsStep && productsStep.querySelector('button');
    if (first) first.focus({ preventScroll: true });
    window.scrollTo(0, 0);
  }

  function backToStart() {
    member = null;
    kiosk.removeAttribute('data-member');
    clearOutcome();
    setStep('members');
    window.scrollTo(0, 0);
  }

  // ---- What the kiosk says ----

  var undo = null; // { entry, until (performance.now() ms), timer }

  function say(text, belowZero) {
    if (!said) return;
    said.textContent = text || '';
    if (belowZero) said.setAttribute('data-below-zero', 'true');
    else said.removeAttribute('data-below-zero');
  }
  function showError(text) {
    if (!errorLine) return;
    errorLine.textContent = text || '';
    errorLine.hidden = !text;
  }
  function clearOutcome() {
    say('');
    showError('');
    stopUndo();
  }

  function stopUndo() {
    if (undo && undo.timer) window.clearInterval(undo.timer);
    undo = null;
    if (undoForm) undoForm.hidden = true;
  }

  function offerUndo(entry, secondsLeft) {
    stopUndo();
    if (!undoForm || !(secondsLeft > 0)) return;
    undo = { entry: entry, until: performance.now() + secondsLeft * 1000, timer: 0 };
    undoForm.hidden = false;
    var tick = function () {
      if (!undo) return;
      var left = Math.max(0, (undo.until - performance.now()) / 1000);
      if (undoLeft) undoLeft.value = left;
      if (left <= 0) stopUndo();
    };
    tick();
    undo.timer = window.setInterval(tick, 250);
  }

  /** The first message of a refusal: `detail`, or a field's. */
  function refusalText(body) {
    if (!body || typeof body !== 'object') return data('say-offline', '');
    if (typeof body.detail === 'string') return body.detail;
    for (var name in body) {
      if (Array.isArray(body[name]) && typeof body[name][0] === 'string') return body[name][0];
    }
    return data('say-offline', '');
  }

  // ---- Talking to the server ----

  var pending = 0;

  function post(url, fields) {
    pending++;
    kiosk.setAttribute('aria-busy', 'true');
    return fetch(url, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrftoken': data('csrf', '') },
      body: JSON.stringify(fields),
    })
      .then(function (response) {
        return response
          .json()
          .catch(function () {
            return null;
          })
          .then(function (body) {
            // The token was revoked: the kiosk is closed; the page says so and offers to open it again.
            if (response.status === 401 || response.status === 403) {
              if (body && typeof body.detail === 'string') showError(body.detail);
              if (response.status === 401) window.setTimeout(reload, 2000);
            }
            return { ok: response.ok, status: response.status, body: body };
          });
      })
      .catch(function () {
        return { ok: false, status: 0, body: null };
      })
      .then(function (answer) {
        pending--;
        if (pending === 0) kiosk.removeAttribute('aria-busy');
        return answer;
      });
  }

  function reload() {
    window.location.replace(window.location.pathname);
  }

  function purchased(body) {
    showError('');
    say(body.said, body.below_zero === true);
    if (body.product && body.product.id !== null && body.product.id !== undefined) {
      var button = kiosk.querySelector('button[data-product="' + Number(body.product.id) + '"]');
      if (button) {
        if (body.product.sold_out) button.setAttribute('data-sold-out', 'true');
        else button.removeAttribute('data-sold-out');
      }
    }
    offerUndo(body.entry, Number(body.undo_seconds_left));
    kiosk.dispatchEvent(new CustomEvent('kiosk:purchased', { detail: { entry: body.entry } }));
  }

  function refused(answer) {
    if (answer.status === 401 || answer.status === 403) return;
    showError(answer.status === 0 ? data('say-offline', '') : refusalText(answer.body));
  }

  // ---- Double reads and double taps ----

  var last = { what: '', at: -Infinity, timer: 0 };

  /** False when `what` (a scanned code, a tapped product) is the last one again within the window: a double read. */
  function fresh(what) {
    var now = performance.now();
    var windowMs = number('repeat-ms', 1000);
    if (what === last.what && now - last.at < windowMs) return false;
    last.what = what;
    last.at = now;
    window.clearTimeout(last.timer);
    kiosk.setAttribute('data-repeat-window', what);
    last.timer = window.setTimeout(function () {
      kiosk.removeAttribute('data-repeat-window');
    }, windowMs);
    return true;
  }

  function buy(productId) {
    if (!member) return;
    if (!fresh('product:' + productId)) return;
    showError('');
    say(data('say-busy', ''));
    post(data('purchase', ''), { member: member.id, product: productId, key: newKey() }).then(function (answer) {
      if (answer.ok) purchased(answer.body);
      else {
        say('');
        refused(answer);
      }
    });
  }

  function scanned(code) {
    if (!fresh('code:' + code)) return;
    touched();
    showError('');
    var fields = { code: code, key: newKey() };
    if (member) fields.member = member.id;
    post(data('scan', ''), fields).then(function (answer) {
      if (!answer.ok) return refused(answer);
      if (answer.body && answer.body.purchase) purchased(answer.body);
      else if (answer.body && answer.body.member) chooseMember(answer.body.member);
    });
  }

  // ---- Taps ----

  document.addEventListener('click', function (event) {
    var target = event.target instanceof Element ? event.target : null;
    if (!target) return;
    var link = target.closest('a.kiosk-member');
    if (link) {
      event.preventDefault();
      chooseMember({ id: Number(link.getAttribute('data-member')), name: link.textContent });
      return;
    }
    if (target.closest('#kiosk-back')) {
      event.preventDefault();
      backToStart();
    }
  });

  document.addEventListener('submit', function (event) {
    var form = event.target;
    if (!(form instanceof HTMLFormElement)) return;
    if (form.classList.contains('kiosk-buy')) {
      event.preventDefault();
      buy(Number(form.elements.product.value));
    } else if (form === undoForm) {
      event.preventDefault();
      if (!undo) return;
      var entry = undo.entry;
      stopUndo();
      post(data('undo', ''), { entry: entry, key: newKey() }).then(function (answer) {
        if (answer.ok) {
          showError('');
          say(answer.body.said, answer.body.below_zero === true);
          kiosk.dispatchEvent(new CustomEvent('kiosk:undone', { detail: { entry: entry } }));
        } else refused(answer);
      });
    }
  });

  // ---- The scanner ----

  var typed = '';
  var lastKeyAt = -Infinity;
  var lastScanAt = -Infinity;

  document.addEventListener(
    'keydown',
    function (event) {
      if (event.ctrlKey || event.altKey || event.metaKey) return;
      var target = event.target;
      if (target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT' || target.isContentEditable)) return;
      var now = performance.now();
      var gap = number('scan-gap-ms', 100);
      if (event.key === 'Enter') {
        var code = typed;
        var run = now - lastKeyAt <= gap && code.length >= 3;
        typed = '';
        if (run) {
          event.preventDefault();
          event.stopPropagation();
          lastScanAt = now;
          scanned(code);
        } else if (now - lastScanAt < number('repeat-ms', 1000)) {
          // A scanner's second Enter: not a tap on the focused button.
          event.preventDefault();
          event.stopPropagation();
        }
        return;
      }
      if (event.key.length === 1 && event.key > ' ' && event.key <= '~') {
        if (now - lastKeyAt > gap) typed = '';
        typed = (typed + event.key).slice(-64);
        lastKeyAt = now;
        return;
      }
      typed = '';
    },
    true,
  );

  // ---- Going back to the start when left alone ----

  var idleTimer = 0;

  function touched() {
    window.clearTimeout(idleTimer);
    idleTimer = window.setTimeout(idle, number('idle-ms', 30000));
  }

  function idle() {
    var wasAt = kiosk.getAttribute('data-step');
    backToStart();
    kiosk.dispatchEvent(new CustomEvent('kiosk:idle'));
    if (wasAt === 'members' && pending === 0 && Date.now() - loadedAt > number('reload-ms', 600000)) reload();
    else touched();
  }

  // A purchase answered by the page without its script (a form sent before this loaded) may still be undone.
  if (undoForm && !undoForm.hidden && undoForm.elements.entry.value !== '') offerUndo(Number(undoForm.elements.entry.value), undoLeft ? Number(undoLeft.value) : 0);

  ['pointerdown', 'keydown', 'touchstart'].forEach(function (name) {
    document.addEventListener(name, touched, { capture: true, passive: true });
  });
  touched();
})();

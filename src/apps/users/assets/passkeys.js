/*
 * Passkey ceremonies (members.md §5) for the forms marked `data-passkey` ("login" on the login
 * page, "register" on the profile page). Plain ES2017 for the browser, no build step, written for a
 * strict CSP (script-src 'self'). It uses SimpleWebAuthnBrowser (simplewebauthn-browser.js, loaded
 * before it) for the browser's WebAuthn calls and their JSON.
 *
 * On submit it asks the form's `data-options` address for the ceremony's options (a POST with the
 * form's CSRF token; the server keeps the challenge), lets the browser and the authenticator
 * answer, puts the answer in the form's `credential` field and sends the form: the server checks it
 * and answers with a page, as any form. Without this script, or in a browser without WebAuthn,
 * the forms' buttons stay hidden and disabled. What happens is said in the form's `role="status"`.
 */
/* global document, window */
(function () {
  'use strict';

  var lib = window.SimpleWebAuthnBrowser;
  if (!lib || !lib.browserSupportsWebAuthn()) return;

  var forms = document.querySelectorAll('form[data-passkey]');
  for (var i = 0; i < forms.length; i++) enable(forms[i]);

  function enable(form) {
    var button = form.querySelector('button[type="submit"]');
    var status = form.querySelector('.passkey-status');
    var unsupported = form.querySelector('.passkey-unsupported');
    var kind = form.getAttribute('data-passkey');
    if (!button || !form.elements.credential) return;
    if (unsupported) unsupported.hidden = true;
    button.hidden = false;
    button.disabled = false;
    var busy = false;
    // The page's words, in its language (the form's data-say-… attributes).
    var words = function (name) {
      return form.getAttribute('data-say-' + name) || '';
    };

    form.addEventListener('submit', function (event) {
      event.preventDefault();
      if (busy) return;
      busy = true;
      button.setAttribute('aria-disabled', 'true');
      say(words('waiting'));
      ceremony(form, kind, words)
        .then(function (answer) {
          form.elements.credential.value = JSON.stringify(answer);
          say(kind === 'register' ? words('adding') : words('logging-in'));
          form.submit();
        })
        .catch(function (error) {
          done();
          say(messageOf(error, kind, words));
        });
    });

    // Back to a page left by form.submit(): usable again.
    window.addEventListener('pageshow', function () {
      done();
      say('');
      form.elements.credential.value = '';
    });

    function done() {
      busy = false;
      button.removeAttribute('aria-disabled');
    }

    function say(text) {
      if (status) status.textContent = text;
    }
  }

  /** The options asked with the page's CSRF token (a refusal's words come as JSON `detail`), then the browser's ceremony. */
  function ceremony(form, kind, words) {
    var body = new URLSearchParams();
    body.set('csrfmiddlewaretoken', form.elements.csrfmiddlewaretoken.value);
    return fetch(form.getAttribute('data-options'), {
      method: 'POST',
      credentials: 'same-origin',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: body,
    }).then(function (response) {
      var json = /^application\/json\b/.test(response.headers.get('content-type') || '');
      if (!json) throw new Problem(words('out-of-date'));
      return response.json().then(function (data) {
        if (!response.ok) throw new Problem(typeof data.detail === 'string' ? data.detail : words('cannot-start'));
        return kind === 'register' ? lib.startRegistration({ optionsJSON: data }) : lib.startAuthentication({ optionsJSON: data });
      });
    });
  }

  /** A reason already in words (from the site, or about the page). */
  function Problem(text) {
    this.text = text;
  }

  function messageOf(error, kind, words) {
    if (error instanceof Problem) return error.text;
    var name = (error && error.name) || '';
    var code = (error && error.code) || '';
    if (code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED') return words('already-held');
    if (name === 'NotAllowedError' || code === 'ERROR_CEREMONY_ABORTED') return kind === 'register' ? words('add-cancelled') : words('use-cancelled');
    if (name === 'TypeError') return words('unreachable');
    return kind === 'register' ? words('add-impossible') : words('use-impossible');
  }
})();

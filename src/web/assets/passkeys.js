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
 * the forms' buttons stay hidden.
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
    if (!button || !form.elements.credential) return;
    if (unsupported) unsupported.hidden = true;
    button.hidden = false;
    var busy = false;

    form.addEventListener('submit', function (event) {
      event.preventDefault();
      if (busy) return;
      busy = true;
      button.disabled = true;
      say('');
      ceremony(form)
        .then(function (answer) {
          form.elements.credential.value = JSON.stringify(answer);
          form.submit();
        })
        .catch(function (error) {
          busy = false;
          button.disabled = false;
          say(messageOf(error, form.getAttribute('data-passkey')));
        });
    });

    function say(text) {
      if (status) status.textContent = text;
    }
  }

  function ceremony(form) {
    var body = new URLSearchParams();
    body.set('csrfmiddlewaretoken', form.elements.csrfmiddlewaretoken.value);
    return fetch(form.getAttribute('data-options'), {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: body,
    }).then(function (response) {
      if (!response.ok) throw new Error(response.status === 403 ? 'expired' : 'server');
      return response.json().then(function (options) {
        return form.getAttribute('data-passkey') === 'register' ? lib.startRegistration({ optionsJSON: options }) : lib.startAuthentication({ optionsJSON: options });
      });
    });
  }

  function messageOf(error, kind) {
    var name = (error && error.name) || '';
    var code = (error && error.code) || '';
    if (error && error.message === 'expired') return 'This page has expired: reload it and try again.';
    if (error && error.message === 'server') return 'The site could not start the passkey ceremony. Try again in a moment.';
    if (code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED') return 'This device already holds a passkey for your account.';
    if (name === 'NotAllowedError' || code === 'ERROR_CEREMONY_ABORTED')
      return kind === 'register' ? 'No passkey was added: it was cancelled or took too long.' : 'No passkey was used: it was cancelled or took too long.';
    return kind === 'register' ? 'No passkey was added: this browser or device could not make one.' : 'No passkey was used: this browser or device could not offer one.';
  }
})();

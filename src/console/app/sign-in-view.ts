// The sign-in screens: user name and password, then whichever challenge the API asks for —
// an authenticator code, a code sent by text message, a new password, or setting up an
// authenticator app from a QR code — until the session is signed in (docs/auth.md §3).
import { type Api, describe, isAbort, SessionEndedError } from './api.ts';
import {
  associateSoftwareToken,
  type Challenge,
  confirmSignIn,
  type DeviceKeys,
  groupedSecret,
  type SessionInfo,
  type SignInStep,
  signIn,
} from './auth.ts';
import { busy, type Child, field, focus, h, say } from './dom.ts';
import { qrImage } from './qr.ts';

export interface SignInOptions {
  api: Api;
  devices: DeviceKeys;
  /** What the screens replace. */
  root: HTMLElement;
  /** Why the sign-in shows: the session ended, the user signed out. */
  notice: string | null;
  /** False when the server turned password sign-in off (`ASSETQL_LOGIN_ENABLED`). */
  loginEnabled: boolean;
  onSignedIn(session: SessionInfo): void;
}

/** Shows the first screen, user name and password. */
export function showSignIn(options: SignInOptions): void {
  passwordStep(options, options.notice, null);
}

interface Screen {
  form: HTMLFormElement;
  /** The line that says what went wrong (`#sign-in-error`). */
  error: HTMLElement;
  heading: HTMLElement;
}

/** One screen: the product, its title, a notice, what it says, its error line and its form. */
function screen(
  options: SignInOptions,
  title: string,
  notice: string | null,
  intro: Child[],
  form: HTMLFormElement,
): Screen {
  const error = h('p', { class: 'error', role: 'alert', id: 'sign-in-error' });
  const heading = h('h1', { tabindex: -1 }, title);
  options.root.replaceChildren(
    h(
      'main',
      { class: 'sign-in', id: 'main' },
      h(
        'div',
        { class: 'card' },
        h('p', { class: 'brand' }, 'assetql console'),
        heading,
        notice ? h('p', { class: 'notice', role: 'status', id: 'sign-in-notice' }, notice) : null,
        ...intro,
        error,
        form,
      ),
    ),
  );
  return { form, error, heading };
}

/** Shows a password field's text while `toggle` is checked (ASVS 2.1.12). */
function showPasswords(label: string, ...inputs: HTMLInputElement[]): HTMLElement {
  const toggle = h('input', { type: 'checkbox', id: 'show-password' });
  toggle.addEventListener('change', () => {
    for (const input of inputs) input.type = toggle.checked ? 'text' : 'password';
  });
  return h('div', { class: 'check' }, toggle, h('label', { for: 'show-password' }, label));
}

function passwordStep(options: SignInOptions, notice: string | null, error: string | null): void {
  if (!options.loginEnabled) {
    screen(
      options,
      'Sign in',
      notice,
      [
        h(
          'p',
          null,
          'Signing in with a password is turned off on this server. Ask its operator how to sign in.',
        ),
      ],
      h('form'),
    );
    return;
  }
  const username = h('input', {
    id: 'username',
    name: 'username',
    // Read with the field it is first on: why the sign-in shows, and what went wrong.
    'aria-describedby': notice ? 'sign-in-notice sign-in-error' : 'sign-in-error',
    autocomplete: 'username',
    autocapitalize: 'none',
    spellcheck: 'false',
    required: true,
  });
  const password = h('input', {
    id: 'password',
    name: 'password',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
  });
  const form = h(
    'form',
    { class: 'stack' },
    h('label', { for: 'username' }, 'Username'),
    username,
    h('label', { for: 'password' }, 'Password'),
    password,
    showPasswords('Show password', password),
    h('button', { type: 'submit', class: 'primary' }, 'Sign in'),
  );
  const s = screen(options, 'Sign in', notice, [], form);
  if (error) say(s.error, error);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    // Read before `run` disables the fields: a disabled field is no part of the form's data.
    const name = field(form, 'username');
    const secret = field(form, 'password', true);
    void run(
      options,
      s,
      () => signIn(options.api, options.devices, name, secret),
      () => {
        password.value = '';
        focus(password);
      },
    );
  });
  focus(username);
}

/**
 * Sends what a screen's form asks, and goes where the answer leads; on a refusal that leaves the
 * screen, `refused` readies it for another try (once the form is enabled again).
 */
async function run(
  options: SignInOptions,
  s: Screen,
  send: () => Promise<SignInStep>,
  refused?: () => void,
): Promise<void> {
  say(s.error, '');
  let step: SignInStep;
  try {
    step = await busy(s.form, send);
  } catch (e) {
    if (isAbort(e)) return;
    // An answer of UNAUTHENTICATED here is the pending challenge gone: start again.
    if (e instanceof SessionEndedError)
      return passwordStep(options, null, 'This sign-in has expired. Sign in again.');
    say(s.error, describe(e));
    return;
  }
  next(options, s, step, refused);
}

function next(options: SignInOptions, s: Screen, step: SignInStep, refused?: () => void): void {
  switch (step.kind) {
    case 'signed-in':
      options.onSignedIn(step.session);
      return;
    case 'challenge':
      challengeStep(options, step.challenge, step.destination);
      return;
    case 'refused':
      if (step.restart) passwordStep(options, null, step.message);
      else {
        say(s.error, step.message);
        refused?.();
      }
  }
}

/** A field for a one-time code, as phones and password managers recognise one. */
function codeInput(label: string): [HTMLLabelElement, HTMLInputElement] {
  return [
    h('label', { for: 'code' }, label),
    h('input', {
      id: 'code',
      name: 'code',
      inputmode: 'numeric',
      autocomplete: 'one-time-code',
      spellcheck: 'false',
      required: true,
    }),
  ];
}

function startOver(options: SignInOptions): HTMLButtonElement {
  return h(
    'button',
    { type: 'button', class: 'link', onclick: () => passwordStep(options, null, null) },
    'Start over',
  );
}

function challengeStep(options: SignInOptions, challenge: Challenge, destination: string | null): void {
  if (challenge === 'NEW_PASSWORD_REQUIRED') {
    newPasswordStep(options);
    return;
  }
  if (challenge === 'MFA_SETUP') {
    void mfaSetupStep(options);
    return;
  }
  const sms = challenge === 'SMS_MFA';
  const [label, code] = codeInput(sms ? 'Code from the text message' : 'Authentication code');
  const form = h(
    'form',
    { class: 'stack' },
    label,
    code,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', class: 'primary' }, 'Verify'),
      startOver(options),
    ),
  );
  const intro = sms
    ? `We sent a 6-digit code by text message to ${destination ?? 'your phone'}. Enter it to finish signing in.`
    : 'Open your authenticator app and enter the 6-digit code it shows for assetql.';
  const s = screen(
    options,
    sms ? 'Enter the code we sent' : 'Enter your authentication code',
    null,
    [h('p', null, intro)],
    form,
  );
  submitCode(options, s, code, challenge);
  focus(code);
}

/** Sends the code typed (spaces dropped) for `challenge`; a wrong one is cleared for another try. */
function submitCode(options: SignInOptions, s: Screen, code: HTMLInputElement, challenge: Challenge): void {
  s.form.addEventListener('submit', (event) => {
    event.preventDefault();
    const typed = code.value.replace(/\s+/g, '');
    void run(
      options,
      s,
      () => confirmSignIn(options.api, options.devices, challenge, typed),
      () => {
        code.value = '';
        focus(code);
      },
    );
  });
}

function newPasswordStep(options: SignInOptions): void {
  const attributes = { type: 'password', autocomplete: 'new-password', required: true } as const;
  const first = h('input', {
    id: 'new-password',
    name: 'new-password',
    'aria-describedby': 'password-rules',
    ...attributes,
  });
  const second = h('input', { id: 'repeat-password', name: 'repeat-password', ...attributes });
  const form = h(
    'form',
    { class: 'stack' },
    h('label', { for: 'new-password' }, 'New password'),
    first,
    h(
      'p',
      { class: 'hint', id: 'password-rules' },
      'At least 8 characters; common passwords and your username are refused.',
    ),
    h('label', { for: 'repeat-password' }, 'Repeat the new password'),
    second,
    showPasswords('Show passwords', first, second),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', class: 'primary' }, 'Set password'),
      startOver(options),
    ),
  );
  const intro = [h('p', null, 'Your password must be replaced before you continue.')];
  const s = screen(options, 'Choose a new password', null, intro, form);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (first.value !== second.value) {
      say(s.error, 'The two passwords differ. Type the same password twice.');
      focus(second);
      return;
    }
    void run(
      options,
      s,
      () => confirmSignIn(options.api, options.devices, 'NEW_PASSWORD_REQUIRED', first.value),
      () => focus(first),
    );
  });
  focus(first);
}

async function mfaSetupStep(options: SignInOptions): Promise<void> {
  const waiting = screen(
    options,
    'Set up an authenticator app',
    null,
    [h('p', null, 'Preparing a secret…')],
    h('form'),
  );
  let token: Awaited<ReturnType<typeof associateSoftwareToken>>;
  try {
    token = await associateSoftwareToken(options.api);
  } catch (e) {
    if (e instanceof SessionEndedError)
      return passwordStep(options, null, 'This sign-in has expired. Sign in again.');
    say(waiting.error, describe(e));
    return;
  }
  if ('refused' in token) return passwordStep(options, null, token.refused);
  const [label, code] = codeInput('Code from the app');
  const form = h(
    'form',
    { class: 'stack' },
    label,
    code,
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit', class: 'primary' }, 'Verify and sign in'),
      startOver(options),
    ),
  );
  const intro = [
    h('p', null, 'Your account needs a second step at sign-in. Add assetql to an authenticator app:'),
    h(
      'ol',
      { class: 'steps' },
      h(
        'li',
        null,
        'Scan this QR code with the app.',
        h(
          'figure',
          { class: 'qr-figure' },
          qrImage(token.otpauthUri, 'QR code of the secret for your authenticator app'),
        ),
      ),
      h(
        'li',
        null,
        'Or type this key into the app instead: ',
        h('code', { id: 'totp-secret', class: 'secret' }, groupedSecret(token.secret)),
      ),
      h('li', null, 'Enter the 6-digit code the app then shows.'),
    ),
  ];
  const s = screen(options, 'Set up an authenticator app', null, intro, form);
  submitCode(options, s, code, 'MFA_SETUP');
  focus(s.heading);
}

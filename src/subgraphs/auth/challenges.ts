import { timingSafeEqual } from 'node:crypto';
import type { Identity } from '../../shared/identity.ts';
import { fail, ok } from '../../shared/result.ts';
import { seal, unseal } from '../../shared/sealed.ts';
import { recordEvent } from './audit.ts';
import { codeHash, sixDigits } from './codes.ts';
import type { AuthCore } from './core.ts';
import { remembersAfterMfa, rememberThisDevice, type SignInDevice } from './devices.ts';
import { type AuthResult, INCORRECT_CREDENTIALS } from './error-codes.ts';
import { newTotpSecret, otpauthUri, totpStep } from './mfa/totp.ts';
import { notify } from './notify.ts';
import { hashPassword, passwordProblem } from './passwords/passwords.ts';
import { forgetRememberedDevices } from './repository/devices.ts';
import {
  deleteSession,
  findSession,
  reserveChallengeAnswer,
  setChallengeState,
} from './repository/sessions.ts';
import { acceptTotpStep, findUser, setPassword, setTotp, type UserRow } from './repository/users.ts';
import { type IssuedSession, openSession, startSession } from './sessions.ts';

/** A pending challenge lives this long (AWS Cognito: 3 minutes)... */
export const CHALLENGE_LIFETIME_MS = 3 * 60 * 1000;
/** ...and dies after this many wrong answers. */
export const CHALLENGE_MAX_ATTEMPTS = 5;

/** How the client signs in: its client type, address, and the device key and name it sent. */
export interface SignInOptions {
  clientType: string;
  deviceKey?: string | null;
  deviceName?: string | null;
  ip: string | null;
}

/** What the steps after the password carry to the session: the device decided at the password. */
export interface NextStepOptions {
  clientType: string;
  ip: string | null;
  device: SignInDevice;
}

/** A sign-in on no known device (after a reset, for one). */
export const NEW_DEVICE: SignInDevice = Object.freeze({ key: null, name: null, remembered: null });

type Device = { key: string | null; name: string | null };

/**
 * After the password (or a completed challenge, or a reset): the next challenge, or the session.
 * Challenges come in this order: a new password, the user's MFA, setting up MFA. A remembered
 * device stands in for the user's MFA (Cognito: a remembered device suppresses the MFA
 * challenge); never for a new password, nor for setting MFA up.
 */
export async function nextStep(
  core: AuthCore,
  user: UserRow,
  opts: NextStepOptions,
): Promise<AuthResult<IssuedSession>> {
  const device = { key: opts.device.key, name: opts.device.name };
  if (user.require_new_password) {
    return startChallenge(core, user, 'NEW_PASSWORD_REQUIRED', opts.clientType, device, {}, {});
  }
  const hasMfa = (user.mfa === 'totp' && user.totp_secret) || (user.mfa === 'sms' && user.phone);
  if (hasMfa && opts.device.remembered) {
    const started = await startSession(core, user.username, opts.clientType, device, opts.ip, core.db, {
      rememberedDevice: true,
    });
    // The answer shows the whole key again, so that a client keeping whatever it is shown keeps it.
    return started.ok ? ok({ ...started.value, deviceKey: opts.device.remembered }) : started;
  }
  if (user.mfa === 'totp' && user.totp_secret) {
    return startChallenge(core, user, 'SOFTWARE_TOKEN_MFA', opts.clientType, device, {}, {});
  }
  if (user.mfa === 'sms' && user.phone) {
    const code = sixDigits();
    const outcome = await startChallenge(
      core,
      user,
      'SMS_MFA',
      opts.clientType,
      device,
      {
        CODE_DELIVERY_DELIVERY_MEDIUM: 'SMS',
        CODE_DELIVERY_DESTINATION: maskPhone(user.phone),
      },
      { codeHash: codeHash(core.codeKey, code) },
    );
    await core.messenger.send({
      channel: 'sms',
      to: user.phone,
      body: `Your assetql sign-in code is ${code}`,
    });
    return outcome;
  }
  if (user.mfa_required) {
    return startChallenge(
      core,
      user,
      'MFA_SETUP',
      opts.clientType,
      device,
      { MFAS_CAN_SETUP: ['SOFTWARE_TOKEN_MFA'] },
      {},
    );
  }
  return startSession(core, user.username, opts.clientType, device, opts.ip);
}

async function startChallenge(
  core: AuthCore,
  user: UserRow,
  name: string,
  clientType: string,
  device: Device,
  param: Record<string, unknown>,
  state: Record<string, unknown>,
): Promise<AuthResult<IssuedSession>> {
  const issued = await openSession(core.db, core.clock.now(), {
    kind: 'challenge',
    username: user.username,
    group: null,
    clientType,
    lifetime: { idleMs: CHALLENGE_LIFETIME_MS, maxMs: CHALLENGE_LIFETIME_MS },
    challenge: {
      name,
      param: { USER_ID_FOR_SRP: user.username, ...param },
      state: { ...state, deviceKey: device.key, deviceName: device.name },
    },
  });
  return ok(issued);
}

const TOO_MANY_ANSWERS = fail('CHALLENGE_EXPIRED', 'Too many wrong codes; sign in again.');
const CHALLENGE_GONE = fail('CHALLENGE_EXPIRED', 'The sign-in expired; sign in again.');

/**
 * Answers the pending challenge. After a right MFA code the device is remembered when the policy
 * says so (`always`, or `opt-in` with `rememberDevice`), and the answer's `Session.deviceKey` is
 * then its whole key, secret included (devices.ts).
 */
export async function confirmSignIn(
  core: AuthCore,
  identity: Identity,
  code: string,
  mfaType: string,
  options: { rememberDevice?: boolean } = {},
): Promise<AuthResult<IssuedSession>> {
  if (identity.kind !== 'challenge' || !identity.sessionHash) {
    return fail('NO_PENDING_CHALLENGE', 'No sign-in is waiting for a challenge answer.');
  }
  const hash = Buffer.from(identity.sessionHash, 'hex');
  const ip = identity.clientIp ?? null;
  const now = core.clock.now();
  const pending = await findSession(core.db, hash);
  if (pending?.kind !== 'challenge' || pending.expires_at_hard <= now) return CHALLENGE_GONE;
  if (pending.challenge_name !== mfaType) {
    return fail(
      'NO_PENDING_CHALLENGE',
      `The pending challenge is ${pending.challenge_name}, not ${mfaType}.`,
    );
  }
  const user = await findUser(core.db, pending.username);
  if (!user || user.disabled) return INCORRECT_CREDENTIALS;
  const state = (pending.challenge_state ?? {}) as Record<string, unknown>;
  const device: Device = {
    key: (state.deviceKey as string | null) ?? null,
    name: (state.deviceName as string | null) ?? null,
  };
  const opts: NextStepOptions = {
    clientType: pending.client_type,
    ip,
    device: { key: device.key, name: device.name, remembered: null },
  };

  if (mfaType === 'NEW_PASSWORD_REQUIRED') return newPasswordAnswer(core, user, hash, code, opts);
  const setupSecret = typeof state.pendingTotpSecret === 'string' ? state.pendingTotpSecret : null;
  if (mfaType === 'MFA_SETUP' && !setupSecret) {
    return fail('NO_PENDING_CHALLENGE', 'Call associateSoftwareToken first to get a secret.');
  }

  // The answer is counted before it is checked, so that a burst of answers sent at once gets no
  // more checks than one after the other would: CHALLENGE_MAX_ATTEMPTS, whatever arrives.
  const answer = await reserveChallengeAnswer(core.db, hash, CHALLENGE_MAX_ATTEMPTS);
  if (answer === undefined) {
    await deleteSession(core.db, hash);
    return TOO_MANY_ANSWERS;
  }
  const given = code.trim();
  let right: boolean;
  let setupStep: number | null = null;
  switch (mfaType) {
    case 'SOFTWARE_TOKEN_MFA': {
      const secret = user.totp_secret ? unseal(core.totpKey, user.totp_secret) : null;
      const step = secret ? totpStep(secret, given, now) : null;
      // The replay guard: a time step is accepted once, atomically (repository/users.ts).
      right = step !== null && (await acceptTotpStep(core.db, user.username, step));
      break;
    }
    case 'SMS_MFA': {
      const expected = typeof state.codeHash === 'string' ? Buffer.from(state.codeHash, 'base64url') : null;
      right =
        expected !== null &&
        timingSafeEqual(expected, Buffer.from(codeHash(core.codeKey, given), 'base64url'));
      break;
    }
    case 'MFA_SETUP':
      setupStep = totpStep(unseal(core.totpKey, setupSecret!), given, now);
      right = setupStep !== null;
      break;
    default:
      return fail('INVALID_INPUT', `Unknown challenge ${mfaType}.`);
  }
  if (!right) {
    await recordEvent(core, user.username, 'challenge_failed', ip, { challenge: mfaType });
    if (answer >= CHALLENGE_MAX_ATTEMPTS) {
      await deleteSession(core.db, hash);
      return TOO_MANY_ANSWERS;
    }
    return fail(
      'CODE_MISMATCH',
      mfaType === 'SOFTWARE_TOKEN_MFA' ? 'The code is wrong or was already used.' : 'The code is wrong.',
    );
  }
  // A right answer ends the challenge: only the request that deletes it signs in, so the same
  // code sent several times at once signs in once.
  const outcome = await core.db.transaction().execute(async (trx): Promise<AuthResult<IssuedSession>> => {
    if (!(await deleteSession(trx, hash))) return CHALLENGE_GONE;
    if (mfaType === 'MFA_SETUP') {
      await setTotp(trx, user.username, setupSecret!, setupStep!);
      await recordEvent(core, user.username, 'mfa_setup', ip, undefined, trx);
    }
    const started = await startSession(core, user.username, pending.client_type, device, ip, trx);
    if (
      !started.ok ||
      !started.value.deviceKey ||
      !remembersAfterMfa(core, options.rememberDevice === true)
    ) {
      return started;
    }
    const deviceKey = await rememberThisDevice(core, trx, user.username, started.value.deviceKey, ip);
    return ok({ ...started.value, deviceKey });
  });
  if (outcome.ok && mfaType === 'MFA_SETUP') notify(core, user.username, { kind: 'mfa_setup' }, ip);
  return outcome;
}

/**
 * NEW_PASSWORD_REQUIRED: the new password goes in `code`. A password the policy refuses is not a
 * wrong answer (it is not counted). The challenge ends with the new password set; with MFA, its
 * challenge follows under a new ID.
 */
async function newPasswordAnswer(
  core: AuthCore,
  user: UserRow,
  hash: Buffer,
  password: string,
  opts: NextStepOptions,
): Promise<AuthResult<IssuedSession>> {
  const problem = passwordProblem(password, user.username);
  if (problem) return fail('INVALID_PASSWORD', problem);
  const newHash = await hashPassword(password);
  const set = await core.db.transaction().execute(async (trx) => {
    // Only the request that ends the challenge sets a password.
    if (!(await deleteSession(trx, hash))) return false;
    await setPassword(trx, user.username, newHash, core.clock.now(), { clearFailures: false });
    // As after any change of password, no device skips MFA until it completes MFA again.
    await forgetRememberedDevices(trx, user.username);
    await recordEvent(
      core,
      user.username,
      'password_changed',
      opts.ip,
      { via: 'NEW_PASSWORD_REQUIRED' },
      trx,
    );
    return true;
  });
  if (!set) return CHALLENGE_GONE;
  notify(core, user.username, { kind: 'password_changed', otherSessionsEnded: false }, opts.ip);
  const refreshed = await findUser(core.db, user.username);
  if (!refreshed) return INCORRECT_CREDENTIALS;
  return nextStep(core, refreshed, opts);
}

/** MFA_SETUP: a fresh TOTP secret held in the pending challenge until a code proves it. */
export async function associateSoftwareToken(
  core: AuthCore,
  identity: Identity,
): Promise<AuthResult<{ secret: string; otpauthUri: string }>> {
  if (identity.kind !== 'challenge' || !identity.sessionHash || !identity.username) {
    return fail('NO_PENDING_CHALLENGE', 'No MFA setup is pending.');
  }
  const hash = Buffer.from(identity.sessionHash, 'hex');
  const pending = await findSession(core.db, hash);
  if (pending?.challenge_name !== 'MFA_SETUP')
    return fail('NO_PENDING_CHALLENGE', 'No MFA setup is pending.');
  const secret = newTotpSecret();
  await setChallengeState(core.db, hash, {
    ...(pending.challenge_state ?? {}),
    pendingTotpSecret: seal(core.totpKey, secret),
  });
  return ok({ secret, otpauthUri: otpauthUri(secret, identity.username) });
}

/** An SMS challenge shows where the code went: the first and last two characters of the number. */
function maskPhone(phone: string): string {
  return phone.length <= 4
    ? '****'
    : `${phone.slice(0, 2)}${'*'.repeat(Math.max(0, phone.length - 4))}${phone.slice(-2)}`;
}

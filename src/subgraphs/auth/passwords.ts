import { timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Identity } from '../../shared/identity.ts';
import { fail, ok } from '../../shared/result.ts';
import type { Tables } from '../../storage/tables.ts';
import { recordEvent } from './audit.ts';
import { BACKED_OFF, checkPassword } from './backoff.ts';
import { NEW_DEVICE, nextStep } from './challenges.ts';
import { codeHash, sixDigits } from './codes.ts';
import type { AuthCore } from './core.ts';
import { type AuthResult, INCORRECT_CREDENTIALS, SESSION_ENDED, USER_DISABLED } from './error-codes.ts';
import { notify } from './notify.ts';
import { hashPassword, passwordProblem } from './passwords/passwords.ts';
import { forgetRememberedDevices } from './repository/devices.ts';
import {
  putResetCode,
  reserveResetAnswer,
  returnResetAnswer,
  takeResetCode,
} from './repository/password-resets.ts';
import { deleteSessionsOf } from './repository/sessions.ts';
import { findUser, setPassword } from './repository/users.ts';
import { type IssuedSession, rotateSession } from './sessions.ts';

/** Password-reset codes: 6 digits, valid 15 minutes, 5 tries, single use. */
export const RESET_CODE_LIFETIME_MS = 15 * 60 * 1000;
export const RESET_CODE_MAX_ATTEMPTS = 5;

/**
 * A signed-in user changes their password (ASVS 2.1.5 / 2.1.6). The current password is
 * checked like a sign-in's (the same account backoff; the resolver applies the sign-in limit
 * per address), the new one against the policy. On success the password is stored, this
 * session gets a new ID (and counts as just authenticated), and every other session and
 * pending challenge of the user ends, as after a reset (ASVS 3.3.3); API keys stay.
 */
export async function changePassword(
  core: AuthCore,
  identity: Identity,
  currentPassword: string,
  newPassword: string,
): Promise<AuthResult<IssuedSession>> {
  if (identity.kind !== 'session' || !identity.username || !identity.sessionHash) {
    return fail('UNAUTHENTICATED', 'Sign in (not with an API key) to change your password.');
  }
  const ip = identity.clientIp ?? null;
  const now = core.clock.now();
  const user = await findUser(core.db, identity.username);
  const check = await checkPassword(core, user, identity.username, currentPassword);
  if (check === 'backed_off') {
    await recordEvent(core, identity.username, 'password_change_throttled', ip);
    return BACKED_OFF;
  }
  if (check === 'wrong' || !user) {
    await recordEvent(core, identity.username, 'password_change_failed', ip);
    return fail('NOT_AUTHORIZED', 'The current password is wrong.');
  }
  const problem = passwordProblem(newPassword, user.username);
  if (problem) return fail('INVALID_PASSWORD', problem);
  const newHash = await hashPassword(newPassword);
  let ended = 0;
  const issued = await rotateSession(
    core,
    identity.sessionHash,
    { last_authenticated_at: now },
    async (trx) => {
      // This session's old row is already gone: what remains are the others.
      ended = await replacePassword(trx, user.username, newHash, now);
      await recordEvent(
        core,
        user.username,
        'password_changed',
        ip,
        { via: 'changePassword', sessionsEnded: ended },
        trx,
      );
    },
  );
  if (!issued) return SESSION_ENDED;
  notify(core, user.username, { kind: 'password_changed', otherSessionsEnded: true }, ip);
  return ok(issued);
}

/**
 * Starts a reset. The answer and its timing do not depend on whether the user exists:
 * the code is made and sent after the reply, off the request's path.
 */
export function forgotPassword(core: AuthCore, loginUsername: string, ip: string | null): void {
  const work = async () => {
    const user = await findUser(core.db, loginUsername);
    await recordEvent(core, user?.username ?? null, 'password_reset_requested', ip, {
      loginUsername: loginUsername.slice(0, 128),
    });
    if (!user || user.disabled || (!user.email && !user.phone)) return;
    const code = sixDigits();
    const expires = new Date(core.clock.now().getTime() + RESET_CODE_LIFETIME_MS);
    await putResetCode(
      core.db,
      user.username,
      Buffer.from(codeHash(core.codeKey, code), 'base64url'),
      expires,
    );
    const body = `Your assetql password reset code is ${code}. It is valid for 15 minutes.`;
    await core.messenger.send(
      user.email
        ? { channel: 'email', to: user.email, subject: 'Reset your assetql password', body }
        : { channel: 'sms', to: user.phone!, body },
    );
  };
  work().catch((err) => core.log.error({ err }, 'password reset could not be started'));
}

/**
 * Ends a reset: the code, then the new password. The code is checked first, with the same
 * statements and the same hashing whether or not the user exists (an unknown user's answer
 * reserves nothing, as an exhausted code's does), and no argon2 hash is made for a wrong code;
 * so neither the answer (CODE_MISMATCH, whatever the password) nor the work done tells whether
 * the user exists. Only the holder of the right code learns that the password was refused.
 */
export async function forgotPasswordSubmit(
  core: AuthCore,
  loginUsername: string,
  code: string,
  password: string,
  ip: string | null,
  opts: { signIn: boolean } = { signIn: true },
): Promise<AuthResult<IssuedSession | null>> {
  const invalid = fail('CODE_MISMATCH', 'The code is wrong or expired.');
  const now = core.clock.now();
  const user = await findUser(core.db, loginUsername);
  const given = Buffer.from(codeHash(core.codeKey, code.trim()), 'base64url');
  const expected = await reserveResetAnswer(
    core.db,
    user?.username ?? loginUsername,
    now,
    RESET_CODE_MAX_ATTEMPTS,
  );
  const right = expected !== undefined && timingSafeEqual(given, expected);
  if (!user || !right) {
    await recordEvent(core, user?.username ?? null, 'password_reset_failed', ip, {
      loginUsername: loginUsername.slice(0, 128),
    });
    return invalid;
  }
  const problem = passwordProblem(password, user.username);
  if (problem) {
    await returnResetAnswer(core.db, user.username, given);
    return fail('INVALID_PASSWORD', problem);
  }
  const newHash = await hashPassword(password);
  const reset = await core.db.transaction().execute(async (trx) => {
    // Single use: only the request that deletes the code sets the password.
    if (!(await takeResetCode(trx, user.username, given))) return false;
    await replacePassword(trx, user.username, newHash, now);
    await recordEvent(core, user.username, 'password_reset', ip, undefined, trx);
    return true;
  });
  if (!reset) return invalid;
  notify(core, user.username, { kind: 'password_reset' }, ip);
  if (user.disabled) return USER_DISABLED;
  if (!opts.signIn) return ok(null);
  // The new password stands in for the old one only: MFA still applies, as at any sign-in.
  const refreshed = await findUser(core.db, user.username);
  if (!refreshed) return INCORRECT_CREDENTIALS;
  return nextStep(core, refreshed, { clientType: 'EXPLORER', ip, device: NEW_DEVICE });
}

/**
 * Stores a new password hash and ends every way in but API keys: the user's sessions and
 * pending challenges (a new password is a privilege change), and what remembered devices skip.
 * Returns how many sessions were ended.
 */
async function replacePassword(
  db: Kysely<Tables>,
  username: string,
  hash: string,
  now: Date,
): Promise<number> {
  await setPassword(db, username, hash, now, { clearFailures: true });
  // A remembered device stands in for the second factor: after a new password, none does until
  // it completes MFA again (docs/auth.md §7).
  await forgetRememberedDevices(db, username);
  return deleteSessionsOf(db, username, { apiKeys: false });
}

import { fail } from '../../shared/result.ts';
import { recordEvent } from './audit.ts';
import { BACKED_OFF, checkPassword } from './backoff.ts';
import { nextStep, type SignInOptions } from './challenges.ts';
import type { AuthCore } from './core.ts';
import { deviceNameProblem, identifyDevice } from './devices.ts';
import { type AuthResult, INCORRECT_CREDENTIALS, USER_DISABLED } from './error-codes.ts';
import { findUser, MAX_USERNAME_LENGTH } from './repository/users.ts';
import type { IssuedSession } from './sessions.ts';

export interface SignInRequest extends SignInOptions {
  loginUsername: string;
  password: string;
}

/**
 * Sign-in with a username and password: a session, or the first challenge (challenges.ts).
 * An unknown user costs the same argon2 work as a wrong password and gets the same answer;
 * a disabled user is told so only after a correct password.
 */
export async function signIn(core: AuthCore, req: SignInRequest): Promise<AuthResult<IssuedSession>> {
  // Input no account can match is refused as such, before any work (no name is that long).
  if (req.loginUsername.length > MAX_USERNAME_LENGTH)
    return fail('INVALID_INPUT', `loginUsername may have at most ${MAX_USERNAME_LENGTH} characters.`);
  const badName = deviceNameProblem(req.deviceName);
  if (badName) return fail('INVALID_INPUT', badName);
  const user = await findUser(core.db, req.loginUsername);
  const check = await checkPassword(core, user, req.loginUsername, req.password);
  if (check === 'backed_off') {
    await recordEvent(core, user?.username ?? null, 'sign_in_throttled', req.ip);
    return BACKED_OFF;
  }
  if (check === 'wrong' || !user) {
    await recordEvent(core, user?.username ?? null, 'sign_in_failed', req.ip, {
      loginUsername: req.loginUsername.slice(0, 128),
    });
    return INCORRECT_CREDENTIALS;
  }
  if (user.disabled) return USER_DISABLED;
  return nextStep(core, user, {
    clientType: req.clientType,
    ip: req.ip,
    device: await identifyDevice(core, user.username, req.deviceKey, req.deviceName),
  });
}

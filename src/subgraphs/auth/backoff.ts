import { fail } from '../../shared/result.ts';
import type { AuthCore } from './core.ts';
import { verifyPassword } from './passwords/passwords.ts';
import { clearFailedAttempts, reservePasswordAttempt, type UserRow } from './repository/users.ts';

/** Consecutive wrong passwords allowed before the account backs off (then 1 s, 2 s, 4 s… up to 15 min). */
export const FREE_FAILURES = 5;
export const MAX_BACKOFF_MS = 15 * 60 * 1000;

/**
 * The per-account backoff (docs/auth.md §10), shared by every check of a password a user types:
 * `signIn`, `reauthenticate` and the current password of `changePassword`. While it lasts the
 * password is not even checked.
 */
export const BACKED_OFF = fail('LIMIT_EXCEEDED', 'Too many failed attempts; try again later.');

export type PasswordCheck = 'right' | 'wrong' | 'backed_off';

/**
 * Checks a password a user typed, under the account backoff. The attempt is counted in the
 * database before argon2 runs (reservePasswordAttempt), not after it from a count read before:
 * otherwise every guess of a concurrent burst reads the same count and all are checked. So with
 * FREE_FAILURES free attempts, at most FREE_FAILURES + 1 passwords are checked (the last one
 * locks the account) however many arrive at once. A right password gives its attempt back and
 * ends the run of wrong ones, wherever it was typed.
 *
 * An unknown user (`user` undefined, `loginName` as typed) costs the same statement and the same
 * argon2 work as a wrong password, and is `wrong`.
 */
export async function checkPassword(
  core: AuthCore,
  user: UserRow | undefined,
  loginName: string,
  password: string,
): Promise<PasswordCheck> {
  const counted = await reservePasswordAttempt(core.db, user?.username ?? loginName, core.clock.now(), {
    free: FREE_FAILURES,
    maxMs: MAX_BACKOFF_MS,
  });
  if (user && counted === undefined) return 'backed_off';
  const right = await verifyPassword(user?.password_hash, password);
  if (!user || !right) return 'wrong';
  await clearFailedAttempts(core.db, user.username);
  return 'right';
}

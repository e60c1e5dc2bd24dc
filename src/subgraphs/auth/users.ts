import type { Kysely } from 'kysely';
import { seal } from '../../shared/sealed.ts';
import type { Tables } from '../../storage/tables.ts';
import { totpKey } from './core.ts';
import type { Messenger } from './messaging/messenger.ts';
import { sendNotice } from './messaging/notices.ts';
import { newTotpSecret, otpauthUri } from './mfa/totp.ts';
import { hashPassword, passwordProblem } from './passwords/passwords.ts';
import { deleteApiKeysOf } from './repository/api-keys.ts';
import { forgetRememberedDevices } from './repository/devices.ts';
import { deleteSessionsOf } from './repository/sessions.ts';
import * as users from './repository/users.ts';

export interface NewUser {
  username: string;
  groups: string[];
  password: string;
  email?: string | null;
  phone?: string | null;
  mfa?: 'totp' | 'sms' | null;
  /** The user must set up TOTP at the next sign-in (MFA_SETUP). */
  requireMfa?: boolean;
  requireNewPassword?: boolean;
  /** Skip the password policy (the demo user only). */
  allowWeakPassword?: boolean;
}

export interface CreatedUser {
  user: {
    username: string;
    groups: string[];
    email: string | null;
    phone: string | null;
    mfa: string | null;
  };
  totp?: { secret: string; otpauthUri: string };
}

export class UserError extends Error {
  override name = 'UserError';
}

const USERNAME = /^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$/;
const GROUP = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

/** Administration: what `assetql users add` does. */
export async function createUser(db: Kysely<Tables>, secret: string, u: NewUser): Promise<CreatedUser> {
  if (!USERNAME.test(u.username))
    throw new UserError('the username may have letters, digits and . _ @ + - (at most 128)');
  if (u.groups.length === 0) throw new UserError('give at least one --group');
  for (const g of u.groups) if (!GROUP.test(g)) throw new UserError(`"${g}" is not a valid group name`);
  if (!u.allowWeakPassword) {
    const problem = passwordProblem(u.password, u.username);
    if (problem) throw new UserError(problem);
  }
  if (u.mfa === 'sms' && !u.phone) throw new UserError('--mfa sms needs --phone');
  const totpSecret = u.mfa === 'totp' ? newTotpSecret() : null;
  const passwordHash = await hashPassword(u.password);
  await db.transaction().execute(async (trx) => {
    const clash = await users.usernameTakenBy(trx, u.username);
    if (clash) throw new UserError(`user ${clash} already exists`);
    await users.insertUser(trx, {
      username: u.username,
      email: u.email ?? null,
      phone: u.phone ?? null,
      password_hash: passwordHash,
      mfa: u.mfa ?? null,
      mfa_required: u.requireMfa ?? false,
      totp_secret: totpSecret ? seal(totpKey(secret), totpSecret) : null,
      require_new_password: u.requireNewPassword ?? false,
      password_changed_at: new Date(),
    });
    await users.addGroups(trx, u.username, [...new Set(u.groups)]);
  });
  return {
    user: {
      username: u.username,
      groups: [...new Set(u.groups)].sort(),
      email: u.email ?? null,
      phone: u.phone ?? null,
      mfa: u.mfa ?? null,
    },
    ...(totpSecret ? { totp: { secret: totpSecret, otpauthUri: otpauthUri(totpSecret, u.username) } } : {}),
  };
}

/** What `assetql users list` prints: users with their groups. */
export function listUsers(db: Kysely<Tables>) {
  return users.listUsers(db);
}

/** Disables a user and ends all its sessions, challenges and API keys at once; no device stays remembered. */
export async function disableUser(db: Kysely<Tables>, username: string): Promise<{ sessionsEnded: number }> {
  return db.transaction().execute(async (trx) => {
    if (!(await users.disableUser(trx, username))) throw new UserError(`no user ${username}`);
    const ended = await deleteSessionsOf(trx, username, { apiKeys: true });
    await deleteApiKeysOf(trx, username);
    // Re-enabled one day, the user completes MFA again on every device.
    await forgetRememberedDevices(trx, username);
    return { sessionsEnded: ended };
  });
}

/**
 * Removes the user's MFA, and with it every remembered device; with `requireMfa` they must set
 * it up again at the next sign-in.
 * With a messenger, the user is told (ASVS 2.2.3). The MFA is removed whether or not the
 * notice goes out: `notified` says whether it did, `noticeError` why not.
 */
export async function resetMfa(
  db: Kysely<Tables>,
  username: string,
  requireMfa = false,
  options: { messenger?: Messenger; at?: Date } = {},
): Promise<{ notified: boolean; noticeError?: string }> {
  const user = await db.transaction().execute(async (trx) => {
    const removed = await users.removeMfa(trx, username, requireMfa);
    // A device remembered for the removed factor stands in for it no more.
    if (removed) await forgetRememberedDevices(trx, username);
    return removed;
  });
  if (!user) throw new UserError(`no user ${username}`);
  if (!options.messenger) return { notified: false };
  try {
    const notified = await sendNotice(
      options.messenger,
      user,
      { kind: 'mfa_removed', setUpAgain: requireMfa },
      { username: user.username, at: options.at ?? new Date(), ip: null },
    );
    return { notified };
  } catch (e) {
    return { notified: false, noticeError: e instanceof Error ? e.message : String(e) };
  }
}

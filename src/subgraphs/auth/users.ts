import type { Kysely } from 'kysely';
import { deriveKey } from '../../shared/secrets.ts';
import type { Tables } from '../../storage/tables.ts';
import type { Messenger } from './messaging/messenger.ts';
import { sendNotice } from './messaging/notices.ts';
import { newTotpSecret, otpauthUri } from './mfa/totp.ts';
import { hashPassword, passwordProblem } from './passwords/passwords.ts';
import { seal } from './passwords/sealed.ts';

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
    const clash = await trx
      .selectFrom('users')
      .select('username')
      .where((eb) => eb(eb.fn('lower', ['username']), '=', u.username.toLowerCase()))
      .executeTakeFirst();
    if (clash) throw new UserError(`user ${clash.username} already exists`);
    await trx
      .insertInto('users')
      .values({
        username: u.username,
        email: u.email ?? null,
        phone: u.phone ?? null,
        password_hash: passwordHash,
        mfa: u.mfa ?? null,
        mfa_required: u.requireMfa ?? false,
        totp_secret: totpSecret ? seal(deriveKey(secret, 'totp-seal'), totpSecret) : null,
        require_new_password: u.requireNewPassword ?? false,
        password_changed_at: new Date(),
      })
      .execute();
    await trx
      .insertInto('user_groups')
      .values([...new Set(u.groups)].map((g) => ({ username: u.username, user_group: g })))
      .execute();
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

export async function listUsers(db: Kysely<Tables>) {
  const users = await db
    .selectFrom('users')
    .select(['username', 'email', 'phone', 'mfa', 'disabled', 'created_at'])
    .orderBy('username')
    .execute();
  const groups = await db.selectFrom('user_groups').selectAll().execute();
  return users.map((u) => ({
    ...u,
    groups: groups
      .filter((g) => g.username === u.username)
      .map((g) => g.user_group)
      .sort(),
  }));
}

/** Disables a user and ends all its sessions, challenges and API keys at once. */
export async function disableUser(db: Kysely<Tables>, username: string): Promise<{ sessionsEnded: number }> {
  return db.transaction().execute(async (trx) => {
    const r = await trx
      .updateTable('users')
      .set({ disabled: true })
      .where('username', '=', username)
      .executeTakeFirst();
    if (r.numUpdatedRows === 0n) throw new UserError(`no user ${username}`);
    const ended = await trx.deleteFrom('sessions').where('username', '=', username).executeTakeFirst();
    await trx.deleteFrom('api_keys').where('username', '=', username).execute();
    return { sessionsEnded: Number(ended.numDeletedRows) };
  });
}

/**
 * Removes the user's MFA; with `requireMfa` they must set it up again at the next sign-in.
 * With a messenger, the user is told (ASVS 2.2.3). The MFA is removed whether or not the
 * notice goes out: `notified` says whether it did, `noticeError` why not.
 */
export async function resetMfa(
  db: Kysely<Tables>,
  username: string,
  requireMfa = false,
  options: { messenger?: Messenger; at?: Date } = {},
): Promise<{ notified: boolean; noticeError?: string }> {
  const user = await db
    .updateTable('users')
    .set({ mfa: null, totp_secret: null, totp_last_step: 0, mfa_required: requireMfa })
    .where('username', '=', username)
    .returning(['username', 'email', 'phone'])
    .executeTakeFirst();
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

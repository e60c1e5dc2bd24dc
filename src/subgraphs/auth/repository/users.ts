import { type Insertable, type Kysely, sql } from 'kysely';
import type { Tables, UsersTable } from '../../../storage/tables.ts';

// Users, their groups and their links to identity providers. A transaction is a Kysely too:
// every function here takes either, so flows decide what must happen together.
type Db = Kysely<Tables>;

/** What sign-in and the flows after it need to know of a user. */
export interface UserRow {
  username: string;
  email: string | null;
  phone: string | null;
  password_hash: string | null;
  disabled: boolean;
  mfa: string | null;
  mfa_required: boolean;
  totp_secret: string | null;
  totp_last_step: number;
  require_new_password: boolean;
  failed_attempts: number;
  locked_until: Date | null;
}

/** Where a user can be told something: email, else a text message. */
export interface UserContact {
  email: string | null;
  phone: string | null;
}

/** The longest username (`assetql users add` allows no longer; sign-in refuses longer ones). */
export const MAX_USERNAME_LENGTH = 128;

/** The user a login name names, ignoring case (as sign-in does); names over 128 characters name no one. */
export async function findUser(db: Db, loginUsername: string): Promise<UserRow | undefined> {
  if (loginUsername.length === 0 || loginUsername.length > MAX_USERNAME_LENGTH) return undefined;
  return db
    .selectFrom('users')
    .select([
      'username',
      'email',
      'phone',
      'password_hash',
      'disabled',
      'mfa',
      'mfa_required',
      'totp_secret',
      'totp_last_step',
      'require_new_password',
      'failed_attempts',
      'locked_until',
    ])
    .where(sql`lower(username)`, '=', loginUsername.toLowerCase())
    .executeTakeFirst();
}

/** The existing user whose name equals `username` ignoring case, if any. */
export async function usernameTakenBy(db: Db, username: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('users')
    .select('username')
    .where(sql`lower(username)`, '=', username.toLowerCase())
    .executeTakeFirst();
  return row?.username;
}

export function contactOf(db: Db, username: string): Promise<UserContact | undefined> {
  return db
    .selectFrom('users')
    .select(['email', 'phone'])
    .where('username', '=', username)
    .executeTakeFirst();
}

/** The user's groups, sorted: the first is where a new session starts. */
export async function groupsOf(db: Db, username: string): Promise<string[]> {
  const rows = await db
    .selectFrom('user_groups')
    .select('user_group')
    .where('username', '=', username)
    .orderBy('user_group')
    .execute();
  return rows.map((r) => r.user_group);
}

/** Users with their groups, for administration. */
export async function listUsers(db: Db) {
  const users = await db
    .selectFrom('users')
    .select(['username', 'email', 'phone', 'mfa', 'disabled', 'created_at'])
    .orderBy('username')
    .execute();
  const groups = new Map<string, string[]>();
  for (const g of await db.selectFrom('user_groups').selectAll().orderBy('user_group').execute()) {
    const of = groups.get(g.username);
    if (of) of.push(g.user_group);
    else groups.set(g.username, [g.user_group]);
  }
  // camelCase, as every other output of the command line.
  return users.map(({ created_at, ...u }) => ({
    ...u,
    createdAt: created_at,
    groups: groups.get(u.username) ?? [],
  }));
}

/** A new user; fails when the name is taken (no "on conflict": nobody takes over a user). */
export async function insertUser(db: Db, user: Insertable<UsersTable>): Promise<void> {
  await db.insertInto('users').values(user).execute();
}

/** Adds the user to groups; those the user already has stay as they are. */
export async function addGroups(db: Db, username: string, groups: readonly string[]): Promise<void> {
  if (groups.length === 0) return;
  await db
    .insertInto('user_groups')
    .values(groups.map((g) => ({ username, user_group: g })))
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/**
 * Makes `groups` the user's only groups: removes the others and adds the missing ones, leaving
 * the memberships that stay untouched (a federated sign-in with the same groups changes no row,
 * so no session change notice goes out for it).
 */
export async function replaceGroups(db: Db, username: string, groups: readonly string[]): Promise<void> {
  let removed = db.deleteFrom('user_groups').where('username', '=', username);
  if (groups.length) removed = removed.where('user_group', 'not in', groups);
  await removed.execute();
  await addGroups(db, username, groups);
}

/**
 * Reserves one password attempt before the password is checked, in one statement: the count of
 * wrong passwords goes up by one and, past `free`, the account is locked at once for 1 s doubling
 * up to `maxMs` (the backoff, docs/auth.md §10). A locked account reserves nothing. Concurrent
 * attempts each see the count the others left, so no more than `free` + 1 get past it however
 * many arrive together. Returns the new count, or undefined when the account is locked (or there
 * is no such user).
 */
export async function reservePasswordAttempt(
  db: Db,
  username: string,
  now: Date,
  backoff: { free: number; maxMs: number },
): Promise<number | undefined> {
  const row = await db
    .updateTable('users')
    .set({
      failed_attempts: sql`failed_attempts + 1`,
      // failed_attempts is the count before this attempt; the exponent is capped before power()
      // so that a long run of attempts cannot overflow it.
      locked_until: sql`case when failed_attempts + 1 > ${backoff.free}
        then ${now}::timestamptz + least(power(2, least(failed_attempts - ${backoff.free}, 30)) * 1000, ${backoff.maxMs})
          * interval '1 millisecond' end`,
    })
    .where('username', '=', username)
    .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', now)]))
    .returning('failed_attempts')
    .executeTakeFirst();
  return row?.failed_attempts;
}

/** A right password: the run of wrong ones ends, and so does any lock. */
export async function clearFailedAttempts(db: Db, username: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ failed_attempts: 0, locked_until: null })
    .where('username', '=', username)
    .execute();
}

/**
 * Stores a new password hash; it is no longer required to choose one. With `clearFailures`, the
 * count of wrong passwords and any lock go too.
 */
export async function setPassword(
  db: Db,
  username: string,
  hash: string,
  now: Date,
  options: { clearFailures: boolean },
): Promise<void> {
  await db
    .updateTable('users')
    .set({
      password_hash: hash,
      require_new_password: false,
      password_changed_at: now,
      ...(options.clearFailures ? { failed_attempts: 0, locked_until: null } : {}),
    })
    .where('username', '=', username)
    .execute();
}

/** Accepts a TOTP time step once: only a step later than the last accepted one wins. */
export async function acceptTotpStep(db: Db, username: string, step: number): Promise<boolean> {
  const r = await db
    .updateTable('users')
    .set({ totp_last_step: step })
    .where('username', '=', username)
    .where('totp_last_step', '<', step)
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

/** MFA set up: the sealed TOTP secret, and the step of the code that proved it (used once). */
export async function setTotp(db: Db, username: string, sealedSecret: string, step: number): Promise<void> {
  await db
    .updateTable('users')
    .set({ mfa: 'totp', totp_secret: sealedSecret, totp_last_step: step })
    .where('username', '=', username)
    .execute();
}

/** Removes the user's MFA; with `requireMfa` it must be set up at the next sign-in. */
export async function removeMfa(
  db: Db,
  username: string,
  requireMfa: boolean,
): Promise<(UserContact & { username: string }) | undefined> {
  return db
    .updateTable('users')
    .set({ mfa: null, totp_secret: null, totp_last_step: 0, mfa_required: requireMfa })
    .where('username', '=', username)
    .returning(['username', 'email', 'phone'])
    .executeTakeFirst();
}

/** True when there was such a user to disable. */
export async function disableUser(db: Db, username: string): Promise<boolean> {
  const r = await db
    .updateTable('users')
    .set({ disabled: true })
    .where('username', '=', username)
    .executeTakeFirst();
  return r.numUpdatedRows > 0n;
}

// Links to identity providers: (issuer, subject) names one local user.

export async function linkedUsername(db: Db, issuer: string, subject: string): Promise<string | undefined> {
  const link = await db
    .selectFrom('federated_identities')
    .select('username')
    .where('issuer', '=', issuer)
    .where('subject', '=', subject)
    .executeTakeFirst();
  return link?.username;
}

export async function insertLink(
  db: Db,
  link: { issuer: string; subject: string; username: string; now: Date },
): Promise<void> {
  await db
    .insertInto('federated_identities')
    .values({ issuer: link.issuer, subject: link.subject, username: link.username, created_at: link.now })
    .execute();
}

export async function touchLink(db: Db, issuer: string, subject: string, now: Date): Promise<void> {
  await db
    .updateTable('federated_identities')
    .set({ last_signed_in_at: now })
    .where('issuer', '=', issuer)
    .where('subject', '=', subject)
    .execute();
}

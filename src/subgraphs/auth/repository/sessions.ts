import { type Insertable, type Kysely, type Selectable, sql } from 'kysely';
import type { SessionsTable, Tables } from '../../../storage/tables.ts';

// Sessions: signed-in sessions, API keys' sessions and pending challenges, each a row keyed
// by the SHA-256 of its ID. This module is the only one that writes them.
type Db = Kysely<Tables>;

export type SessionRow = Selectable<SessionsTable>;

/**
 * The one rule of a session's standing: it counts only while its user exists, is not disabled
 * and still belongs to the session's group (a pending challenge has no group yet). Disabled
 * users and users who left the group lose every session and API key at once. Resolution and the
 * user's list of sessions both ask this, so a listed session is one that resolves; so does
 * `userInGoodStanding`, for what users leave behind them (export links). Queries using it name
 * the session `s` and left-join its user as `u`.
 */
const inGoodStanding = sql<boolean>`(coalesce(not u.disabled, false) and (s.user_group is null or exists (
  select 1 from user_groups g where g.username = s.username and g.user_group = s.user_group)))`;

/**
 * Whether `username` is in good standing in `group`, by the sessions' own rule: asked of a row
 * that stands for a session of that user in that group.
 */
export async function userInGoodStanding(db: Db, username: string, group: string): Promise<boolean> {
  const { rows } = await sql<{ ok: boolean }>`select ${inGoodStanding} as ok
    from (select ${username}::text as username, ${group}::text as user_group) as s
    left join users as u on u.username = s.username`.execute(db);
  return rows[0]?.ok === true;
}

export async function insertSession(db: Db, row: Insertable<SessionsTable>): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

export function findSession(db: Db, hash: Buffer): Promise<SessionRow | undefined> {
  return db.selectFrom('sessions').selectAll().where('id_hash', '=', hash).executeTakeFirst();
}

/** The session under `hash` with whether it is in good standing, for resolution. */
export function findStandingSession(db: Db, hash: Buffer) {
  return db
    .selectFrom('sessions as s')
    .leftJoin('users as u', 'u.username', 's.username')
    .select([
      's.kind',
      's.username',
      's.user_group',
      's.client_type',
      's.expires_at',
      's.expires_at_hard',
      's.last_seen_at',
      's.api_key_id',
      inGoodStanding.as('in_good_standing'),
    ])
    .where('s.id_hash', '=', hash)
    .executeTakeFirst();
}

/**
 * A user's live signed-in sessions with their devices' names, newest first: not API keys, not
 * pending challenges, not past either expiry, only those in good standing.
 */
export function listSignedInSessions(db: Db, username: string, now: Date) {
  return db
    .selectFrom('sessions as s')
    .leftJoin('users as u', 'u.username', 's.username')
    .leftJoin('devices as d', (j) =>
      j.onRef('d.username', '=', 's.username').onRef('d.device_key', '=', 's.device_key'),
    )
    .select([
      's.id_hash',
      's.public_id',
      's.client_type',
      's.user_group',
      's.device_key',
      'd.name as device_name',
      's.ip_address',
      's.created_at',
      's.last_seen_at',
      's.last_authenticated_at',
      's.expires_at',
      's.expires_at_hard',
    ])
    .where('s.username', '=', username)
    .where('s.kind', '=', 'session')
    .where('s.expires_at', '>', now)
    .where('s.expires_at_hard', '>', now)
    .where(inGoodStanding)
    .orderBy('s.created_at', 'desc')
    .orderBy('s.public_id')
    .execute();
}

/** The hash of one of the user's signed-in sessions, by its public reference. */
export async function signedInSessionByRef(
  db: Db,
  username: string,
  ref: string,
): Promise<Buffer | undefined> {
  const row = await db
    .selectFrom('sessions')
    .select('id_hash')
    .where('username', '=', username)
    .where('kind', '=', 'session')
    .where('public_id', '=', ref)
    .executeTakeFirst();
  return row?.id_hash;
}

/** True when there was such a session to delete. */
export async function deleteSession(db: Db, hash: Buffer): Promise<boolean> {
  const r = await db.deleteFrom('sessions').where('id_hash', '=', hash).executeTakeFirst();
  return r.numDeletedRows > 0n;
}

/** Deletes the session and returns what it was (for rotation under a new ID). */
export function takeSession(db: Db, hash: Buffer): Promise<SessionRow | undefined> {
  return db.deleteFrom('sessions').where('id_hash', '=', hash).returningAll().executeTakeFirst();
}

/**
 * Ends the user's sessions and pending challenges, and with `apiKeys` also their API keys'
 * sessions. Returns how many ended.
 */
export async function deleteSessionsOf(
  db: Db,
  username: string,
  options: { apiKeys: boolean },
): Promise<number> {
  let q = db.deleteFrom('sessions').where('username', '=', username);
  if (!options.apiKeys) q = q.where('kind', '!=', 'api_key');
  const r = await q.executeTakeFirst();
  return Number(r.numDeletedRows);
}

export async function deleteSessionsOnDevices(
  db: Db,
  username: string,
  deviceKeys: readonly string[],
): Promise<void> {
  await db
    .deleteFrom('sessions')
    .where('username', '=', username)
    .where('device_key', 'in', deviceKeys)
    .execute();
}

export async function deleteApiKeySession(db: Db, username: string, apiKeyId: string): Promise<void> {
  await db
    .deleteFrom('sessions')
    .where('username', '=', username)
    .where('api_key_id', '=', apiKeyId)
    .execute();
}

/**
 * Moves the soft expiry to `expiresAt` and notes the activity. `greatest` keeps a concurrent,
 * later slide from being moved back.
 */
export async function slideSession(db: Db, hash: Buffer, expiresAt: Date, now: Date): Promise<void> {
  await db
    .updateTable('sessions')
    .set((eb) => ({
      expires_at: eb.fn('greatest', [eb.ref('expires_at'), eb.val(expiresAt)]),
      last_seen_at: now,
    }))
    .where('id_hash', '=', hash)
    .execute();
}

/**
 * Reserves one answer to a pending challenge before it is checked, in one statement: at most
 * `max` answers are ever reserved, however many arrive at once. Returns the answer's number
 * (1 … max), or undefined when the challenge is gone or has had its `max` answers.
 */
export async function reserveChallengeAnswer(db: Db, hash: Buffer, max: number): Promise<number | undefined> {
  const row = await db
    .updateTable('sessions')
    .set((eb) => ({ challenge_attempts: eb('challenge_attempts', '+', 1) }))
    .where('id_hash', '=', hash)
    .where('kind', '=', 'challenge')
    .where('challenge_attempts', '<', max)
    .returning('challenge_attempts')
    .executeTakeFirst();
  return row?.challenge_attempts;
}

export async function setChallengeState(db: Db, hash: Buffer, state: Record<string, unknown>): Promise<void> {
  await db
    .updateTable('sessions')
    .set({ challenge_state: JSON.stringify(state) })
    .where('id_hash', '=', hash)
    .execute();
}

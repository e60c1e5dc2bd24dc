import type { Kysely } from 'kysely';
import type { Tables } from '../../../storage/tables.ts';

type Db = Kysely<Tables>;

/** Keeps a reset code's hash for the user; a new request replaces the one before. */
export async function putResetCode(
  db: Db,
  username: string,
  codeHash: Buffer,
  expiresAt: Date,
): Promise<void> {
  await db
    .insertInto('password_resets')
    .values({ username, code_hash: codeHash, expires_at: expiresAt, attempts: 0 })
    .onConflict((oc) =>
      oc.column('username').doUpdateSet({
        code_hash: (eb) => eb.ref('excluded.code_hash'),
        expires_at: expiresAt,
        attempts: 0,
      }),
    )
    .execute();
}

/**
 * Reserves one answer to the user's reset code before it is checked, in one statement: only
 * while the code is unexpired and has had fewer than `max` answers, so concurrent answers get no
 * more than `max` checks. Returns the code's hash, or undefined when there is nothing to answer
 * (no code, expired, used up, or no such user).
 */
export async function reserveResetAnswer(
  db: Db,
  username: string,
  now: Date,
  max: number,
): Promise<Buffer | undefined> {
  const row = await db
    .updateTable('password_resets')
    .set((eb) => ({ attempts: eb('attempts', '+', 1) }))
    .where('username', '=', username)
    .where('expires_at', '>', now)
    .where('attempts', '<', max)
    .returning('code_hash')
    .executeTakeFirst();
  return row?.code_hash;
}

/** Gives back an answer that was right (the new password was refused, not the code). */
export async function returnResetAnswer(db: Db, username: string, codeHash: Buffer): Promise<void> {
  await db
    .updateTable('password_resets')
    .set((eb) => ({ attempts: eb.fn('greatest', [eb('attempts', '-', 1), eb.val(0)]) }))
    .where('username', '=', username)
    .where('code_hash', '=', codeHash)
    .execute();
}

/** Uses the code up; true only for the one request that deleted it (single use). */
export async function takeResetCode(db: Db, username: string, codeHash: Buffer): Promise<boolean> {
  const r = await db
    .deleteFrom('password_resets')
    .where('username', '=', username)
    .where('code_hash', '=', codeHash)
    .executeTakeFirst();
  return r.numDeletedRows > 0n;
}

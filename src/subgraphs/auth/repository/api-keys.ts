import type { Kysely } from 'kysely';
import type { Tables } from '../../../storage/tables.ts';

type Db = Kysely<Tables>;

/** Fails (unique violation) when the user already has a key of that name. */
export async function insertApiKey(
  db: Db,
  key: { username: string; apiKeyId: string; group: string; now: Date },
): Promise<void> {
  await db
    .insertInto('api_keys')
    .values({ username: key.username, api_key_id: key.apiKeyId, user_group: key.group, created_at: key.now })
    .execute();
}

/** The user's API keys with their sessions' expiries and last use (null once the session ended). */
export function listApiKeys(db: Db, username: string) {
  return db
    .selectFrom('api_keys as k')
    .leftJoin('sessions as s', (j) =>
      j.onRef('s.username', '=', 'k.username').onRef('s.api_key_id', '=', 'k.api_key_id'),
    )
    .select([
      'k.api_key_id',
      'k.username',
      'k.user_group',
      'k.created_at',
      's.expires_at',
      's.expires_at_hard',
      's.last_seen_at',
    ])
    .where('k.username', '=', username)
    .orderBy('k.api_key_id')
    .execute();
}

export async function deleteApiKey(db: Db, username: string, apiKeyId: string): Promise<void> {
  await db
    .deleteFrom('api_keys')
    .where('username', '=', username)
    .where('api_key_id', '=', apiKeyId)
    .execute();
}

export async function deleteApiKeysOf(db: Db, username: string): Promise<void> {
  await db.deleteFrom('api_keys').where('username', '=', username).execute();
}

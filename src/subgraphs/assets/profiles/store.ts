import { type Kysely, sql, type Transaction } from 'kysely';
import type { Tables } from '../../../storage/tables.ts';
import { kyselyExec } from '../exec.ts';
import { refreshLookups } from '../lookup.ts';
import type { ProfileDocument } from './definition.ts';

type Db = Kysely<Tables> | Transaction<Tables>;

/** A profile row as written: its id, title and document. */
export interface StoredProfile {
  profile: string;
  title: string;
  document: ProfileDocument;
}

/**
 * The one writer of `asset_profiles`. Creates the profile or replaces its title and document,
 * counting a version; what follows from a changed profile (display names, lookup keys) is the
 * caller's, inside the same transaction (profiles.service.ts).
 */
export async function upsertProfile(db: Db, group: string, owner: string, p: StoredProfile): Promise<void> {
  await db
    .insertInto('asset_profiles')
    .values(rowOf(group, owner, p))
    .onConflict((oc) =>
      oc.columns(['user_group', 'profile']).doUpdateSet((eb) => ({
        title: eb.ref('excluded.title'),
        definition: eb.ref('excluded.definition'),
        version: sql`asset_profiles.version + 1`,
        updated_at: sql`now()`,
      })),
    )
    .execute();
}

/**
 * Creates those of `profiles` the group does not have yet and leaves the others as they are
 * (demo data and generated data start from known profiles); the group's lookup names follow.
 */
export async function addMissingProfiles(
  db: Db,
  group: string,
  owner: string,
  profiles: readonly StoredProfile[],
): Promise<void> {
  if (profiles.length === 0) return;
  await db
    .insertInto('asset_profiles')
    .values(profiles.map((p) => rowOf(group, owner, p)))
    .onConflict((oc) => oc.columns(['user_group', 'profile']).doNothing())
    .execute();
  await refreshLookups(kyselyExec(db), group);
}

function rowOf(group: string, owner: string, p: StoredProfile) {
  return {
    user_group: group,
    profile: p.profile,
    title: p.title,
    owner_username: owner,
    definition: JSON.stringify(p.document),
  };
}

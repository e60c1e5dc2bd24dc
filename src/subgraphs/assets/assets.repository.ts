import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Tables } from '../../storage/tables.ts';

export interface ProfileRow {
  user_group: string;
  profile: string;
  title: string;
  owner_username: string;
  definition: Record<string, unknown>;
  /** The properties its assets' lookup keys hold (./lookup.ts). */
  lookup_names: string[];
}

export interface AssetRow {
  user_group: string;
  profile: string;
  id: string;
  properties: Record<string, unknown>;
  observation: Record<string, unknown> | null;
  geometry: Record<string, unknown> | null;
  is_deleted: boolean;
  modified_at: Date;
}

const assetColumns = [
  'user_group',
  'profile',
  'id',
  'properties',
  'observation',
  'geometry',
  'is_deleted',
  'modified_at',
] as const;

/** Profiles ordered by name after `after`; `limit + 1` rows to tell whether more exist. */
export function listProfiles(
  db: Kysely<Tables>,
  group: string,
  limit: number,
  after?: string,
): Promise<ProfileRow[]> {
  let q = db
    .selectFrom('asset_profiles')
    .select(['user_group', 'profile', 'title', 'owner_username', 'definition', 'lookup_names'])
    .where('user_group', '=', group);
  if (after !== undefined) q = q.where('profile', '>', after);
  return q
    .orderBy('profile')
    .limit(limit + 1)
    .execute();
}

/** Profiles with their extensions, in one statement. */
export async function profilesWithExtensions(
  db: Kysely<Tables>,
  group: string,
  names: readonly string[],
): Promise<(ProfileRow & { extensions: { extension: string; definition: Record<string, unknown> }[] })[]> {
  if (names.length === 0) return [];
  const { rows } = await sql<
    ProfileRow & { extensions: { extension: string; definition: Record<string, unknown> }[] }
  >`
    select p.user_group, p.profile, p.title, p.owner_username, p.definition, p.lookup_names,
      coalesce((select jsonb_agg(jsonb_build_object('extension', e.extension, 'definition', e.definition) order by e.extension)
                from asset_profile_extensions e
                where e.user_group = p.user_group and e.profile = p.profile), '[]'::jsonb) as extensions
    from asset_profiles p
    where p.user_group = ${group} and p.profile = any(${[...names]}::text[])`.execute(db);
  return rows;
}

export interface AssetPage {
  limit: number;
  /** Forwards: ids after this one, ascending. Backwards: ids before `before`, read descending. */
  after?: string;
  before?: string;
  backwards: boolean;
}

/**
 * One page of a profile's assets by keyset on `id` (the primary key's last column), so a page
 * deep in the list costs the same as the first. Returns up to `limit + 1` rows in the read
 * direction; the caller trims and reverses.
 */
export function listAssets(
  db: Kysely<Tables>,
  group: string,
  profile: string,
  page: AssetPage,
  /** An extra condition on alias `a`, e.g. a compiled AssetFilter. */
  where?: RawBuilder<boolean>,
): Promise<AssetRow[]> {
  let q = db
    .selectFrom('assets as a')
    .select(assetColumns.map((c) => `a.${c}` as const))
    .where('a.user_group', '=', group)
    .where('a.profile', '=', profile);
  if (where) q = q.where(where);
  if (page.after !== undefined) q = q.where('a.id', '>', page.after);
  if (page.before !== undefined) q = q.where('a.id', '<', page.before);
  return q
    .orderBy('a.id', page.backwards ? 'desc' : 'asc')
    .limit(page.limit + 1)
    .execute();
}

/** Assets by (profile, id) pairs in one statement. */
export async function assetsByKeys(
  db: Kysely<Tables>,
  group: string,
  keys: readonly { profile: string; id: string }[],
): Promise<AssetRow[]> {
  if (keys.length === 0) return [];
  const { rows } = await sql<AssetRow>`
    select a.user_group, a.profile, a.id, a.properties, a.observation, a.geometry, a.is_deleted, a.modified_at
    from unnest(${keys.map((k) => k.profile)}::text[], ${keys.map((k) => k.id)}::text[]) as k(profile, id)
    join assets a on a.user_group = ${group} and a.profile = k.profile and a.id = k.id`.execute(db);
  return rows;
}

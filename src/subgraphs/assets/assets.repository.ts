import { type Kysely, type RawBuilder, sql } from 'kysely';
import pg from 'pg';
import type { Tables } from '../../storage/tables.ts';

export interface ProfileRow {
  user_group: string;
  profile: string;
  title: string;
  owner_username: string;
  definition: Record<string, unknown>;
  /** The properties its assets' lookup keys hold (./lookup.ts). */
  lookup_names: string[];
  /** Counts the profile's writes, its extensions' included (AssetProfile.version). */
  version: number;
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
  version: number;
}

/** PostgreSQL's text of a `timestamptz` to a Date, as `pg` reads the column itself. */
const parseTimestamp = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ) as (text: string) => Date;

/**
 * The columns of an asset under alias `a`, as {@link storedAsset} takes them: the geometry, the
 * observation and the time of the last change as PostgreSQL's text, parsed only when read. A page
 * of wells asks for ids and properties; parsing every row's geometry JSON and timestamp made a
 * third of the work of reading it.
 */
export function assetColumns(a: string): RawBuilder<unknown> {
  return sql.raw(
    `${a}.user_group, ${a}.profile, ${a}.id, ${a}.properties, ${a}.observation::text as observation, ` +
      `${a}.geometry::text as geometry, ${a}.is_deleted, ${a}.modified_at::text as modified_at, ${a}.version`,
  );
}

/** A row of {@link assetColumns}, as it arrives. */
export interface AssetColumns {
  user_group: string;
  profile: string;
  id: string;
  properties: Record<string, unknown>;
  observation: string | null;
  geometry: string | null;
  is_deleted: boolean;
  modified_at: string;
  version: number;
}

/** An asset as read with {@link assetColumns}: the text columns parsed the first time they are read. */
class StoredAsset implements AssetRow {
  readonly user_group: string;
  readonly profile: string;
  readonly id: string;
  readonly properties: Record<string, unknown>;
  readonly is_deleted: boolean;
  readonly version: number;
  #observation: string | Record<string, unknown> | null;
  #geometry: string | Record<string, unknown> | null;
  #modifiedAt: string | Date;

  constructor(row: AssetColumns) {
    this.user_group = row.user_group;
    this.profile = row.profile;
    this.id = row.id;
    this.properties = storedProperties(row.properties);
    this.is_deleted = row.is_deleted;
    this.version = row.version;
    this.#observation = row.observation;
    this.#geometry = row.geometry;
    this.#modifiedAt = row.modified_at;
  }

  get observation(): Record<string, unknown> | null {
    if (typeof this.#observation === 'string') this.#observation = JSON.parse(this.#observation);
    return this.#observation as Record<string, unknown> | null;
  }

  get geometry(): Record<string, unknown> | null {
    if (typeof this.#geometry === 'string') this.#geometry = JSON.parse(this.#geometry);
    return this.#geometry as Record<string, unknown> | null;
  }

  get modified_at(): Date {
    if (typeof this.#modifiedAt === 'string') this.#modifiedAt = parseTimestamp(this.#modifiedAt);
    return this.#modifiedAt;
  }
}

/**
 * A row's stored properties as every reader takes them: a JSON object. Writers store nothing
 * else; a value changed outside assetql to JSON null, an array or a scalar reads as no
 * properties, alike for the resolvers and the planned pages, rather than failing one of them.
 */
export function storedProperties(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

/** An asset of a row of {@link assetColumns}. */
export function storedAsset(row: AssetColumns): AssetRow {
  return new StoredAsset(row);
}

/** Profiles ordered by name after `after`; `limit + 1` rows to tell whether more exist. */
export function listProfiles(
  db: Kysely<Tables>,
  group: string,
  limit: number,
  after?: string,
): Promise<ProfileRow[]> {
  let q = db
    .selectFrom('asset_profiles')
    .select(['user_group', 'profile', 'title', 'owner_username', 'definition', 'lookup_names', 'version'])
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
    select p.user_group, p.profile, p.title, p.owner_username, p.definition, p.lookup_names, p.version,
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

/** The rows of a page under alias `a`: the profile's, filtered, past the cursor, in read order. */
function pageRows(group: string, profile: string, page: AssetPage, where?: RawBuilder<boolean>) {
  return sql`from assets a
    where a.user_group = ${group} and a.profile = ${profile}
      ${where ? sql`and ${where}` : sql``}
      ${page.after !== undefined ? sql`and a.id > ${page.after}` : sql``}
      ${page.before !== undefined ? sql`and a.id < ${page.before}` : sql``}
    order by a.id ${sql.raw(page.backwards ? 'desc' : 'asc')}
    limit ${page.limit + 1}`;
}

/**
 * One page of a profile's assets by keyset on `id` (the primary key's last column), so a page
 * deep in the list costs the same as the first. Returns up to `limit + 1` rows in the read
 * direction; the caller trims and reverses.
 */
export async function listAssets(
  db: Kysely<Tables>,
  group: string,
  profile: string,
  page: AssetPage,
  /** An extra condition on alias `a`, e.g. a compiled AssetFilter. */
  where?: RawBuilder<boolean>,
): Promise<AssetRow[]> {
  const { rows } = await sql<AssetColumns>`
    select ${assetColumns('a')} ${pageRows(group, profile, page, where)}`.execute(db);
  return rows.map(storedAsset);
}

/**
 * How many of a profile's assets `where` holds, counted up to `upTo + 1` and no further: the
 * statement stops once it knows there are more (the primary key's index alone where there is no
 * filter).
 */
export async function countAssets(
  db: Kysely<Tables>,
  group: string,
  profile: string,
  upTo: number,
  where?: RawBuilder<boolean>,
): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    select count(*)::int as n from (
      select 1 from assets a
      where a.user_group = ${group} and a.profile = ${profile} ${where ? sql`and ${where}` : sql``}
      limit ${upTo + 1}
    ) counted`.execute(db);
  return rows[0]?.n ?? 0;
}

/** An asset of a page as {@link listAssetIds} reads it: its id, and its stored properties if asked. */
export type CompactAsset = [id: string, properties: Record<string, unknown>];

/**
 * The same rows as {@link listAssets}, of each only the id and, with `properties`, the stored
 * properties: two columns for `pg` to parse per asset instead of eight, and no row object kept
 * (the planned pages of page-plans.ts). Row by row, as `listAssets` reads them: a page
 * aggregated into one JSON value by PostgreSQL cost about as much to parse, and one value that
 * large could outgrow the longest string V8 makes (a page of 1,000 assets with 545 KB of
 * properties each took the process down where the resolvers answered it).
 */
export async function listAssetIds(
  db: Kysely<Tables>,
  group: string,
  profile: string,
  page: AssetPage,
  properties: boolean,
  where?: RawBuilder<boolean>,
): Promise<CompactAsset[]> {
  const { rows } = await sql<{ id: string; properties?: unknown }>`
    select a.id${properties ? sql`, a.properties` : sql``} ${pageRows(group, profile, page, where)}`.execute(
    db,
  );
  return rows.map((r) => [r.id, properties ? storedProperties(r.properties) : {}]);
}

/** Assets by (profile, id) pairs in one statement. */
export async function assetsByKeys(
  db: Kysely<Tables>,
  group: string,
  keys: readonly { profile: string; id: string }[],
): Promise<AssetRow[]> {
  if (keys.length === 0) return [];
  // One key (an asset by id: the common case) by its primary key alone: PostgreSQL keeps one
  // generic plan for this text, where the arrays' form is planned anew for each of its runs (its
  // generic plan, costed for arrays of unknown length, never wins): 0.1 ms of planning a statement.
  const { rows } =
    keys.length === 1
      ? await sql<AssetColumns>`
    select ${assetColumns('a')} from assets a
    where a.user_group = ${group} and a.profile = ${keys[0]!.profile} and a.id = ${keys[0]!.id}`.execute(db)
      : await sql<AssetColumns>`
    select ${assetColumns('a')}
    from unnest(${keys.map((k) => k.profile)}::text[], ${keys.map((k) => k.id)}::text[]) as k(profile, id)
    join assets a on a.user_group = ${group} and a.profile = k.profile and a.id = k.id`.execute(db);
  return rows.map(storedAsset);
}

import { type Kysely, sql } from 'kysely';

// The change log (docs/events.md): one entry per entity changed, written by the database itself
// in the writing transaction, whatever code (a resolver, `assetql import`, a dataset merge, a
// profile's cascade, an operator's SQL) made the change. A rolled-back write leaves none.
//
// Order: an entry's position is (tx, seq), its transaction's id and a sequence number. Readers
// that follow the log oldest first read only entries of transactions older than every one still
// running (`tx < pg_snapshot_xmin(pg_current_snapshot())`): an entry can then never appear
// behind a position already read, so a resumed reader misses nothing and repeats nothing.
//
// Who and why: the writer states them for its transaction with `set_config(..., true)`
// (src/storage/change-log.ts): `assetql.actor_kind`, `assetql.actor`, `assetql.correlation_id`,
// and `assetql.change_kind` when an insert or update of assets is a conversion (and
// `assetql.actor_key`, which 20261202T0100_change_actor_key.ts records).

/** What each logged table contributes: its entity, its key, and its document as JSON. */
export interface Logged {
  table: string;
  entity: string;
  /** The key columns beside `user_group`, in order: the entry's `profile` and `entity_id`. */
  profile: string | null;
  id: string | null;
  /** The entity's document of row alias `r`: what a patch changes. */
  doc: (r: string) => string;
  /** Members of the document compared one key deeper (a patch names the key inside them). */
  deep: string[];
  /** The columns whose change is a change of the entity (the rest are bookkeeping). */
  content: string[];
}

export const LOGGED: readonly Logged[] = [
  {
    table: 'assets',
    entity: 'ASSET',
    profile: 'profile',
    id: 'id',
    // The display name is derived (the profile's template over the properties): a change of the
    // template is the profile's change, not one of each of its assets.
    doc: (r) =>
      `jsonb_build_object('isDeleted', ${r}.is_deleted, 'geometry', ${r}.geometry, 'properties', ${r}.properties)`,
    deep: ['properties'],
    content: ['properties', 'geometry', 'is_deleted'],
  },
  {
    table: 'asset_profiles',
    entity: 'ASSET_PROFILE',
    profile: 'profile',
    id: null,
    doc: (r) => `jsonb_build_object('title', ${r}.title, 'owner', ${r}.owner_username) || ${r}.definition`,
    deep: [],
    content: ['title', 'owner_username', 'definition'],
  },
  {
    table: 'asset_profile_extensions',
    entity: 'ASSET_PROFILE_EXTENSION',
    profile: 'profile',
    id: 'extension',
    doc: (r) => `${r}.definition`,
    deep: [],
    content: ['definition'],
  },
  {
    table: 'asset_views',
    entity: 'VIEW',
    profile: 'profile',
    id: 'id',
    doc: (r) => `jsonb_build_object('name', ${r}.name, 'map', ${r}.map, 'layouts', ${r}.layouts)`,
    deep: ['layouts'],
    content: ['name', 'map', 'layouts'],
  },
  {
    table: 'asset_filters',
    entity: 'SELECTION_FILTER',
    profile: null,
    id: 'id',
    doc: (r) =>
      `jsonb_build_object('displayName', ${r}.display_name, 'description', ${r}.description, ` +
      `'profile', ${r}.profile, 'filter', ${r}.filter, 'subProfiles', ${r}.sub_profiles)`,
    deep: [],
    content: ['display_name', 'description', 'profile', 'filter', 'sub_profiles'],
  },
  {
    table: 'asset_conversions',
    entity: 'CONVERSION',
    profile: 'profile',
    id: 'id',
    doc: (r) =>
      `jsonb_build_object('name', ${r}.name, 'targetProfile', ${r}.target_profile, ` +
      `'propertyMappings', ${r}.property_mappings, 'sourceRelationship', ${r}.source_relationship, ` +
      `'deleteSource', ${r}.delete_source)`,
    deep: [],
    content: ['name', 'target_profile', 'property_mappings', 'source_relationship', 'delete_source'],
  },
  {
    table: 'asset_downloads',
    entity: 'DOWNLOAD',
    profile: null,
    id: 'id',
    doc: (r) =>
      `jsonb_build_object('name', ${r}.name, 'filterId', ${r}.filter_id, 'profile', ${r}.profile, ` +
      `'format', ${r}.format, 'properties', ${r}.properties, 'expiresAt', ${r}.expires_at)`,
    deep: [],
    content: ['name', 'filter_id', 'profile', 'format', 'properties', 'predicate', 'expires_at'],
  },
];

/** The tables that had no version of their own. */
const UNVERSIONED = ['assets', 'asset_profile_extensions', 'asset_conversions', 'asset_downloads'];

const keyOf = (l: Logged, r: string) =>
  `${l.profile ? `${r}.${l.profile}` : `''`}, ${l.id ? `${r}.${l.id}` : `''`}`;
const joinOn = (l: Logged) =>
  ['user_group', l.profile, l.id]
    .filter((c): c is string => c !== null)
    .map((c) => `n.${c} = o.${c}`)
    .join(' and ');
const ACTOR = `nullif(current_setting('assetql.actor_kind', true), ''), nullif(current_setting('assetql.actor', true), ''),
  nullif(current_setting('assetql.correlation_id', true), '')`;
const COLUMNS = `user_group, entity, profile, entity_id, kind, version, actor_kind, actor, correlation_id, patch, before, after`;
const CONVERTED = `coalesce(nullif(current_setting('assetql.change_kind', true), ''), `;

/**
 * The query of `change_diff`: RFC 6902 operations that turn document o into n, member by member,
 * one level deeper for the members named in deep when both sides are objects; and the changed
 * members' values before and after (nested alike).
 */
export const CHANGE_DIFF = `
      with top as (
        select k, o -> k as ov, n -> k as nv
        from (select jsonb_object_keys(o) union select jsonb_object_keys(n)) t(k)
        where (o -> k) is distinct from (n -> k)
      ), member as (
        select change_pointer(t.k) || change_pointer(s.k) as path, t.k as top, s.k as sub,
               t.ov -> s.k as ov, t.nv -> s.k as nv
        from top t, lateral (select jsonb_object_keys(t.ov) union select jsonb_object_keys(t.nv)) s(k)
        where t.k = any(deep) and jsonb_typeof(t.ov) = 'object' and jsonb_typeof(t.nv) = 'object'
          and (t.ov -> s.k) is distinct from (t.nv -> s.k)
        union all
        select change_pointer(t.k), t.k, null, t.ov, t.nv
        from top t
        where not (t.k = any(deep) and jsonb_typeof(t.ov) = 'object' and jsonb_typeof(t.nv) = 'object')
      ), grouped as (
        select top,
          case when bool_or(sub is not null) then jsonb_object_agg(sub, ov) filter (where sub is not null and ov is not null)
               else (array_agg(ov))[1] end as ov,
          case when bool_or(sub is not null) then jsonb_object_agg(sub, nv) filter (where sub is not null and nv is not null)
               else (array_agg(nv))[1] end as nv
        from member group by top
      )
      select
        (select coalesce(jsonb_agg(case
            when ov is null then jsonb_build_object('op', 'add', 'path', path, 'value', nv)
            when nv is null then jsonb_build_object('op', 'remove', 'path', path)
            else jsonb_build_object('op', 'replace', 'path', path, 'value', nv) end order by path), '[]'::jsonb)
         from member),
        (select coalesce(jsonb_object_agg(top, ov) filter (where ov is not null), '{}'::jsonb) from grouped),
        (select coalesce(jsonb_object_agg(top, nv) filter (where nv is not null), '{}'::jsonb) from grouped)`;

/** The kind of an update of `l`'s rows `o` (old) and `n` (new). */
const updatedKind = (l: Logged) =>
  l.table === 'assets'
    ? `case when o.is_deleted and not n.is_deleted then 'RESTORED'
                when n.is_deleted and not o.is_deleted then 'DELETED' else ${CONVERTED}'UPDATED') end`
    : `'UPDATED'`;

/**
 * The body of `l`'s update trigger: one entry per row whose document changed, with `diff`, a
 * lateral `from` item over old row `o` and new row `n` answering `patch`, `before` and `after` as
 * `d`.
 */
export const loggedUpdate = (l: Logged, diff: string) => `
      begin
        insert into changes (${COLUMNS})
        select n.user_group, '${l.entity}', ${keyOf(l, 'n')}, ${updatedKind(l)}, n.version,
          ${ACTOR}, d.patch, d.before, d.after
        from new_rows n join old_rows o on ${joinOn(l)}
          cross join lateral ${diff} d
        -- A version moved without a change of the document (a profile's, when an extension
        -- changed: that is the extension's entry) is no entry of its own.
        where n.version <> o.version and d.patch <> '[]'::jsonb;
        if found then
          perform pg_notify('assetql_changes', g) from (select distinct user_group as g from new_rows) s;
        end if;
        return null;
      end`;

/** The diff of `l`'s whole documents, old and new. */
export const DIFF_OF_DOCUMENTS = (l: Logged) =>
  `change_diff(${l.doc('o')}, ${l.doc('n')}, '{${l.deep.join(',')}}'::text[])`;

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table changes (
      user_group text not null,
      tx xid8 not null default pg_current_xact_id(),
      seq bigint generated always as identity,
      at timestamptz not null default now(),
      entity text not null,
      profile text not null,
      entity_id text not null,
      kind text not null,
      version integer not null,
      actor_kind text,
      actor text,
      correlation_id text,
      patch jsonb not null,
      before jsonb,
      after jsonb,
      primary key (user_group, tx, seq)
    )`.execute(db);
  await sql`create index changes_of_entity on changes (user_group, entity, profile, entity_id, tx, seq)`.execute(
    db,
  );
  await sql`create index changes_by_age on changes (at)`.execute(db);
  // What pruning took of each group's log: a reader asking to resume from before it is told so.
  await sql`
    create table change_horizons (
      user_group text primary key,
      tx xid8 not null,
      seq bigint not null
    )`.execute(db);

  // RFC 6901 pointer of one member name.
  await sql`
    create function change_pointer(name text) returns text immutable parallel safe language sql as
    $$ select '/' || replace(replace(name, '~', '~0'), '/', '~1') $$`.execute(db);
  await sql`
    create function change_diff(o jsonb, n jsonb, deep text[], out patch jsonb, out before jsonb, out after jsonb)
    immutable parallel safe language sql as $$ ${sql.raw(CHANGE_DIFF)} $$`.execute(db);

  for (const table of UNVERSIONED)
    await sql`alter table ${sql.table(table)} add column version integer not null default 1`.execute(db);

  for (const l of LOGGED) {
    const changed = l.content.map((c) => `old.${c} is distinct from new.${c}`).join(' or ');
    const name = (what: string) => sql.raw(`${l.table}_${what}`);
    // A changed entity gets its next version, unless its writer set it.
    await sql`
      create function ${name('version')}() returns trigger language plpgsql as $$
      begin
        if new.version = old.version then new.version := old.version + 1; end if;
        return new;
      end $$`.execute(db);
    await sql`
      create trigger ${name('version')} before update on ${sql.table(l.table)}
      for each row when (${sql.raw(changed)}) execute function ${name('version')}()`.execute(db);

    const createdKind = l.table === 'assets' ? `${CONVERTED}'CREATED')` : `'CREATED'`;
    await sql`
      create function ${name('logged_insert')}() returns trigger language plpgsql as $$
      begin
        insert into changes (${sql.raw(COLUMNS)})
        select n.user_group, ${sql.lit(l.entity)}, ${sql.raw(keyOf(l, 'n'))}, ${sql.raw(createdKind)}, n.version,
          ${sql.raw(ACTOR)},
          jsonb_build_array(jsonb_build_object('op', 'add', 'path', '', 'value', ${sql.raw(l.doc('n'))})),
          null, ${sql.raw(l.doc('n'))}
        from new_rows n;
        perform pg_notify('assetql_changes', g) from (select distinct user_group as g from new_rows) s;
        return null;
      end $$`.execute(db);
    await sql`create function ${name('logged_update')}() returns trigger language plpgsql as $$ ${sql.raw(
      loggedUpdate(l, DIFF_OF_DOCUMENTS(l)),
    )} $$`.execute(db);
    await sql`
      create function ${name('logged_delete')}() returns trigger language plpgsql as $$
      begin
        insert into changes (${sql.raw(COLUMNS)})
        select o.user_group, ${sql.lit(l.entity)}, ${sql.raw(keyOf(l, 'o'))}, 'DELETED', o.version + 1,
          ${sql.raw(ACTOR)}, '[{"op": "remove", "path": ""}]'::jsonb, ${sql.raw(l.doc('o'))}, null
        from old_rows o;
        perform pg_notify('assetql_changes', g) from (select distinct user_group as g from old_rows) s;
        return null;
      end $$`.execute(db);
    for (const [op, refs] of [
      ['insert', 'new table as new_rows'],
      ['update', 'old table as old_rows new table as new_rows'],
      ['delete', 'old table as old_rows'],
    ] as const) {
      await sql`
        create trigger ${name(`logged_${op}`)} after ${sql.raw(op)} on ${sql.table(l.table)}
        referencing ${sql.raw(refs)} for each statement execute function ${name(`logged_${op}`)}()`.execute(
        db,
      );
    }
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const l of LOGGED) {
    for (const what of ['version', 'logged_insert', 'logged_update', 'logged_delete']) {
      await sql`drop trigger ${sql.raw(`${l.table}_${what}`)} on ${sql.table(l.table)}`.execute(db);
      await sql`drop function ${sql.raw(`${l.table}_${what}`)}()`.execute(db);
    }
  }
  for (const table of UNVERSIONED) await sql`alter table ${sql.table(table)} drop column version`.execute(db);
  await sql`drop function change_diff(jsonb, jsonb, text[])`.execute(db);
  await sql`drop function change_pointer(text)`.execute(db);
  await sql`drop table change_horizons`.execute(db);
  await sql`drop table changes`.execute(db);
}

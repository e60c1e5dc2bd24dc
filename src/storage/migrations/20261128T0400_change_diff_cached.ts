import { type Kysely, sql } from 'kysely';
import {
  CHANGE_DIFF,
  DIFF_OF_DOCUMENTS,
  LOGGED,
  type Logged,
  loggedUpdate,
} from './20261128T0100_change_log.ts';

// What the change log costs a write, made smaller (docs/events.md, "What it costs"); the same
// entries as before.
//
// 1. The diff as PL/pgSQL around the same query: a function in SQL called from a trigger's
//    statement is parsed and planned again at every call (PostgreSQL keeps an SQL function's plan
//    for one run of the calling statement only); PL/pgSQL keeps the query's plan for the session.
// 2. The update triggers of the entities whose documents have fixed members compare the members'
//    columns, and build the patch of the ones that changed as one expression: no per-row query
//    over the documents' keys, whose aggregates cost a one-row update most of the trigger's time,
//    while the row's lock was held. A member compared one key deeper (an asset's properties) is
//    diffed alone, and only when it changed. Profiles and extensions, whose documents take their
//    members from a definition, keep the diff of whole documents.

/** One member of a document: its key, the column it is, and whether the column is jsonb. */
interface Member {
  key: string;
  column: string;
  json?: boolean;
  /** Diffed one key deeper when both sides are objects (the document's `deep`). */
  deep?: boolean;
}

/** The documents of 20261128T0100_change_log.ts, member by member. */
export const MEMBERS: Record<string, Member[]> = {
  assets: [
    { key: 'isDeleted', column: 'is_deleted' },
    { key: 'geometry', column: 'geometry', json: true },
    { key: 'properties', column: 'properties', json: true, deep: true },
  ],
  asset_views: [
    { key: 'name', column: 'name' },
    { key: 'map', column: 'map', json: true },
    { key: 'layouts', column: 'layouts', json: true, deep: true },
  ],
  asset_filters: [
    { key: 'displayName', column: 'display_name' },
    { key: 'description', column: 'description' },
    { key: 'profile', column: 'profile' },
    { key: 'filter', column: 'filter', json: true },
    { key: 'subProfiles', column: 'sub_profiles', json: true },
  ],
  asset_conversions: [
    { key: 'name', column: 'name' },
    { key: 'targetProfile', column: 'target_profile' },
    { key: 'propertyMappings', column: 'property_mappings', json: true },
    { key: 'sourceRelationship', column: 'source_relationship' },
    { key: 'deleteSource', column: 'delete_source' },
  ],
  asset_downloads: [
    { key: 'name', column: 'name' },
    { key: 'filterId', column: 'filter_id' },
    { key: 'profile', column: 'profile' },
    { key: 'format', column: 'format' },
    { key: 'properties', column: 'properties', json: true },
    { key: 'expiresAt', column: 'expires_at' },
  ],
};

const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/**
 * The lateral `from` item answering `patch`, `before` and `after` for a document of `members`:
 * what the diff of whole documents answers (operations in the order of their paths), member by
 * member.
 */
export function diffOfMembers(members: readonly Member[]): string {
  // The order of their paths: a deep member's operations all begin with its own path.
  const sorted = [...members].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  // A jsonb column's SQL null is the document's JSON null, as `jsonb_build_object` renders it.
  const changed = (m: Member) =>
    m.json
      ? `coalesce(o.${m.column}, 'null'::jsonb) is distinct from coalesce(n.${m.column}, 'null'::jsonb)`
      : `o.${m.column} is distinct from n.${m.column}`;
  const deep = sorted.filter((m) => m.deep);
  const patch: string[] = [];
  const before: string[] = [];
  const after: string[] = [];
  for (const m of sorted) {
    if (m.deep) {
      patch.push(`coalesce(d_${m.column}.patch, '[]'::jsonb)`);
      before.push(`coalesce(d_${m.column}.before, '{}'::jsonb)`);
      after.push(`coalesce(d_${m.column}.after, '{}'::jsonb)`);
      continue;
    }
    const path = literal(`/${m.key.replaceAll('~', '~0').replaceAll('/', '~1')}`);
    const key = literal(m.key);
    patch.push(
      `case when ${changed(m)} then jsonb_build_array(jsonb_build_object('op', 'replace', 'path', ${path}, 'value', n.${m.column})) else '[]'::jsonb end`,
    );
    before.push(
      `case when ${changed(m)} then jsonb_build_object(${key}, o.${m.column}) else '{}'::jsonb end`,
    );
    after.push(`case when ${changed(m)} then jsonb_build_object(${key}, n.${m.column}) else '{}'::jsonb end`);
  }
  // A deep member's own diff, run only when it changed (the filter is on the outer row alone).
  const laterals = deep.map(
    (m) =>
      `left join lateral (select * from change_diff(jsonb_build_object(${literal(m.key)}, o.${m.column}), ` +
      `jsonb_build_object(${literal(m.key)}, n.${m.column}), ${literal(`{${m.key}}`)}::text[]) ` +
      `where ${changed(m)}) d_${m.column} on true`,
  );
  return `(select ${patch.join('\n || ')} as patch,\n ${before.join('\n || ')} as before,\n ${after.join('\n || ')} as after
    from (select 1) one ${laterals.join(' ')})`;
}

const byMembers = (l: Logged) => MEMBERS[l.table];

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create or replace function change_diff(o jsonb, n jsonb, deep text[], out patch jsonb, out before jsonb, out after jsonb)
    immutable parallel safe language plpgsql as $$
    begin
      select d.* into patch, before, after from (${sql.raw(CHANGE_DIFF)}) d;
    end $$`.execute(db);
  for (const l of LOGGED) {
    const members = byMembers(l);
    if (!members) continue;
    await sql`create or replace function ${sql.raw(`${l.table}_logged_update`)}() returns trigger language plpgsql as $$ ${sql.raw(
      loggedUpdate(l, diffOfMembers(members)),
    )} $$`.execute(db);
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const l of LOGGED) {
    if (!byMembers(l)) continue;
    await sql`create or replace function ${sql.raw(`${l.table}_logged_update`)}() returns trigger language plpgsql as $$ ${sql.raw(
      loggedUpdate(l, DIFF_OF_DOCUMENTS(l)),
    )} $$`.execute(db);
  }
  await sql`
    create or replace function change_diff(o jsonb, n jsonb, deep text[], out patch jsonb, out before jsonb, out after jsonb)
    immutable parallel safe language sql as $$ ${sql.raw(CHANGE_DIFF)} $$`.execute(db);
}

import type pg from 'pg';
import type { Database } from '../../../storage/database.ts';
import { MANUAL_DATASET, mergePlanOf } from '../datasets/plan.ts';
import { clientExec, type Exec } from '../exec.ts';
import type { AssetImportRow } from '../import/validate.ts';
import type { EffectiveProfile } from '../profiles/definition.ts';
import { viaCopy } from './copy.ts';
import { writeUpDataset, writeUpDatasetIn } from './datasets.ts';
import { lockLookupNames, lookupSql } from './lookup-keys.ts';
import { type UpsertCounts, upsertSql } from './rule.ts';
import {
  DUPLICATE_ID,
  DuplicateIdError,
  type UpsertOptions,
  type UpsertResult,
  type UpsertTarget,
} from './types.ts';
import { checkVersions } from './versions.ts';

/**
 * Loads that add at least this many assets, and at least a tenth of the profile's size as the
 * planner estimates it, refresh the table's planner statistics.
 */
export const ANALYZE_AFTER_ROWS = 10_000;

type Rows = Iterable<AssetImportRow> | AsyncIterable<AssetImportRow>;

/**
 * Inserts or replaces the given assets of one profile, all or nothing, in one transaction on
 * one pooled connection, by the one upsert rule (./rule.ts): a new asset gets
 * `modified_at = now()`; an existing one gets its properties, display name and deleted flag
 * replaced, unless the row holds exactly the values it has (then it is not written at all);
 * its geometry is replaced when the row has one and kept when the row has none (`geometry`
 * undefined or null); its `observation` is kept. Ids must be unique within one call. `rows` may
 * be an async iterable: with `copy` the rows are streamed and never all held in memory (they
 * are copied and merged in chunks while the next chunk is read, all in the one transaction). An
 * error (from the database or thrown by `rows`) rolls everything back.
 */
export async function upsertAssets(
  database: Pick<Database, 'pool' | 'engine'>,
  group: string,
  profile: string,
  rows: Rows,
  options: UpsertOptions = {},
): Promise<UpsertResult> {
  const method = options.method ?? (database.engine === 'postgres' ? 'copy' : 'insert');
  if (options.profile && mergePlanOf(options.profile)) {
    const result = await writeUpDataset(database, group, options.profile, MANUAL_DATASET, layer(rows), {
      ...options,
      method,
    });
    return { rows: result.rows, inserted: result.inserted, updated: result.updated, method };
  }
  const client = await database.pool.connect();
  let broken: Error | undefined;
  let begun = false;
  try {
    const single = database.engine === 'postgres' && method === 'insert' && !options.versions?.size;
    const list = single && Array.isArray(rows) ? (rows as AssetImportRow[]) : undefined;
    if (list && list.length <= Math.min(CHUNK, Math.max(1, options.chunkSize ?? CHUNK))) {
      const counts = await upsertAlone(client, group, profile, list, options);
      if (counts) {
        options.onProgress?.(counts.rows);
        return { ...counts, method };
      }
    }
    await client.query('begin');
    begun = true;
    const names = await lockLookupNames(clientExec(client), group, profile);
    await checkVersions(clientExec(client), group, profile, options.versions);
    const counts =
      method === 'copy'
        ? await viaCopy(client, { group, profile, lookupNames: names }, rows, options)
        : await viaInsert(clientExec(client), { group, profile, lookupNames: names }, rows, options);
    await client.query('commit');
    if (await statisticsStale(client, group, profile, counts.inserted)) await client.query(ANALYZE);
    return { ...counts, method };
  } catch (e) {
    try {
      // A statement alone that failed has nothing to roll back.
      if (begun) await client.query('rollback');
    } catch (r) {
      broken = r as Error; // the connection is unusable: the pool drops it
    }
    if ((e as { code?: string }).code === '21000') throw new DuplicateIdError(DUPLICATE_ID);
    throw e;
  } finally {
    client.release(broken);
  }
}

/**
 * The same write inside a caller's transaction, for a few rows at a time (a conversion, the
 * demo seed): multi-row INSERTs, or the manual layer of a profile with up datasets.
 */
export async function upsertAssetsIn(
  exec: Exec,
  group: string,
  profile: EffectiveProfile,
  rows: readonly AssetImportRow[],
): Promise<Omit<UpsertResult, 'method'>> {
  if (mergePlanOf(profile)) {
    const { inserted, updated } = await writeUpDatasetIn(
      exec,
      group,
      profile,
      MANUAL_DATASET,
      rows.map((r) => ({ id: r.id, values: r.properties, geometry: r.geometry })),
    );
    return { rows: rows.length, inserted, updated };
  }
  const names = await lockLookupNames(exec, group, profile.profile);
  return viaInsert(exec, { group, profile: profile.profile, lookupNames: names }, rows, {});
}

/** Rows as the `manual` layer of a profile with up datasets. */
async function* layer(rows: Rows) {
  for await (const r of rows) yield { id: r.id, values: r.properties, geometry: r.geometry };
}

/**
 * After a bulk load the planner's statistics may be stale: for a profile that grew from a
 * handful of rows it would estimate a handful and sort the whole profile instead of walking
 * the key. Refresh them at once rather than wait for autovacuum, but only when the new rows
 * are many and a large part of the profile as the planner sees it (its estimate scales with
 * the table's current size): ANALYZE samples the whole table, a cost a small addition to a
 * large profile need not pay. Only the columns listing, search and lookup plans estimate from
 * are analyzed (a third of the cost of all: `properties` and `geometry` are the dear ones;
 * without `lookup`'s, an equality on a lookup property is guessed to match 1% of the profile
 * and read in key order); autovacuum refreshes the rest.
 */
const ANALYZE = 'analyze assets (user_group, profile, id, display_name, is_deleted, lookup)';

async function statisticsStale(
  client: pg.PoolClient,
  group: string,
  profile: string,
  inserted: number,
): Promise<boolean> {
  if (inserted < ANALYZE_AFTER_ROWS) return false;
  const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(
    'explain (format json) select 1 from assets where user_group = $1 and profile = $2',
    [group, profile],
  );
  const estimate = rows[0]?.['QUERY PLAN'][0]?.Plan['Plan Rows'] ?? 0;
  return inserted >= estimate / 10;
}

/** Rows a multi-row upsert statement writes at once. */
const CHUNK = 1000;

/**
 * The rows of a multi-row upsert, from five arrays (`$3`…`$7`) and the lookup names (`$8`), kept
 * where `where` holds.
 */
function insertedRows(lookupNames: number, where = ''): string {
  return `select u.id, u.properties, u.geometry,
        ${lookupSql(lookupNames, 'u.properties', '$8::text[]')} as lookup, u.display_name, u.is_deleted
      from unnest($3::text[], $4::jsonb[], $5::jsonb[], $6::text[], $7::boolean[])
        as u(id, properties, geometry, display_name, is_deleted) ${where}`;
}

/** The parameters of {@link insertedRows}' statement for `chunk`. */
function insertParameters(group: string, profile: string, chunk: readonly AssetImportRow[], names: string[]) {
  return [
    group,
    profile,
    chunk.map((r) => r.id),
    chunk.map((r) => JSON.stringify(r.properties)),
    chunk.map((r) => (r.geometry ? JSON.stringify(r.geometry) : null)),
    chunk.map((r) => r.display_name),
    chunk.map((r) => r.is_deleted),
    names,
  ];
}

/** Throws {@link DuplicateIdError} when an id of `chunk` is in `ids` or given twice; adds them. */
function checkIds(ids: Set<string> | undefined, chunk: readonly AssetImportRow[]): void {
  if (ids)
    for (const r of chunk) {
      if (ids.has(r.id)) throw new DuplicateIdError(DUPLICATE_ID);
      ids.add(r.id);
    }
}

/**
 * One statement on its own, committed as it ends, for a write of one chunk on PostgreSQL: it takes
 * the profile's lock itself (FOR SHARE, as {@link lockLookupNames} does) and writes only if the
 * lookup names read just before, without a lock, are still the profile's. No transaction is held
 * open across a round trip to this process: the change log's live readers, whose order waits for
 * every older transaction to end (src/subgraphs/events/feed.ts), wait only for the statement.
 * Undefined, with nothing written, when the profile or its names changed in between: the caller
 * then writes under the lock taken first.
 */
export async function upsertAlone(
  client: pg.PoolClient,
  group: string,
  profile: string,
  rows: readonly AssetImportRow[],
  options: Pick<UpsertOptions, 'idsChecked'> = {},
  names?: string[],
): Promise<Omit<UpsertResult, 'method'> | undefined> {
  checkIds(options.idsChecked ? undefined : new Set(), rows);
  const lookupNames =
    names ??
    (
      await client.query<{ lookup_names: string[] }>(
        'select lookup_names from asset_profiles where user_group = $1 and profile = $2',
        [group, profile],
      )
    ).rows[0]?.lookup_names;
  if (!lookupNames) return undefined;
  const statement = upsertSql({
    // Materialized: the lock is taken, and the names compared, once for the filter and the answer.
    with: 'locked as materialized (select lookup_names from asset_profiles where user_group = $1 and profile = $2 for share)',
    rows: insertedRows(
      lookupNames.length,
      'where exists (select from locked where lookup_names = $8::text[])',
    ),
    answer: 'exists (select from locked where lookup_names = $8::text[]) as current',
  });
  const { rows: answered } = await client.query<UpsertCounts & { current: boolean }>(
    statement,
    insertParameters(group, profile, rows, lookupNames),
  );
  const counts = answered[0]!;
  if (!counts.current) return undefined;
  return {
    rows: rows.length,
    inserted: counts.inserted,
    updated: rows.length - counts.inserted,
    unchanged: rows.length - counts.inserted - counts.changed,
  };
}

async function viaInsert(
  exec: Exec,
  target: UpsertTarget,
  rows: Rows,
  options: UpsertOptions,
): Promise<Omit<UpsertResult, 'method'>> {
  const { group, profile, lookupNames } = target;
  const size = Math.max(1, options.chunkSize ?? CHUNK);
  let n = 0;
  let inserted = 0;
  let changed = 0;
  const ids = options.idsChecked ? undefined : new Set<string>();
  // One statement per chunk; its rows arrive as five arrays (eight parameters in all).
  const statement = upsertSql({ rows: insertedRows(lookupNames.length) });
  let chunk: AssetImportRow[] = [];
  const flush = async () => {
    if (chunk.length === 0) return;
    checkIds(ids, chunk);
    const [counts] = await exec<UpsertCounts>(
      statement,
      insertParameters(group, profile, chunk, lookupNames),
    );
    inserted += counts!.inserted;
    changed += counts!.changed;
    n += chunk.length;
    chunk = [];
    options.onProgress?.(n);
  };
  for await (const r of rows) {
    chunk.push(r);
    if (chunk.length >= size) await flush();
  }
  await flush();
  return { rows: n, inserted, updated: n - inserted, unchanged: n - inserted - changed };
}

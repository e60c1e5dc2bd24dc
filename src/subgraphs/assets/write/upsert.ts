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
  try {
    await client.query('begin');
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
      await client.query('rollback');
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

async function viaInsert(
  exec: Exec,
  target: UpsertTarget,
  rows: Rows,
  options: UpsertOptions,
): Promise<Omit<UpsertResult, 'method'>> {
  const { group, profile, lookupNames } = target;
  const size = Math.max(1, options.chunkSize ?? 1000);
  let n = 0;
  let inserted = 0;
  let changed = 0;
  const ids = options.idsChecked ? undefined : new Set<string>();
  // One statement per chunk; its rows arrive as five arrays (eight parameters in all).
  const statement = upsertSql({
    rows: `select u.id, u.properties, u.geometry,
        ${lookupSql(lookupNames.length, 'u.properties', '$8::text[]')} as lookup, u.display_name, u.is_deleted
      from unnest($3::text[], $4::jsonb[], $5::jsonb[], $6::text[], $7::boolean[])
        as u(id, properties, geometry, display_name, is_deleted)`,
  });
  let chunk: AssetImportRow[] = [];
  const flush = async () => {
    if (chunk.length === 0) return;
    if (ids)
      for (const r of chunk) {
        if (ids.has(r.id)) throw new DuplicateIdError(DUPLICATE_ID);
        ids.add(r.id);
      }
    const [counts] = await exec<UpsertCounts>(statement, [
      group,
      profile,
      chunk.map((r) => r.id),
      chunk.map((r) => JSON.stringify(r.properties)),
      chunk.map((r) => (r.geometry ? JSON.stringify(r.geometry) : null)),
      chunk.map((r) => r.display_name),
      chunk.map((r) => r.is_deleted),
      lookupNames,
    ]);
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

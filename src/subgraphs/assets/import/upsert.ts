import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type Kysely, sql } from 'kysely';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Database } from '../../../storage/database.ts';
import type { Tables } from '../../../storage/tables.ts';
import { MANUAL_DATASET, mergePlanOf } from '../datasets/plan.ts';
import { forgetAssets, kyselyExec, writeUpDataset } from '../datasets/write.ts';
import type { EffectiveProfile } from '../profiles/definition.ts';
import type { AssetImportRow } from './validate.ts';

/** Loads at least this large refresh the table's planner statistics. */
export const ANALYZE_AFTER_ROWS = 10_000;

export interface UpsertOptions {
  /**
   * `copy`: `COPY ... FROM STDIN` into a temporary staging table, then one
   * `INSERT ... SELECT ... ON CONFLICT`. `insert`: multi-row `INSERT ... ON CONFLICT`
   * statements of `chunkSize` rows. Default: `copy` on PostgreSQL, `insert` on PGlite, whose
   * socket server does not speak the COPY sub-protocol (the connection is lost).
   */
  method?: 'copy' | 'insert';
  /** Rows per statement for `insert` @default 1000 */
  chunkSize?: number;
  /** Called as rows are sent, with the count so far. */
  onProgress?: (rows: number) => void;
  /**
   * The profile. When it declares up datasets the rows are written as its `manual` layer and
   * the assets re-merged (docs/assets.md "Datasets"); otherwise they are the properties.
   */
  profile?: EffectiveProfile;
}

export interface UpsertResult {
  rows: number;
  inserted: number;
  updated: number;
  method: 'copy' | 'insert';
}

type Rows = Iterable<AssetImportRow> | AsyncIterable<AssetImportRow>;

/** Raised when one call holds the same id twice (PostgreSQL cannot upsert a row twice in a statement). */
export class DuplicateIdError extends Error {
  override name = 'DuplicateIdError';
}

/**
 * Inserts or replaces the given assets of one profile, all or nothing, in one transaction on
 * one pooled connection. A new asset gets `modified_at = now()`; an existing one gets its
 * properties, display name and deleted flag replaced and `modified_at = now()`; its geometry
 * is replaced when the row has one and kept when the row has none (`geometry` undefined or
 * null); its `observation` is kept. Ids must be unique within one call. `rows` may be an
 * async iterable: with `copy` the rows are streamed and never all held in memory. An error
 * (from the database or thrown by `rows`) rolls everything back.
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
    const layer = async function* () {
      for await (const r of rows) yield { id: r.id, values: r.properties, geometry: r.geometry };
    };
    const result = await writeUpDataset(database, group, options.profile, MANUAL_DATASET, layer(), {
      ...options,
      method,
    });
    return { rows: result.rows, inserted: result.inserted, updated: result.updated, method };
  }
  const client = await database.pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('begin');
    const counts =
      method === 'copy'
        ? await viaCopy(client, group, profile, rows, options)
        : await viaInsert(client, group, profile, rows, options);
    await client.query('commit');
    // After a bulk load the planner's statistics are stale (it would estimate a handful of
    // rows and sort a whole profile instead of walking the key); refresh them at once rather
    // than wait for autovacuum.
    if (counts.rows >= ANALYZE_AFTER_ROWS) await client.query('analyze assets');
    return { ...counts, method };
  } catch (e) {
    try {
      await client.query('rollback');
    } catch (r) {
      broken = r as Error; // the connection is unusable: the pool drops it
    }
    if ((e as { code?: string }).code === '21000')
      throw new DuplicateIdError('the same asset id appears more than once in one upsert');
    throw e;
  } finally {
    client.release(broken);
  }
}

const ON_CONFLICT = `
  on conflict (user_group, profile, id) do update set
    properties = excluded.properties,
    geometry = coalesce(excluded.geometry, a.geometry),
    display_name = excluded.display_name,
    is_deleted = excluded.is_deleted,
    modified_at = excluded.modified_at
  returning (xmax = 0) as inserted`;

// `xmax = 0` tells a row inserted from one updated by ON CONFLICT (a PostgreSQL idiom).
const COUNT = `select count(*) filter (where inserted) as inserted, count(*) filter (where not inserted) as updated from upserted`;

async function viaCopy(
  client: pg.PoolClient,
  group: string,
  profile: string,
  rows: Rows,
  options: UpsertOptions,
): Promise<Omit<UpsertResult, 'method'>> {
  await client.query(`
    create temp table assetql_import_staging (
      id text not null,
      properties jsonb not null,
      geometry jsonb,
      display_name text not null,
      is_deleted boolean not null
    ) on commit drop`);
  let n = 0;
  const onProgress = options.onProgress;
  async function* lines(): AsyncGenerator<string> {
    let batch = '';
    for await (const r of rows) {
      batch += `${text(r.id)}\t${json(r.properties)}\t${r.geometry ? json(r.geometry) : '\\N'}\t${text(r.display_name)}\t${r.is_deleted ? 't' : 'f'}\n`;
      n++;
      if (batch.length >= 1 << 18) {
        yield batch;
        batch = '';
        onProgress?.(n);
      }
    }
    if (batch) yield batch;
    onProgress?.(n);
  }
  const copy = client.query(
    copyFrom('copy assetql_import_staging (id, properties, geometry, display_name, is_deleted) from stdin'),
  );
  await pipeline(Readable.from(lines(), { objectMode: false }), copy);
  if (n === 0) return { rows: 0, inserted: 0, updated: 0 };
  const { rows: counts } = await client.query<{ inserted: number; updated: number }>(
    `with upserted as (
      insert into assets as a (user_group, profile, id, properties, geometry, display_name, is_deleted, modified_at)
      select $1, $2, s.id, s.properties, s.geometry, s.display_name, s.is_deleted, now()
      from assetql_import_staging s
      ${ON_CONFLICT}
    ) ${COUNT}`,
    [group, profile],
  );
  return { rows: n, inserted: counts[0]!.inserted, updated: counts[0]!.updated };
}

async function viaInsert(
  client: pg.PoolClient,
  group: string,
  profile: string,
  rows: Rows,
  options: UpsertOptions,
): Promise<Omit<UpsertResult, 'method'>> {
  const size = Math.max(1, options.chunkSize ?? 1000);
  let n = 0;
  let inserted = 0;
  let updated = 0;
  let chunk: AssetImportRow[] = [];
  const flush = async () => {
    if (chunk.length === 0) return;
    // One statement per chunk; its rows arrive as five arrays (seven parameters in all).
    const { rows: counts } = await client.query<{ inserted: number; updated: number }>(
      `with upserted as (
        insert into assets as a (user_group, profile, id, properties, geometry, display_name, is_deleted, modified_at)
        select $1, $2, u.id, u.properties, u.geometry, u.display_name, u.is_deleted, now()
        from unnest($3::text[], $4::jsonb[], $5::jsonb[], $6::text[], $7::boolean[])
          as u(id, properties, geometry, display_name, is_deleted)
        ${ON_CONFLICT}
      ) ${COUNT}`,
      [
        group,
        profile,
        chunk.map((r) => r.id),
        chunk.map((r) => JSON.stringify(r.properties)),
        chunk.map((r) => (r.geometry ? JSON.stringify(r.geometry) : null)),
        chunk.map((r) => r.display_name),
        chunk.map((r) => r.is_deleted),
      ],
    );
    inserted += counts[0]!.inserted;
    updated += counts[0]!.updated;
    n += chunk.length;
    chunk = [];
    options.onProgress?.(n);
  };
  for await (const r of rows) {
    chunk.push(r);
    if (chunk.length >= size) await flush();
  }
  await flush();
  return { rows: n, inserted, updated };
}

/** COPY text format: backslash, tab, newline and carriage return are escaped. */
function text(s: string): string {
  return /[\\\t\n\r]/.test(s) ? s.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]!) : s;
}

const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** JSON text has no raw tab or line break (JSON.stringify escapes them): only backslashes. */
function json(v: unknown): string {
  const s = JSON.stringify(v);
  return s.includes('\\') ? s.replaceAll('\\', '\\\\') : s;
}

/**
 * Deletes assets of one profile by id, in one transaction: soft by default (`is_deleted`
 * set and `modified_at = now()`, for those not already deleted), or removes the rows with
 * `hard`. Returns how many rows changed.
 */
export async function deleteAssets(
  database: Pick<Database, 'db'>,
  group: string,
  profile: string,
  ids: readonly string[],
  options: {
    hard?: boolean;
    /** The profile's deleted property: a soft delete also sets it, so the flag survives recomputation. */
    isDeletedProperty?: string | null;
  } = {},
): Promise<{ deleted: number }> {
  if (ids.length === 0) return { deleted: 0 };
  // Inside a caller's transaction, join it; otherwise make one.
  const inTransaction = <T>(fn: (trx: Kysely<Tables>) => Promise<T>) =>
    database.db.isTransaction ? fn(database.db) : database.db.transaction().execute(fn);
  return inTransaction(async (trx) => {
    let deleted = 0;
    for (let i = 0; i < ids.length; i += 10_000) {
      const slice = ids.slice(i, i + 10_000);
      if (options.hard) await forgetAssets(kyselyExec(trx), group, profile, slice);
      else if (options.isDeletedProperty) {
        // A merged asset keeps the flag in its manual layer, which wins over imported values
        // unless declared lower; assets without dataset rows hold it in their properties.
        await trx.executeQuery(
          sql`insert into asset_dataset_rows as r (user_group, profile, dataset, asset_id, values)
            select ${group}, ${profile}, ${MANUAL_DATASET}, d.asset_id, jsonb_build_object(${options.isDeletedProperty}::text, true)
            from (select distinct asset_id from asset_dataset_rows
                  where user_group = ${group} and profile = ${profile} and asset_id = any(${slice}::text[])) d
            on conflict (user_group, profile, dataset, asset_id) do update
            set values = r.values || excluded.values, modified_at = now()`.compile(trx),
        );
      }
      const result = options.hard
        ? await trx
            .deleteFrom('assets')
            .where('user_group', '=', group)
            .where('profile', '=', profile)
            .where('id', '=', sql<string>`any(${slice}::text[])`)
            .executeTakeFirst()
        : await trx
            .updateTable('assets')
            .set({
              is_deleted: true,
              modified_at: sql<Date>`now()`,
              ...(options.isDeletedProperty
                ? {
                    properties:
                      sql`jsonb_set(properties, array[${options.isDeletedProperty}::text], 'true'::jsonb)` as never,
                  }
                : {}),
            })
            .where('user_group', '=', group)
            .where('profile', '=', profile)
            .where('id', '=', sql<string>`any(${slice}::text[])`)
            .where('is_deleted', '=', false)
            .executeTakeFirst();
      deleted += Number('numDeletedRows' in result ? result.numDeletedRows : result.numUpdatedRows);
    }
    return { deleted };
  });
}

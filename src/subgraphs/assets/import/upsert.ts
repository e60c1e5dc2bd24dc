import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { type Kysely, sql } from 'kysely';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Database } from '../../../storage/database.ts';
import type { Tables } from '../../../storage/tables.ts';
import { MANUAL_DATASET, mergePlanOf } from '../datasets/plan.ts';
import { clientExec, forgetAssets, kyselyExec, writeUpDataset } from '../datasets/write.ts';
import { lockLookupNames, lookupSql } from '../lookup.ts';
import type { EffectiveProfile } from '../profiles/definition.ts';
import type { AssetImportRow } from './validate.ts';

/**
 * Loads that add at least this many assets, and at least a tenth of the profile's size as the
 * planner estimates it, refresh the table's planner statistics.
 */
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
  /** Rows per COPY and merge for `copy` (all in the one transaction) @default {@link COPY_CHUNK_ROWS} */
  copyChunkRows?: number;
  /**
   * The caller has already refused repeated ids (the import command does, naming both lines):
   * no second set of every id is kept here.
   */
  idsChecked?: boolean;
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
  /** Rows that matched an existing asset (`unchanged` of them already held the same values). */
  updated: number;
  /**
   * Of `updated`, the assets left as they were because the row gave the values they hold
   * (their `modified_at` stays). Not counted for a profile with up datasets.
   */
  unchanged?: number;
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
 * properties, display name and deleted flag replaced and `modified_at = now()`, unless the row
 * holds exactly the values it has (then it is not written at all); its geometry
 * is replaced when the row has one and kept when the row has none (`geometry` undefined or
 * null); its `observation` is kept. Ids must be unique within one call. `rows` may be an
 * async iterable: with `copy` the rows are streamed and never all held in memory (they are
 * copied and merged in chunks of {@link COPY_CHUNK_ROWS} while the next chunk is read, all in
 * the one transaction). An error (from the database or thrown by `rows`) rolls everything back.
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
    const names = await lockLookupNames(clientExec(client), group, profile);
    const counts =
      method === 'copy'
        ? await viaCopy(client, group, profile, names, rows, options)
        : await viaInsert(client, group, profile, names, rows, options);
    await client.query('commit');
    if (await statisticsStale(client, group, profile, counts.inserted)) await client.query(ANALYZE);
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

// An existing asset whose values would not change is left alone: no new row version, no
// index entries, and its modified_at stays (it is counted in `unchanged`).
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

const ON_CONFLICT = `
  on conflict (user_group, profile, id) do update set
    properties = excluded.properties,
    geometry = coalesce(excluded.geometry, a.geometry),
    lookup = excluded.lookup,
    display_name = excluded.display_name,
    is_deleted = excluded.is_deleted,
    modified_at = excluded.modified_at
  where (a.properties, a.geometry, a.display_name, a.is_deleted)
    is distinct from (excluded.properties, coalesce(excluded.geometry, a.geometry), excluded.display_name, excluded.is_deleted)
  returning (xmax = 0) as inserted`;

// `xmax = 0` tells a row inserted from one updated by ON CONFLICT (a PostgreSQL idiom).
const COUNT = `select count(*) filter (where inserted) as inserted, count(*) filter (where not inserted) as changed from upserted`;

async function viaCopy(
  client: pg.PoolClient,
  group: string,
  profile: string,
  lookupNames: string[],
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
  const step = Math.max(1, options.copyChunkRows ?? COPY_CHUNK_ROWS);
  const onProgress = options.onProgress;
  const ids = options.idsChecked ? undefined : new Set<string>();
  const blocks = channel<Block>(READ_AHEAD_BLOCKS);
  // The rows are turned into COPY text while the database merges the chunk before: reading,
  // validating and formatting run on this process's core, COPY and the merge on the server's.
  const produce = async () => {
    let text = '';
    let inBlock = 0;
    let inChunk = 0;
    const put = async (end: boolean) => {
      const ok = await blocks.put({ text, rows: inBlock, end });
      text = '';
      inBlock = 0;
      return ok;
    };
    for await (const r of rows) {
      if (ids) {
        if (ids.has(r.id)) throw new DuplicateIdError(DUPLICATE);
        ids.add(r.id);
      }
      text += `${copyText(r.id)}\t${json(r.properties)}\t${r.geometry ? json(r.geometry) : '\\N'}\t${copyText(r.display_name)}\t${r.is_deleted ? 't' : 'f'}\n`;
      inBlock++;
      if (++inChunk >= step) {
        inChunk = 0;
        if (!(await put(true))) return;
      } else if (text.length >= 1 << 18 && !(await put(false))) return;
    }
    if (inBlock > 0) await put(true);
  };
  const producing = produce().then(
    () => blocks.end(),
    (e: unknown) => blocks.end(e),
  );

  let n = 0;
  let inserted = 0;
  let changed = 0;
  try {
    for (let head = await blocks.take(); head !== undefined; head = await blocks.take()) {
      const first: Block = head;
      // One COPY per chunk, then one set-based merge of that chunk into `assets`.
      async function* chunk(): AsyncGenerator<string> {
        for (let b: Block | undefined = first; b !== undefined; b = b.end ? undefined : await blocks.take()) {
          n += b.rows;
          yield b.text;
          onProgress?.(n);
        }
      }
      await pipeline(
        Readable.from(chunk(), { objectMode: false }),
        client.query(
          copyFrom(
            'copy assetql_import_staging (id, properties, geometry, display_name, is_deleted) from stdin',
          ),
        ),
      );
      const { rows: counts } = await client.query<{ inserted: number; changed: number }>(
        `with upserted as (
          insert into assets as a (user_group, profile, id, properties, geometry, lookup, display_name, is_deleted, modified_at)
          select $1, $2, s.id, s.properties, s.geometry, ${lookupSql(lookupNames.length, 's.properties', '$3::text[]')},
            s.display_name, s.is_deleted, now()
          from assetql_import_staging s
          ${ON_CONFLICT}
        ) ${COUNT}`,
        [group, profile, lookupNames],
      );
      inserted += Number(counts[0]!.inserted);
      changed += Number(counts[0]!.changed);
      await client.query('truncate assetql_import_staging');
    }
  } finally {
    blocks.close();
    await producing;
  }
  return { rows: n, inserted, updated: n - inserted, unchanged: n - inserted - changed };
}

/** Rows per COPY and merge inside the one transaction of `copy`. */
export const COPY_CHUNK_ROWS = 25_000;
/** COPY text blocks (of about 256 KB) read ahead of the database: bounds memory. */
const READ_AHEAD_BLOCKS = 64;
const DUPLICATE = 'the same asset id appears more than once in one upsert';

interface Block {
  text: string;
  rows: number;
  /** The last block of a chunk. */
  end: boolean;
}

/** A bounded queue between one producer and one consumer. */
function channel<T>(capacity: number) {
  const items: T[] = [];
  let ended = false;
  let closed = false;
  let failure: { error: unknown } | undefined;
  let wake: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const wait = () => new Promise<void>((r) => (wake = r));
  return {
    /** False once the consumer has closed the queue: stop producing. */
    async put(item: T): Promise<boolean> {
      while (items.length >= capacity && !closed) await wait();
      if (closed) return false;
      items.push(item);
      notify();
      return true;
    },
    /** The next item; undefined at the end; throws what the producer threw. */
    async take(): Promise<T | undefined> {
      while (items.length === 0 && !ended) await wait();
      if (failure) throw failure.error;
      const item = items.shift();
      notify();
      return item;
    },
    end(error?: unknown) {
      ended = true;
      if (error !== undefined) failure = { error };
      notify();
    },
    close() {
      closed = true;
      notify();
    },
  };
}

async function viaInsert(
  client: pg.PoolClient,
  group: string,
  profile: string,
  lookupNames: string[],
  rows: Rows,
  options: UpsertOptions,
): Promise<Omit<UpsertResult, 'method'>> {
  const size = Math.max(1, options.chunkSize ?? 1000);
  let n = 0;
  let inserted = 0;
  let changed = 0;
  const ids = options.idsChecked ? undefined : new Set<string>();
  let chunk: AssetImportRow[] = [];
  const flush = async () => {
    if (chunk.length === 0) return;
    // One statement per chunk; its rows arrive as five arrays (seven parameters in all).
    if (ids)
      for (const r of chunk) {
        if (ids.has(r.id)) throw new DuplicateIdError(DUPLICATE);
        ids.add(r.id);
      }
    const { rows: counts } = await client.query<{ inserted: number; changed: number }>(
      `with upserted as (
        insert into assets as a (user_group, profile, id, properties, geometry, lookup, display_name, is_deleted, modified_at)
        select $1, $2, u.id, u.properties, u.geometry, ${lookupSql(lookupNames.length, 'u.properties', '$8::text[]')},
          u.display_name, u.is_deleted, now()
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
        lookupNames,
      ],
    );
    inserted += Number(counts[0]!.inserted);
    changed += Number(counts[0]!.changed);
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

/** COPY text format: backslash, tab, newline and carriage return are escaped. */
function copyText(s: string): string {
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
    const lookupNames = await lockLookupNames(kyselyExec(trx), group, profile);
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
                    // The flag's new value, when relationships find assets by it (assets/lookup.ts).
                    lookup: sql`case when ${options.isDeletedProperty}::text = any(${lookupNames}::text[])
                      then coalesce(lookup, '{}'::jsonb) || jsonb_build_object(${options.isDeletedProperty}::text, true)
                      else lookup end` as never,
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

import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Database } from '../../../storage/database.ts';
import type { DatasetRow, ObservationRow } from '../datasets/rows.ts';
import { clientExec, type Exec } from '../exec.ts';
import { copyText } from './copy.ts';
import { DatasetWriteError, type DatasetWriteOptions, type DatasetWriteResult } from './types.ts';

export type Rows<T> = Iterable<T> | AsyncIterable<T>;

/** One dataset write, all or nothing, on one pooled connection. */
export async function inTransaction(
  database: Pick<Database, 'pool' | 'engine'>,
  options: DatasetWriteOptions,
  work: (
    exec: Exec,
    method: 'copy' | 'insert',
    client: pg.PoolClient,
  ) => Promise<Omit<DatasetWriteResult, 'method'>>,
): Promise<DatasetWriteResult> {
  const method = options.method ?? (database.engine === 'postgres' ? 'copy' : 'insert');
  const client = await database.pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('begin');
    const result = await work(clientExec(client), method, client);
    await client.query('commit');
    return { ...result, method };
  } catch (e) {
    try {
      await client.query('rollback');
    } catch (r) {
      broken = r as Error;
    }
    if ((e as { code?: string }).code === '21000')
      throw new DatasetWriteError(
        'the same asset (and observation time) appears more than once in one write',
      );
    throw e;
  } finally {
    client.release(broken);
  }
}

const STAGING = {
  up: {
    table: 'assetql_dataset_staging',
    columns: 'id text not null, values jsonb not null, geometry jsonb',
    names: ['id', 'values', 'geometry'],
    types: ['text[]', 'jsonb[]', 'jsonb[]'],
  },
  state: {
    table: 'assetql_observation_staging',
    columns: 'id text not null, observed_at timestamptz not null, values jsonb not null',
    names: ['id', 'observed_at', 'values'],
    types: ['text[]', 'timestamptz[]', 'jsonb[]'],
  },
} as const;

/** Fills a temporary staging table: COPY on PostgreSQL, multi-row INSERTs elsewhere. */
export async function stage(
  exec: Exec,
  client: pg.PoolClient | null,
  method: 'copy' | 'insert',
  kind: 'up' | 'state',
  rows: Rows<DatasetRow> | Rows<ObservationRow>,
  options: DatasetWriteOptions,
): Promise<number> {
  const s = STAGING[kind];
  await exec(`drop table if exists ${s.table}`);
  await exec(`create temp table ${s.table} (${s.columns}) on commit drop`);
  const fields = (r: DatasetRow | ObservationRow): (string | null)[] =>
    kind === 'up'
      ? [
          r.id,
          JSON.stringify(r.values),
          (r as DatasetRow).geometry ? JSON.stringify((r as DatasetRow).geometry) : null,
        ]
      : [r.id, (r as ObservationRow).observedAt, JSON.stringify(r.values)];
  let n = 0;
  const onProgress = options.onProgress;
  if (method === 'copy' && client) {
    async function* lines(): AsyncGenerator<string> {
      let batch = '';
      for await (const r of rows as AsyncIterable<DatasetRow | ObservationRow>) {
        batch += `${fields(r)
          .map((f) => (f === null ? '\\N' : copyText(f)))
          .join('\t')}\n`;
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
    const copy = client.query(copyFrom(`copy ${s.table} (${s.names.join(', ')}) from stdin`));
    await pipeline(Readable.from(lines(), { objectMode: false }), copy);
    return n;
  }
  const size = Math.max(1, options.chunkSize ?? 1000);
  let chunk: (string | null)[][] = [];
  const flush = async () => {
    if (chunk.length === 0) return;
    const columns = s.names.map((_, i) => chunk.map((f) => f[i] ?? null));
    await exec(
      `insert into ${s.table} (${s.names.join(', ')}) select * from unnest(${s.types
        .map((t, i) => `$${i + 1}::${t}`)
        .join(', ')})`,
      columns,
    );
    n += chunk.length;
    chunk = [];
    onProgress?.(n);
  };
  for await (const r of rows as AsyncIterable<DatasetRow | ObservationRow>) {
    chunk.push(fields(r));
    if (chunk.length >= size) await flush();
  }
  await flush();
  return n;
}

/** Adds what a write brought to the counters behind `UpDataset` and `StateUpdateDataset`. */
export async function bumpStats(
  exec: Exec,
  group: string,
  profile: string,
  dataset: string,
  s: { rows?: number; observations?: number; columns: string[]; latest?: Date | string | null },
) {
  await exec(
    `insert into asset_dataset_stats as t
       (user_group, profile, dataset, row_count, observation_count, columns, modified_at, latest_observation_at)
     values ($1, $2, $3, $4, $5, array(select distinct c from unnest($6::text[]) c order by c), now(), $7::timestamptz)
     on conflict (user_group, profile, dataset) do update set
       row_count = t.row_count + excluded.row_count,
       observation_count = t.observation_count + excluded.observation_count,
       columns = array(select distinct c from unnest(t.columns || excluded.columns) c order by c),
       modified_at = excluded.modified_at,
       latest_observation_at = greatest(t.latest_observation_at, excluded.latest_observation_at)`,
    [group, profile, dataset, s.rows ?? 0, s.observations ?? 0, s.columns, s.latest ?? null],
  );
}

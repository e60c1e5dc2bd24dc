import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CompiledQuery, type Kysely } from 'kysely';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Database } from '../../../storage/database.ts';
import { lockLookupNames, lookupSql } from '../lookup.ts';
import type { EffectiveProfile } from '../profiles/definition.ts';
import { displayNameOf } from '../profiles/display-name.ts';
import { MANUAL_DATASET, type MergePlan, mergeKey, mergePlanOf, stateDatasetsOf } from './plan.ts';

/** Runs one statement with `$n` parameters and returns its rows (a pg client or a Kysely transaction). */
export type Exec = <R = Record<string, unknown>>(text: string, params?: readonly unknown[]) => Promise<R[]>;

export const clientExec =
  (client: pg.PoolClient): Exec =>
  async <R>(text: string, params: readonly unknown[] = []) =>
    (await client.query(text, params as unknown[])).rows as R[];

// biome-ignore lint/suspicious/noExplicitAny: any table set; the statements are plain SQL
export const kyselyExec = (db: Kysely<any>): Exec =>
  (async <R>(text: string, params: readonly unknown[] = []) =>
    (await db.executeQuery(CompiledQuery.raw(text, [...params]))).rows as R[]) as Exec;

/** One row of an up dataset: values keyed by the dataset's column names. */
export interface DatasetRow {
  id: string;
  values: Record<string, unknown>;
  /** Replaces the asset's geometry when given; undefined or null keeps it. */
  geometry?: Record<string, unknown> | null;
}

/** One observation of a state dataset. */
export interface ObservationRow {
  id: string;
  /** ISO 8601 with an offset. */
  observedAt: string;
  values: Record<string, unknown>;
}

type Rows<T> = Iterable<T> | AsyncIterable<T>;

export interface DatasetWriteOptions {
  /** As for `upsertAssets`: COPY into the staging table on PostgreSQL, INSERT on PGlite. */
  method?: 'copy' | 'insert';
  /** Rows per staging statement for `insert` @default 1000 */
  chunkSize?: number;
  onProgress?: (rows: number) => void;
}

export interface DatasetWriteResult {
  rows: number;
  /** Assets created (up datasets) — or observations new to the history (state datasets). */
  inserted: number;
  updated: number;
  method: 'copy' | 'insert';
}

/**
 * A write refused as a whole after the rows reached the database: assets the merge would
 * leave without a required property, observations of assets that do not exist, an id given
 * twice. Nothing is written.
 */
export class DatasetWriteError extends Error {
  override name = 'DatasetWriteError';
}

/**
 * Writes rows of one up dataset and re-materialises the assets they touch, all or nothing in
 * one transaction: the rows replace the asset's earlier row in that dataset, and each touched
 * asset's `properties` become the merge of its rows (docs/assets.md "Datasets").
 */
export async function writeUpDataset(
  database: Pick<Database, 'pool' | 'engine'>,
  group: string,
  profile: EffectiveProfile,
  dataset: string,
  rows: Rows<DatasetRow>,
  options: DatasetWriteOptions = {},
): Promise<DatasetWriteResult> {
  const plan = mergePlanOf(profile);
  if (!plan?.layers.includes(dataset))
    throw new DatasetWriteError(`profile ${profile.profile} has no up dataset ${dataset}`);
  return inTransaction(database, options, async (exec, method, client) => {
    const n = await stage(exec, client, method, 'up', rows, options);
    const counts = await applyUpStaging(exec, group, profile.profile, plan, dataset);
    return { rows: n, ...counts };
  });
}

/**
 * Appends observations of one state dataset (an observation already stored for the same asset
 * and time is replaced) and updates each touched asset's latest `observation`, all or nothing.
 * With the profile's `forceAssetStateUpdates`, every touched asset's `modified_at` moves too.
 */
export async function writeObservations(
  database: Pick<Database, 'pool' | 'engine'>,
  group: string,
  profile: EffectiveProfile,
  dataset: string,
  rows: Rows<ObservationRow>,
  options: DatasetWriteOptions = {},
): Promise<DatasetWriteResult> {
  if (!stateDatasetsOf(profile).some((d) => d.dataset === dataset))
    throw new DatasetWriteError(`profile ${profile.profile} has no state dataset ${dataset}`);
  return inTransaction(database, options, async (exec, method, client) => {
    const n = await stage(exec, client, method, 'state', rows, options);
    const counts = await applyObservationStaging(
      exec,
      group,
      profile.profile,
      dataset,
      profile.document.forceAssetStateUpdates === true,
    );
    return { rows: n, ...counts };
  });
}

/** The same writes inside a caller's transaction (the demo seed, direct writes). */
export async function writeUpDatasetIn(
  exec: Exec,
  group: string,
  profile: EffectiveProfile,
  dataset: string,
  rows: DatasetRow[],
): Promise<{ inserted: number; updated: number }> {
  const plan = mergePlanOf(profile);
  if (!plan?.layers.includes(dataset))
    throw new DatasetWriteError(`profile ${profile.profile} has no up dataset ${dataset}`);
  await stage(exec, null, 'insert', 'up', rows, {});
  return applyUpStaging(exec, group, profile.profile, plan, dataset);
}

export async function writeObservationsIn(
  exec: Exec,
  group: string,
  profile: EffectiveProfile,
  dataset: string,
  rows: ObservationRow[],
): Promise<{ inserted: number; updated: number }> {
  await stage(exec, null, 'insert', 'state', rows, {});
  return applyObservationStaging(
    exec,
    group,
    profile.profile,
    dataset,
    profile.document.forceAssetStateUpdates === true,
  );
}

async function inTransaction(
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
async function stage(
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

/** COPY text format: backslash, tab, newline and carriage return are escaped. */
function copyText(s: string): string {
  return /[\\\t\n\r]/.test(s) ? s.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]!) : s;
}
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

async function bumpStats(
  exec: Exec,
  group: string,
  profile: string,
  dataset: string,
  s: { rows?: number; observations?: number; columns: string[]; latest?: Date | string | null },
) {
  await exec(
    `insert into asset_dataset_stats as t
       (user_group, profile, dataset, row_count, observation_count, columns, modified_at, latest_observation_at)
     values ($1, $2, $3, $4, $5, $6::text[], now(), $7::timestamptz)
     on conflict (user_group, profile, dataset) do update set
       row_count = t.row_count + excluded.row_count,
       observation_count = t.observation_count + excluded.observation_count,
       columns = array(select distinct c from unnest(t.columns || excluded.columns) c order by c),
       modified_at = excluded.modified_at,
       latest_observation_at = greatest(t.latest_observation_at, excluded.latest_observation_at)`,
    [group, profile, dataset, s.rows ?? 0, s.observations ?? 0, s.columns, s.latest ?? null],
  );
}

async function applyUpStaging(
  exec: Exec,
  group: string,
  profile: string,
  plan: MergePlan,
  dataset: string,
): Promise<{ inserted: number; updated: number }> {
  const [{ columns }] = (await exec<{ columns: string[] }>(
    `select coalesce(array_agg(distinct k order by k), '{}') as columns
     from assetql_dataset_staging s, jsonb_object_keys(s.values) k`,
  )) as [{ columns: string[] }];
  if (dataset !== MANUAL_DATASET) {
    // An asset written before its profile had datasets keeps those values as its manual layer.
    const adopted = await exec<{ n: number; columns: string[] | null }>(
      `with adopted as (
         insert into asset_dataset_rows (user_group, profile, dataset, asset_id, values, modified_at)
         select a.user_group, a.profile, $3, a.id, a.properties, a.modified_at
         from assetql_dataset_staging s
         join assets a on a.user_group = $1 and a.profile = $2 and a.id = s.id
         where a.properties <> '{}'::jsonb
           and not exists (select 1 from asset_dataset_rows r
                           where r.user_group = $1 and r.profile = $2 and r.asset_id = s.id)
         returning values)
       select count(*)::int as n,
         (select array_agg(distinct k) from adopted, jsonb_object_keys(adopted.values) k) as columns
       from adopted`,
      [group, profile, MANUAL_DATASET],
    );
    if (adopted[0]!.n > 0)
      await bumpStats(exec, group, profile, MANUAL_DATASET, {
        rows: adopted[0]!.n,
        columns: adopted[0]!.columns ?? [],
      });
  }
  const [written] = await exec<{ inserted: number }>(
    `with up as (
       insert into asset_dataset_rows as r (user_group, profile, dataset, asset_id, values, modified_at)
       select $1, $2, $3, s.id, s.values, now() from assetql_dataset_staging s
       on conflict (user_group, profile, dataset, asset_id) do update set
         values = excluded.values, modified_at = excluded.modified_at
       returning (xmax = 0) as inserted)
     select count(*) filter (where inserted)::int as inserted from up`,
    [group, profile, dataset],
  );
  await bumpStats(exec, group, profile, dataset, { rows: written!.inserted, columns });
  return mergeAssets(exec, group, profile, plan, 'select id, geometry from assetql_dataset_staging');
}

/**
 * Re-materialises `properties` (and the display name and deleted flag) of the assets `ids`
 * selects (`id`, `geometry` columns; `$1` is the group and `$2` the profile), creating assets
 * that do not exist yet. Refuses (throws) when a merged asset lacks a required property.
 */
export async function mergeAssets(
  exec: Exec,
  group: string,
  profile: string,
  plan: MergePlan,
  ids: string,
): Promise<{ inserted: number; updated: number }> {
  const lookupNames = await lockLookupNames(exec, group, profile);
  const [r] = await exec<{ inserted: number; updated: number; missing: string[] | null }>(
    `with ids as (${ids}),
     maps as (select * from unnest($4::text[], $5::text[], $6::text[]) as m(dataset, col, prop)),
     plan as (
       select p.dataset, p.ord, exists (select 1 from maps m where m.dataset = p.dataset) as mapped
       from unnest($3::text[]) with ordinality as p(dataset, ord)),
     merged as (
       select i.id, i.geometry,
         assetql_jsonb_merge(
           case when p.mapped then
             (select coalesce(jsonb_object_agg(coalesce($9::jsonb -> r.dataset ->> e.key, e.key), e.value), '{}'::jsonb)
              from jsonb_each(r.values) e)
           else r.values end
           order by p.ord) as properties
       from ids i
       join asset_dataset_rows r on r.user_group = $1 and r.profile = $2 and r.asset_id = i.id
       join plan p on p.dataset = r.dataset
       group by i.id, i.geometry),
     prepared as (select id, geometry, properties, $7::jsonb || properties as w from merged),
     upserted as (
       insert into assets as a (user_group, profile, id, properties, geometry, lookup, display_name, is_deleted, modified_at)
       select $1, $2, id, properties, geometry, ${lookupSql(lookupNames.length, 'properties', '$10::text[]')},
         ${plan.displaySql ?? 'id'}, ${plan.deletedSql}, now()
       from prepared
       on conflict (user_group, profile, id) do update set
         properties = excluded.properties,
         geometry = coalesce(excluded.geometry, a.geometry),
         lookup = excluded.lookup,
         display_name = excluded.display_name,
         is_deleted = excluded.is_deleted,
         modified_at = case
           when a.properties is distinct from excluded.properties
             or a.is_deleted is distinct from excluded.is_deleted
             or (excluded.geometry is not null and excluded.geometry is distinct from a.geometry)
           then excluded.modified_at else a.modified_at end
       returning (xmax = 0) as inserted, a.id, a.properties)
     select count(*) filter (where inserted)::int as inserted,
       count(*) filter (where not inserted)::int as updated,
       (select array_agg(id) from (select id from upserted
          where not (properties ?& $8::text[]) order by id limit 10) x) as missing
     from upserted`,
    [
      group,
      profile,
      plan.layers,
      plan.maps.map((m) => m.dataset),
      plan.maps.map((m) => m.column),
      plan.maps.map((m) => m.property),
      JSON.stringify(plan.defaults),
      plan.required,
      // { dataset: { column: property } }: renaming without a join per value
      JSON.stringify(
        Object.fromEntries(
          [...new Set(plan.maps.map((m) => m.dataset))].map((d) => [
            d,
            Object.fromEntries(plan.maps.filter((m) => m.dataset === d).map((m) => [m.column, m.property])),
          ]),
        ),
      ),
      lookupNames,
    ],
  );
  if (r!.missing?.length) {
    throw new DatasetWriteError(
      `assets ${r!.missing.join(', ')} would lack a required property (${plan.required.join(', ')})`,
    );
  }
  if (plan.displaySql === null) await renderDisplayNames(exec, group, profile, plan, ids);
  return { inserted: r!.inserted, updated: r!.updated };
}

/** Display names that only JavaScript renders exactly, for the assets `ids` selects. */
async function renderDisplayNames(exec: Exec, group: string, profile: string, plan: MergePlan, ids: string) {
  const [doc] = await exec<{ definition: { displayNameProperty: string; displayNameTemplate?: string } }>(
    'select definition from asset_profiles where user_group = $1 and profile = $2',
    [group, profile],
  );
  const rows = await exec<{ id: string; properties: Record<string, unknown>; display_name: string }>(
    `select a.id, a.properties, a.display_name from (${ids}) i
     join assets a on a.user_group = $1 and a.profile = $2 and a.id = i.id`,
    [group, profile],
  );
  const changed = rows
    .map((a) => ({
      id: a.id,
      name: displayNameOf(doc!.definition, a.id, { ...plan.defaults, ...a.properties }),
      a,
    }))
    .filter((c) => c.name !== c.a.display_name);
  for (let i = 0; i < changed.length; i += 5000) {
    const slice = changed.slice(i, i + 5000);
    await exec(
      `update assets a set display_name = v.name
       from unnest($3::text[], $4::text[]) as v(id, name)
       where a.user_group = $1 and a.profile = $2 and a.id = v.id`,
      [group, profile, slice.map((c) => c.id), slice.map((c) => c.name)],
    );
  }
}

async function applyObservationStaging(
  exec: Exec,
  group: string,
  profile: string,
  dataset: string,
  force: boolean,
): Promise<{ inserted: number; updated: number }> {
  const unknown = await exec<{ id: string }>(
    `select distinct s.id from assetql_observation_staging s
     where not exists (select 1 from assets a where a.user_group = $1 and a.profile = $2 and a.id = s.id)
     order by s.id limit 10`,
    [group, profile],
  );
  if (unknown.length > 0)
    throw new DatasetWriteError(`no ${profile} assets ${unknown.map((u) => u.id).join(', ')}`);
  const [written] = await exec<{
    inserted: number;
    updated: number;
    latest: Date | null;
    columns: string[] | null;
  }>(
    `with up as (
       insert into asset_state_observations as o (user_group, profile, dataset, asset_id, observed_at, values)
       select $1, $2, $3, s.id, s.observed_at, s.values from assetql_observation_staging s
       on conflict (user_group, profile, dataset, asset_id, observed_at) do update set values = excluded.values
       returning (xmax = 0) as inserted)
     select count(*) filter (where inserted)::int as inserted,
       count(*) filter (where not inserted)::int as updated,
       (select max(observed_at) from assetql_observation_staging) as latest,
       (select array_agg(distinct k) from assetql_observation_staging s, jsonb_object_keys(s.values) k) as columns
     from up`,
    [group, profile, dataset],
  );
  await bumpStats(exec, group, profile, dataset, {
    observations: written!.inserted,
    columns: written!.columns ?? [],
    latest: written!.latest,
  });
  // Per key, the newest value of this write replaces the stored one unless that is newer.
  await exec(
    `with latest as (
       select distinct on (s.id, e.key) s.id, e.key, e.value, s.observed_at
       from assetql_observation_staging s cross join lateral jsonb_each(s.values) e
       order by s.id, e.key, s.observed_at desc),
     fresh as (
       select l.id, jsonb_object_agg(l.key, l.value) as observation,
         jsonb_object_agg(l.key, to_jsonb(l.observed_at)) as observation_at
       from latest l
       join assets a on a.user_group = $1 and a.profile = $2 and a.id = l.id
       where a.observation_at -> l.key is null or (a.observation_at ->> l.key)::timestamptz <= l.observed_at
       group by l.id)
     update assets a set
       observation = coalesce(a.observation, '{}'::jsonb) || f.observation,
       observation_at = coalesce(a.observation_at, '{}'::jsonb) || f.observation_at
     from fresh f
     where a.user_group = $1 and a.profile = $2 and a.id = f.id`,
    [group, profile],
  );
  if (force) {
    await exec(
      `update assets a set modified_at = now()
       where a.user_group = $1 and a.profile = $2 and a.id in (select id from assetql_observation_staging)`,
      [group, profile],
    );
  }
  return { inserted: written!.inserted, updated: written!.updated };
}

/**
 * Keeps stored merges in step with a profile change, in the caller's transaction: rows and
 * observations of datasets no longer declared are deleted, and the assets they fed are
 * re-materialised; a new merge order or property map re-merges every asset with rows.
 */
export async function followProfileChange(
  exec: Exec,
  group: string,
  before: EffectiveProfile | undefined,
  after: EffectiveProfile,
): Promise<void> {
  const profile = after.profile;
  const oldPlan = before ? mergePlanOf(before) : null;
  const newPlan = mergePlanOf(after);
  const removedUp = (oldPlan?.layers ?? []).filter((d) => !newPlan?.layers.includes(d));
  const oldState = before ? stateDatasetsOf(before).map((d) => d.dataset) : [];
  const newState = new Set(stateDatasetsOf(after).map((d) => d.dataset));
  const removedState = oldState.filter((d) => !newState.has(d));
  const ids = `select distinct asset_id as id, null::jsonb as geometry from asset_dataset_rows
               where user_group = $1 and profile = $2`;

  if (removedUp.length > 0) {
    await exec('drop table if exists assetql_remerge');
    await exec(
      `create temp table assetql_remerge on commit drop as
       select distinct asset_id as id, null::jsonb as geometry from asset_dataset_rows
       where user_group = $1 and profile = $2 and dataset = any($3::text[])`,
      [group, profile, removedUp],
    );
    const keep = newPlan ? removedUp : removedUp.filter((d) => d !== MANUAL_DATASET);
    await exec(
      'delete from asset_dataset_rows where user_group = $1 and profile = $2 and dataset = any($3::text[])',
      [group, profile, keep],
    );
    // Without up datasets the manual layer is all that is left: it becomes the assets' own.
    const plan = newPlan ?? { ...oldPlan!, layers: [MANUAL_DATASET], maps: [] };
    if (newPlan && mergeKey(oldPlan) !== mergeKey(newPlan))
      await mergeAssets(exec, group, profile, plan, ids);
    else await mergeAssets(exec, group, profile, plan, 'select id, geometry from assetql_remerge');
    if (!newPlan)
      await exec('delete from asset_dataset_rows where user_group = $1 and profile = $2 and dataset = $3', [
        group,
        profile,
        MANUAL_DATASET,
      ]);
    await exec(
      'delete from asset_dataset_stats where user_group = $1 and profile = $2 and dataset = any($3::text[])',
      [group, profile, removedUp],
    );
  } else if (newPlan && mergeKey(oldPlan) !== mergeKey(newPlan)) {
    await mergeAssets(exec, group, profile, newPlan, ids);
  }

  if (removedState.length > 0) {
    await exec('drop table if exists assetql_reobserve');
    await exec(
      `create temp table assetql_reobserve on commit drop as
       select distinct asset_id as id from asset_state_observations
       where user_group = $1 and profile = $2 and dataset = any($3::text[])`,
      [group, profile, removedState],
    );
    await exec(
      'delete from asset_state_observations where user_group = $1 and profile = $2 and dataset = any($3::text[])',
      [group, profile, removedState],
    );
    await exec(
      `with latest as (
         select distinct on (o.asset_id, e.key) o.asset_id, e.key, e.value, o.observed_at
         from asset_state_observations o
         join assetql_reobserve t on t.id = o.asset_id
         cross join lateral jsonb_each(o.values) e
         where o.user_group = $1 and o.profile = $2
         order by o.asset_id, e.key, o.observed_at desc),
       agg as (
         select asset_id, jsonb_object_agg(key, value) as observation,
           jsonb_object_agg(key, to_jsonb(observed_at)) as observation_at
         from latest group by asset_id)
       update assets a set observation = agg.observation, observation_at = agg.observation_at
       from assetql_reobserve t left join agg on agg.asset_id = t.id
       where a.user_group = $1 and a.profile = $2 and a.id = t.id`,
      [group, profile],
    );
    await exec(
      'delete from asset_dataset_stats where user_group = $1 and profile = $2 and dataset = any($3::text[])',
      [group, profile, removedState],
    );
  }
}

/**
 * A hard delete's share: the assets' dataset rows and observations go too, and the counters
 * drop by what was removed.
 */
export async function forgetAssets(exec: Exec, group: string, profile: string, ids: readonly string[]) {
  for (const table of ['asset_dataset_rows', 'asset_state_observations'] as const) {
    const counter = table === 'asset_dataset_rows' ? 'row_count' : 'observation_count';
    await exec(
      `with gone as (
         delete from ${table} where user_group = $1 and profile = $2 and asset_id = any($3::text[])
         returning dataset),
       per as (select dataset, count(*) as n from gone group by dataset)
       update asset_dataset_stats t set ${counter} = t.${counter} - per.n
       from per where t.user_group = $1 and t.profile = $2 and t.dataset = per.dataset`,
      [group, profile, ids],
    );
  }
}

/** The counters behind `UpDataset` and `StateUpdateDataset`, for profiles of one group. */
export interface DatasetStats {
  profile: string;
  dataset: string;
  row_count: number;
  observation_count: number;
  columns: string[];
  modified_at: Date | null;
  latest_observation_at: Date | null;
}

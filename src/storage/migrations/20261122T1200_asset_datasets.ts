import { type Kysely, sql } from 'kysely';

// Datasets feed assets (docs/assets.md "Datasets"). Declarations live in the profile document;
// these tables hold the data and the counters that `UpDataset`/`StateUpdateDataset` show, so
// that reading them never scans rows. No foreign keys to `assets`: a dataset row may arrive
// before its asset exists (the same statement creates it), and per-row checks would slow the
// bulk path; hard deletes remove an asset's rows and observations explicitly.
export async function up(db: Kysely<unknown>): Promise<void> {
  // One row per asset per up dataset, values keyed by the dataset's own column names.
  await sql`
    create table asset_dataset_rows (
      user_group text not null,
      profile text not null,
      dataset text not null,
      asset_id text not null,
      values jsonb not null,
      modified_at timestamptz not null default now(),
      primary key (user_group, profile, dataset, asset_id)
    )`.execute(db);
  // Merging reads every row of one asset across datasets.
  await sql`create index asset_dataset_rows_by_asset on asset_dataset_rows (user_group, profile, asset_id)`.execute(
    db,
  );

  // The history of a state dataset: one row per asset per observation time.
  await sql`
    create table asset_state_observations (
      user_group text not null,
      profile text not null,
      dataset text not null,
      asset_id text not null,
      observed_at timestamptz not null,
      values jsonb not null,
      primary key (user_group, profile, dataset, asset_id, observed_at)
    )`.execute(db);
  await sql`
    create index asset_state_observations_by_asset
    on asset_state_observations (user_group, profile, asset_id, observed_at desc)`.execute(db);

  // Counters kept at write time (a tenant may hold millions of rows).
  await sql`
    create table asset_dataset_stats (
      user_group text not null,
      profile text not null,
      dataset text not null,
      row_count bigint not null default 0,
      observation_count bigint not null default 0,
      columns text[] not null default '{}',
      modified_at timestamptz,
      latest_observation_at timestamptz,
      primary key (user_group, profile, dataset)
    )`.execute(db);

  // Merging is `||` over an asset's rows in priority order: an aggregate of it merges rows
  // without exploding every value into key/value pairs (only mapped datasets are renamed).
  await sql`
    create aggregate assetql_jsonb_merge(jsonb) (sfunc = jsonb_concat, stype = jsonb, initcond = '{}')`.execute(
    db,
  );

  // When each key of `assets.observation` was observed, so an older observation arriving late
  // never replaces a newer value, without reading the history.
  await sql`alter table assets add column observation_at jsonb`.execute(db);
}

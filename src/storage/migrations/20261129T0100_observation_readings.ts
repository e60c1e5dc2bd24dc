import { type Kysely, sql } from 'kysely';

// Telemetry storage (docs/telemetry.md): readings kept one value per row, typed, in monthly
// partitions, with rollups per hour and day kept at write time. It replaces the
// JSON-per-observation history of 20261122T1200_asset_datasets.ts, whose rows it takes over.

/** The tables partitioned by month, each partitioned on its time column. */
export const MONTHLY = [
  'observation_readings',
  'observation_rollups_hour',
  'observation_rollups_day',
] as const;

const ROLLUP_COLUMNS = `
      series bigint not null,
      bucket timestamptz not null,
      n bigint not null,
      sum float8 not null,
      sumsq float8 not null,
      min float8 not null,
      min_at timestamptz not null,
      max float8 not null,
      max_at timestamptz not null,
      first float8 not null,
      first_at timestamptz not null,
      last float8 not null,
      last_at timestamptz not null,
      primary key (series, bucket)`;

export async function up(db: Kysely<unknown>): Promise<void> {
  // One row per asset, state dataset and key: a reading's key is this row's id, never repeated
  // text. Rows are never deleted while their group holds the asset's profile, so a process may
  // remember an id for good.
  await sql`
    create table observation_series (
      id bigint generated always as identity primary key,
      user_group text not null,
      profile text not null,
      asset_id text not null,
      dataset text not null,
      property text not null,
      unique (user_group, profile, asset_id, dataset, property)
    )`.execute(db);
  // `num` holds a number, `val` anything else (a string, a boolean, an object): aggregates read
  // `num` and never parse JSON.
  await sql`
    create table observation_readings (
      series bigint not null,
      at timestamptz not null,
      num float8,
      val jsonb,
      -- The value rides in the key's index: a series' readings over a range are read from the
      -- index alone, not from heap pages that readings of every other series share.
      primary key (series, at) include (num)
    ) partition by range (at)`.execute(db);
  for (const width of ['hour', 'day'])
    await sql`create table ${sql.table(`observation_rollups_${width}`)} (${sql.raw(ROLLUP_COLUMNS)})
      partition by range (bucket)`.execute(db);

  // How long a group keeps readings, when not the deployment's default.
  await sql`
    create table observation_retention (
      user_group text primary key,
      days integer not null check (days > 0)
    )`.execute(db);

  // Creates the month's partition of every monthly table unless it exists; one caller at a time.
  await sql`
    create function observation_month(month date) returns void language plpgsql as $$
    declare
      t text;
      name text;
      lo timestamptz := (date_trunc('month', month)::timestamp at time zone 'UTC');
      hi timestamptz := ((date_trunc('month', month) + interval '1 month')::timestamp at time zone 'UTC');
    begin
      if to_regclass('observation_rollups_day_' || to_char(month, 'YYYY"m"MM')) is not null then return; end if;
      perform pg_advisory_xact_lock(hashtext('assetql.observation_month'));
      foreach t in array array['observation_readings', 'observation_rollups_hour', 'observation_rollups_day'] loop
        name := t || '_' || to_char(month, 'YYYY"m"MM');
        if to_regclass(name) is null then
          -- Rollup rows are updated by every batch: room on the page keeps those updates HOT.
          execute format('create table %I partition of %I for values from (%L) to (%L)%s', name, t, lo, hi,
            case when t like 'observation_rollups_%' then ' with (fillfactor = 70)' else '' end);
        end if;
      end loop;
    end $$`.execute(db);

  // The old history: each key of each observation becomes a reading.
  await sql`
    insert into observation_series (user_group, profile, asset_id, dataset, property)
    select distinct o.user_group, o.profile, o.asset_id, o.dataset, e.key
    from asset_state_observations o cross join lateral jsonb_object_keys(o.values) e(key)`.execute(db);
  await sql`
    select observation_month(m::date)
    from (select distinct date_trunc('month', observed_at at time zone 'UTC') m from asset_state_observations) s`.execute(
    db,
  );
  await sql`
    insert into observation_readings (series, at, num, val)
    select s.id, o.observed_at,
      case when jsonb_typeof(e.value) = 'number' then (e.value)::float8 end,
      case when jsonb_typeof(e.value) <> 'number' then e.value end
    from asset_state_observations o cross join lateral jsonb_each(o.values) e
    join observation_series s on s.user_group = o.user_group and s.profile = o.profile
      and s.asset_id = o.asset_id and s.dataset = o.dataset and s.property = e.key`.execute(db);
  for (const [width, parent] of [
    ['hour', null],
    ['day', 'hour'],
  ] as const) {
    const source = parent
      ? sql.raw(`(select series, date_trunc('${width}', bucket, 'UTC') as b, n, sum, sumsq, min, min_at, max, max_at,
           first, first_at, last, last_at from observation_rollups_${parent}) r`)
      : sql.raw(`(select series, date_trunc('hour', at, 'UTC') as b, 1 as n, num as sum, num * num as sumsq,
           num as min, at as min_at, num as max, at as max_at, num as first, at as first_at, num as last, at as last_at
           from observation_readings where num is not null) r`);
    await sql`
      insert into ${sql.table(`observation_rollups_${width}`)}
      select series, b, sum(n), sum(sum), sum(sumsq), min(min), (array_agg(min_at order by min, min_at))[1],
        max(max), (array_agg(max_at order by max desc, max_at))[1],
        (array_agg(first order by first_at))[1], min(first_at), (array_agg(last order by last_at desc))[1], max(last_at)
      from ${source} group by series, b`.execute(db);
  }
  await sql`drop table asset_state_observations`.execute(db);
  // An asset's latest values change with every batch of readings: room on each page lets the
  // row's new version stay beside the old one (a HOT update, no index touched). Pages written
  // before keep none until the table is rewritten (VACUUM FULL, pg_repack).
  await sql`alter table assets set (fillfactor = 80)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`alter table assets reset (fillfactor)`.execute(db);
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
  await sql`
    insert into asset_state_observations (user_group, profile, dataset, asset_id, observed_at, values)
    select s.user_group, s.profile, s.dataset, s.asset_id, r.at, jsonb_object_agg(s.property, coalesce(to_jsonb(r.num), r.val))
    from observation_readings r join observation_series s on s.id = r.series
    group by 1, 2, 3, 4, 5`.execute(db);
  await sql`drop function observation_month(date)`.execute(db);
  for (const t of [...MONTHLY].reverse()) await sql`drop table ${sql.table(t)}`.execute(db);
  await sql`drop table observation_retention`.execute(db);
  await sql`drop table observation_series`.execute(db);
}

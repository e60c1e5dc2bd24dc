import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Clock } from '../../../shared/clock.ts';
import type { Logger } from '../../../shared/logger.ts';
import { PeriodicJob } from '../../../shared/periodic.ts';
import { LOCKS, tryAdvisoryLock } from '../../../storage/locks.ts';
import { MONTHLY } from '../../../storage/migrations/20261129T0100_observation_readings.ts';
import type { Tables } from '../../../storage/tables.ts';

const DAY_MS = 86_400_000;
/** Readings deleted by one statement: a pruning never holds much at once. */
const BATCH = 10_000;

/**
 * How long each group keeps readings: the deployment's default
 * (`ASSETQL_OBSERVATION_RETENTION_DAYS`) unless the group has its own (`assetql telemetry
 * retention`). Read at most once a minute per group.
 */
export class TelemetryRetention {
  readonly #db: Kysely<Tables>;
  readonly #defaultDays: number;
  readonly #clock: Clock;
  readonly #known = new Map<string, { days: number; until: number }>();

  constructor(db: Kysely<Tables>, defaultDays: number, clock: Clock) {
    this.#db = db;
    this.#defaultDays = defaultDays;
    this.#clock = clock;
  }

  get defaultDays(): number {
    return this.#defaultDays;
  }

  async daysOf(group: string): Promise<number> {
    const now = this.#clock.now().getTime();
    const known = this.#known.get(group);
    if (known && known.until > now) return known.days;
    const row = await this.#db
      .selectFrom('observation_retention')
      .select('days')
      .where('user_group', '=', group)
      .executeTakeFirst();
    const days = row?.days ?? this.#defaultDays;
    if (this.#known.size > 10_000) this.#known.clear();
    this.#known.set(group, { days, until: now + 60_000 });
    return days;
  }
}

/** Sets (or with null clears) a group's own retention. */
export async function setGroupRetention(
  db: Kysely<Tables>,
  group: string,
  days: number | null,
): Promise<void> {
  if (days === null) await db.deleteFrom('observation_retention').where('user_group', '=', group).execute();
  else
    await db
      .insertInto('observation_retention')
      .values({ user_group: group, days })
      .onConflict((oc) => oc.column('user_group').doUpdateSet({ days }))
      .execute();
}

/**
 * Prunes readings past their group's retention, and makes next month's partitions ahead of
 * time: whole months past every group's retention are dropped as partitions (no row is read),
 * a group keeping less has its older readings deleted in batches. Every hour, one process at a
 * time; writes never wait for it (a batch holds its rows' locks only).
 */
export class ObservationPruning {
  readonly options: { db: Kysely<Tables>; clock: Clock; log: Logger; defaultDays: number; everyMs?: number };
  readonly #job: PeriodicJob<number>;

  constructor(options: ObservationPruning['options']) {
    this.options = options;
    this.#job = new PeriodicJob(options.everyMs ?? 60 * 60 * 1000, () => this.#prune());
  }

  /** Prunes now (unless a pruning is running here); how many readings went. */
  prune(): Promise<number> {
    return this.#job.run();
  }

  async #prune(): Promise<number> {
    const { db, clock, log, defaultDays } = this.options;
    try {
      const pruned = await tryAdvisoryLock(db, LOCKS.observationRetention, () =>
        pruneObservations(db, clock.now(), defaultDays),
      );
      if (pruned) log.info({ pruned }, 'readings pruned');
      return pruned ?? 0;
    } catch (e) {
      log.warn({ err: e }, 'readings pruning failed; it is tried again within the hour');
      return 0;
    }
  }

  close(): Promise<void> {
    return this.#job.close();
  }
}

/** One pruning pass at `now`: readings (and rollups) deleted or dropped. */
export async function pruneObservations(db: Kysely<Tables>, now: Date, defaultDays: number): Promise<number> {
  // Next month's partitions before anyone writes into it.
  const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  await sql`select observation_month(${next.toISOString().slice(0, 10)}::date)`.execute(db);
  const own = await db.selectFrom('observation_retention').select(['user_group', 'days']).execute();
  const longest = Math.max(defaultDays, ...own.map((o) => o.days));
  // Months wholly older than every group keeps: dropped.
  const keepFrom = new Date(now.getTime() - longest * DAY_MS);
  const { rows: parts } = await sql<{ name: string; month: string }>`
    select c.relname as name, substring(c.relname, '(\\d{4}m\\d{2})$') as month
    from pg_inherits i join pg_class c on c.oid = i.inhrelid join pg_class p on p.oid = i.inhparent
    where p.relname = 'observation_readings'`.execute(db);
  let dropped = 0;
  for (const part of parts) {
    const [y, m] = part.month.split('m').map(Number) as [number, number];
    const end = new Date(Date.UTC(y, m, 1));
    if (end > keepFrom) continue;
    for (const t of MONTHLY) await sql`drop table if exists ${sql.table(`${t}_${part.month}`)}`.execute(db);
    dropped++;
  }
  // Rows older than their group keeps: deleted, in batches.
  let total = 0;
  const groups = [
    ...own.map((o) => ({ group: o.user_group, days: o.days })),
    ...(defaultDays < longest ? [{ group: null as string | null, days: defaultDays }] : []),
  ];
  for (const g of groups) {
    if (g.days >= longest) continue;
    const cutoff = new Date(now.getTime() - g.days * DAY_MS);
    const series = g.group
      ? sql`select id from observation_series where user_group = ${g.group}`
      : sql`select id from observation_series where user_group not in (select user_group from observation_retention)`;
    for (const table of ['observation_readings', 'observation_rollups_hour'] as const) {
      const at = table === 'observation_readings' ? sql.raw('at') : sql.raw('bucket');
      for (;;) {
        const r = await sql`
          delete from ${sql.table(table)} where (series, ${at}) in (
            select series, ${at} from ${sql.table(table)} where series in (${series}) and ${at} < ${cutoff} limit ${BATCH})`.execute(
          db,
        );
        const n = Number(r.numAffectedRows ?? 0);
        if (table === 'observation_readings') total += n;
        if (n < BATCH) break;
      }
    }
    // A day bucket goes when the whole day is past the cutoff.
    await sql`delete from observation_rollups_day where series in (${series})
      and bucket + interval '1 day' <= ${cutoff}`.execute(db);
  }
  return total + dropped;
}

import DataLoader from 'dataloader';
import { GraphQLError } from 'graphql';
import type {
  AssetResolvers,
  MutationResolvers,
  ObservationSeriesResolvers,
} from '../../../__generated__/assets.ts';
import { fail, mutationResult, ok } from '../../../shared/result.ts';
import type { AssetsContext } from '../context.ts';
import { kyselyExec } from '../exec.ts';
import type { EffectiveProfile } from '../profiles/definition.ts';
import {
  DEFAULT_RAW_PAGE,
  downsampled,
  MAX_DOWNSAMPLE_POINTS,
  MAX_RAW_PAGE,
  readingsPage,
} from '../telemetry/raw.ts';
import { checkObservations, recordObservations, TELEMETRY_LIMITS } from '../telemetry/record.ts';
import { parseResolution } from '../telemetry/resolution.ts';
import {
  type Aggregate,
  ALL_AGGREGATES,
  type Bucket,
  type BucketPlan,
  bucketSums,
  buckets,
  type Fill,
  planBuckets,
  SeriesQueryError,
} from '../telemetry/series.ts';
import { DatasetWriteError } from '../write/types.ts';
import { asCaller, tenant } from './common.ts';

const MIN_US = -62_135_596_800_000_000n;
const MAX_US = 253_402_300_799_999_999n;

const badInput = (message: string) => new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } });

/** An IANA time zone name as PostgreSQL knows them; checked by the database itself. */
const TIMEZONE = /^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/;

interface SeriesArgs {
  profile: string;
  property: string;
  from: Date;
  to: Date;
  resolution: string;
  timezone: string;
  dataset: string | null;
  ends: boolean;
}

/**
 * What one request may ask of the readings, whatever its aliases and page sizes: buckets and raw
 * readings in all (Cognite answers 10,000 aggregates and 100,000 raw datapoints a request),
 * downsampled series, and one `recordObservations`.
 */
export const TELEMETRY_ALLOWANCE = {
  buckets: 100_000,
  readings: 100_000,
  downsamples: 10,
  writes: 1,
} as const;

const spent = new WeakMap<
  object,
  { buckets: number; readings: number; downsamples: number; writes: number }
>();

/** Why `n` more of `what` is over this request's allowance, or null (then it is spent). */
function overspent(
  ctx: AssetsContext,
  what: keyof typeof TELEMETRY_ALLOWANCE,
  n: number,
  advice: string,
): string | null {
  let s = spent.get(ctx);
  if (!s) {
    s = { buckets: 0, readings: 0, downsamples: 0, writes: 0 };
    spent.set(ctx, s);
  }
  if (s[what] + n > TELEMETRY_ALLOWANCE[what])
    return `At most ${TELEMETRY_ALLOWANCE[what].toLocaleString('en')} ${what} a request: ${advice}.`;
  s[what] += n;
  return null;
}

function spend(ctx: AssetsContext, what: keyof typeof TELEMETRY_ALLOWANCE, n: number, advice: string): void {
  const why = overspent(ctx, what, n, advice);
  if (why) throw badInput(why);
}

/** One request's series questions: assets asking the same question share one statement. */
const seriesLoaders = new WeakMap<
  AssetsContext,
  Map<string, DataLoader<string, Map<number, never> | undefined>>
>();
const plans = new WeakMap<AssetsContext, Map<string, Promise<BucketPlan>>>();

function planOf(ctx: AssetsContext, key: string, args: SeriesArgs): Promise<BucketPlan> {
  let m = plans.get(ctx);
  if (!m) {
    m = new Map();
    plans.set(ctx, m);
  }
  let p = m.get(key);
  if (!p) {
    const resolution = parseResolution(args.resolution);
    if (!resolution)
      return Promise.reject(
        badInput(
          `resolution ${JSON.stringify(args.resolution)}: 1m, 15m, 1h, 1d or an ISO 8601 duration (PT5M, P1W)`,
        ),
      );
    p = planBuckets(kyselyExec(ctx.db), args.from, args.to, resolution, args.timezone).catch((e) => {
      if (e instanceof SeriesQueryError) throw badInput(e.message);
      // 22023: PostgreSQL knows no such time zone.
      if ((e as { code?: string }).code === '22023') throw badInput(`unknown time zone ${args.timezone}`);
      throw e;
    });
    m.set(key, p);
  }
  return p;
}

function seriesLoader(ctx: AssetsContext, key: string, args: SeriesArgs) {
  let m = seriesLoaders.get(ctx);
  if (!m) {
    m = new Map();
    seriesLoaders.set(ctx, m);
  }
  let l = m.get(key);
  if (!l) {
    const { userGroup } = tenant(ctx);
    l = new DataLoader(async (ids: readonly string[]) => {
      const plan = await planOf(ctx, key, args);
      const sums = await bucketSums(
        kyselyExec(ctx.db),
        userGroup,
        args.profile,
        ids,
        args.property,
        args.dataset,
        args.from,
        args.to,
        plan,
        args.ends,
      );
      return ids.map((id) => sums.get(id) as Map<number, never> | undefined);
    });
    m.set(key, l);
  }
  return l;
}

/** The unit of the profile's property named `property`, if it has one. */
function unitIn(profile: EffectiveProfile | null, property: string): string | null {
  return profile?.properties.find((d) => d.name === property)?.unit ?? null;
}

/** `Asset.latestObservations`, `observationSeries` and `observations`. */
export const telemetryAssetResolvers: Pick<
  AssetResolvers<AssetsContext>,
  'latestObservations' | 'observationSeries' | 'observations'
> = {
  latestObservations: async (a, { only }, ctx) => {
    const { userGroup } = tenant(ctx);
    const rows = await latestLoader(ctx, userGroup).load(`${a.profile}\u0000${a.id}`);
    const profile = await ctx.loaders.profile.load(a.profile);
    const keep = only ? new Set(only) : null;
    return rows
      .filter((r) => !keep || keep.has(r.property))
      .map((r) => ({
        property: r.property,
        value: r.value,
        at: r.at,
        unit: unitIn(profile, r.property),
      }));
  },
  observationSeries: async (a, args, ctx) => {
    const from = new Date(args.from as string);
    const to = new Date(args.to as string);
    if (Number.isNaN(from.getTime()) || Number.isNaN(to.getTime()))
      throw badInput('from and to are date-times');
    const timezone = args.timezone ?? 'UTC';
    if (!TIMEZONE.test(timezone)) throw badInput(`unknown time zone ${timezone}`);
    const aggregates = (args.aggregates?.length ? args.aggregates : ALL_AGGREGATES) as Aggregate[];
    const fill = (args.fill ?? 'NONE') as Fill;
    const q: SeriesArgs = {
      profile: a.profile,
      property: args.property,
      from,
      to,
      resolution: args.resolution,
      timezone,
      dataset: args.dataset ?? null,
      ends: aggregates.includes('FIRST') || aggregates.includes('LAST'),
    };
    const key = JSON.stringify(q);
    const plan = await planOf(ctx, key, q);
    spend(ctx, 'buckets', plan.starts.length, 'fewer assets a page, a shorter range or a coarser resolution');
    const [sums, unit] = await Promise.all([
      seriesLoader(ctx, key, q).load(a.id),
      ctx.loaders.profile.load(a.profile).then((p) => unitIn(p, args.property)),
    ]);
    const out = buckets(plan, sums, aggregates, fill);
    return {
      property: args.property,
      unit,
      resolution: args.resolution,
      timezone,
      buckets: out,
      // Rendered by its own resolver, only when asked for.
      csv: '',
    };
  },
  observations: async (a, args, ctx) => {
    const { userGroup } = tenant(ctx);
    const from = args.from ? new Date(args.from as string) : null;
    const to = args.to ? new Date(args.to as string) : null;
    const q = {
      group: userGroup,
      profile: a.profile,
      assetId: a.id,
      property: args.property ?? null,
      dataset: args.dataset ?? null,
      from,
      to,
    };
    const exec = kyselyExec(ctx.db);
    if (args.downsample) {
      const points = args.downsample.points;
      if (!Number.isInteger(points) || points < 3 || points > MAX_DOWNSAMPLE_POINTS)
        throw badInput(`downsample.points is 3 to ${MAX_DOWNSAMPLE_POINTS}`);
      if (!q.property) throw badInput('downsample needs a property');
      if (args.after) throw badInput('a downsampled answer is one page: no after');
      spend(ctx, 'downsamples', 1, 'fewer downsampled series');
      spend(ctx, 'readings', points, 'fewer points or fewer assets a page');
      const readings = await downsampled(exec, { ...q, property: q.property }, points);
      return connection(readings, false);
    }
    const first = args.first ?? DEFAULT_RAW_PAGE;
    if (first < 0 || first > MAX_RAW_PAGE) throw badInput(`first is 0 to ${MAX_RAW_PAGE}`);
    spend(ctx, 'readings', first, 'a smaller first, or fewer assets a page');
    let after: string | null = null;
    if (args.after) {
      after = Buffer.from(args.after, 'base64url').toString();
      // Microseconds since the epoch, within years 1 to 9999.
      if (!/^-?\d{1,19}$/.test(after) || BigInt(after) < MIN_US || BigInt(after) > MAX_US)
        throw badInput('after is not a cursor of this connection');
    }
    const page = await readingsPage(exec, q, first, after);
    return connection(page.readings, page.hasNextPage);
  },
};

/** A series' buckets as CSV, rendered only when asked for. */
async function seriesCsv(buckets: readonly Bucket[]): Promise<string> {
  const { stringify } = await import('csv-stringify/sync');
  return stringify(
    buckets.map((b) => [b.start, b.end, b.count, b.avg, b.min, b.max, b.sum, b.stddev, b.first, b.last]),
    {
      header: true,
      columns: ['start', 'end', 'count', 'avg', 'min', 'max', 'sum', 'stddev', 'first', 'last'],
      record_delimiter: 'windows',
    },
  );
}

function connection(
  readings: { at: Date; us: string; values: Record<string, unknown> }[],
  hasNextPage: boolean,
) {
  const edges = readings.map((r) => ({
    cursor: Buffer.from(r.us).toString('base64url'),
    node: { at: r.at, values: r.values },
  }));
  return {
    edges,
    pageInfo: {
      hasNextPage,
      hasPreviousPage: false,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}

interface Latest {
  property: string;
  value: unknown;
  at: Date;
}

const latestLoaders = new WeakMap<AssetsContext, DataLoader<string, Latest[]>>();

/** Each asset's newest reading per key (across its datasets), one statement for a page of assets. */
function latestLoader(ctx: AssetsContext, group: string) {
  let l = latestLoaders.get(ctx);
  if (!l) {
    l = new DataLoader(async (keys: readonly string[]) => {
      const pairs = keys.map((k) => k.split('\u0000') as [string, string]);
      const rows = await kyselyExec(ctx.db)<Latest & { profile: string; asset_id: string }>(
        `select distinct on (s.profile, s.asset_id, s.property) s.profile, s.asset_id, s.property,
           r.at, coalesce(to_jsonb(r.num), r.val) as value
         from observation_series s
         join unnest($2::text[], $3::text[]) as k(p, a) on s.profile = k.p and s.asset_id = k.a
         cross join lateral (
           select at, num, val from observation_readings r where r.series = s.id order by at desc limit 1) r
         where s.user_group = $1
         order by s.profile, s.asset_id, s.property, r.at desc`,
        [group, pairs.map((p) => p[0]), pairs.map((p) => p[1])],
      );
      const by = new Map<string, Latest[]>();
      for (const r of rows) {
        const k = `${r.profile}\u0000${r.asset_id}`;
        let list = by.get(k);
        if (!list) {
          list = [];
          by.set(k, list);
        }
        list.push({ property: r.property, value: r.value, at: r.at });
      }
      return keys.map((k) => by.get(k) ?? []);
    });
    latestLoaders.set(ctx, l);
  }
  return l;
}

/** `ObservationSeries.csv`: the buckets as CSV, when asked for. */
export const observationSeriesResolvers: ObservationSeriesResolvers<AssetsContext> = {
  csv: (s) => seriesCsv(s.buckets as Bucket[]),
};

/** `recordObservations`: up to 10,000 observations of one state dataset, all or none. */
export const telemetryMutations: Pick<MutationResolvers<AssetsContext>, 'recordObservations'> = {
  recordObservations: async (_root, { input, correlationId }, ctx) => {
    const outcome = await asCaller(ctx, 'Sign in to record observations.', async (caller) => {
      const twice = overspent(ctx, 'writes', 1, 'send the observations in one call');
      if (twice) return fail('INVALID_INPUT', twice);
      if (input.observations.length > TELEMETRY_LIMITS.observationsPerWrite)
        return fail(
          'INVALID_INPUT',
          `At most ${TELEMETRY_LIMITS.observationsPerWrite} observations per call.`,
        );
      const profile = await ctx.loaders.profile.load(input.profile);
      if (!profile) return fail('NOT_FOUND', `There is no profile ${input.profile}.`);
      const retention = await ctx.telemetry.daysOf(caller.userGroup);
      const { observations, refused } = checkObservations(
        profile,
        input.dataset,
        input.observations,
        ctx.clock.now(),
        retention,
      );
      if (refused.length > 0) {
        const details = refused.map((r) => `observations[${r.index}]: ${r.message}`);
        return fail('INVALID_INPUT', details.slice(0, 20).join('; '), details);
      }
      try {
        const stored = await recordObservations(
          ctx.database,
          caller.userGroup,
          profile,
          input.dataset,
          observations,
        );
        ctx.metrics.readingsStored('graphql', stored.inserted + stored.replaced);
      } catch (e) {
        if (e instanceof DatasetWriteError) return fail('INVALID_INPUT', e.message);
        throw e;
      }
      return ok(observations.length);
    });
    return mutationResult(correlationId ?? ctx.requestId, outcome, (recorded) => ({ recorded }), {
      recorded: 0,
    });
  },
};

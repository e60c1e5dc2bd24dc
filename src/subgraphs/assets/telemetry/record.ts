import { numberArray, textArray } from '../../../storage/array-literal.ts';
import type { Database } from '../../../storage/database.ts';
import { stateDatasetsOf } from '../datasets/plan.ts';
import { clientExec, type Exec } from '../exec.ts';
import type { EffectiveProfile } from '../profiles/definition.ts';
import { bumpStats } from '../write/staging.ts';
import { DatasetWriteError } from '../write/types.ts';
import { ensureMonths, forgetMonths, monthsOf } from './partitions.ts';
import { rollupsOf } from './rollups.ts';
import { seriesOf } from './series-ids.ts';
import { DuplicateReadingError, type KnownReadings, ms, type StoredCounts, storeReadings } from './store.ts';

/** The bounds of one write of observations (docs/telemetry.md "Limits"). */
export const TELEMETRY_LIMITS = {
  /** Observations in one `recordObservations` or one MQTT message. */
  observationsPerWrite: 10_000,
  /** Keys in one observation's `values`. */
  valuesPerObservation: 100,
  keyLength: 200,
  idLength: 512,
  /** A string value's length. */
  stringLength: 1_000,
  /** Keys one asset may have in one state dataset (each a series of its own). */
  keysPerAsset: 1_000,
  /** How far ahead of this server's clock an observation may be. */
  futureMs: 24 * 60 * 60 * 1000,
  /** The largest size of a number: its square, summed a million times, stays finite in float8. */
  largestNumber: 1e150,
} as const;

/** One observation as a client sends it: an asset's values of one time. */
export interface ObservationInput {
  id: unknown;
  at: unknown;
  values: unknown;
}

/** One observation, checked. */
export interface Observation {
  id: string;
  at: Date;
  values: Record<string, number | string | boolean>;
}

/** Why an observation is refused, as dead letters and counters name it. */
export type RefusalReason =
  | 'unknown-asset'
  | 'wrong-type'
  | 'too-large'
  | 'bad-json'
  | 'bad-input'
  | 'too-old';

export interface Refusal {
  index: number;
  reason: RefusalReason;
  message: string;
}

const TYPE_CHECK: Record<string, (v: unknown) => boolean> = {
  NUMBER: (v) => typeof v === 'number',
  INTEGER: (v) => Number.isInteger(v),
  BOOLEAN: (v) => typeof v === 'boolean',
  STRING: (v) => typeof v === 'string',
  DATE: (v) => typeof v === 'string',
  DATE_TIME: (v) => typeof v === 'string',
  ENUM: (v) => typeof v === 'string',
  JSON: () => true,
};

/**
 * Checks observations for `dataset` of `profile`: each refused one with its reason, the others
 * as stored. A key the profile defines as a property must hold a value of its type; any other
 * key holds a number, a string or a boolean.
 */
export function checkObservations(
  profile: EffectiveProfile,
  dataset: string,
  inputs: readonly ObservationInput[],
  now: Date,
  retentionDays: number,
): { observations: (Observation & { index: number })[]; refused: Refusal[] } {
  const refused: Refusal[] = [];
  const observations: (Observation & { index: number })[] = [];
  if (!stateDatasetsOf(profile).some((d) => d.dataset === dataset)) {
    const message = `profile ${profile.profile} has no state dataset ${dataset}`;
    return { observations, refused: inputs.map((_, index) => ({ index, reason: 'bad-input', message })) };
  }
  const defined = new Map(profile.properties.map((p) => [p.name, p]));
  const oldest = now.getTime() - retentionDays * 86_400_000;
  const newest = now.getTime() + TELEMETRY_LIMITS.futureMs;
  const seen = new Set<string>();
  /** Whether `o` is taken: else its refusal is noted. */
  const checkOne = (o: ObservationInput, index: number): boolean => {
    const refuse = (reason: RefusalReason, message: string): false => {
      refused.push({ index, reason, message });
      return false;
    };
    if (typeof o !== 'object' || o === null) return refuse('bad-input', 'an observation is an object');
    if (typeof o.id !== 'string' || o.id.length === 0 || o.id.length > TELEMETRY_LIMITS.idLength)
      return refuse('bad-input', `id must be a string of 1 to ${TELEMETRY_LIMITS.idLength} characters`);
    if (!storable(o.id)) return refuse('bad-input', UNSTORABLE);
    const at = typeof o.at === 'string' || o.at instanceof Date ? new Date(o.at) : null;
    if (!at || Number.isNaN(at.getTime()) || (typeof o.at === 'string' && !/[zZ]|[+-]\d\d:?\d\d$/.test(o.at)))
      return refuse('bad-input', 'at must be an ISO 8601 date-time with an offset');
    if (at.getTime() > newest) return refuse('bad-input', `at ${at.toISOString()} is more than a day ahead`);
    if (at.getTime() < oldest)
      return refuse(
        'too-old',
        `at ${at.toISOString()} is older than the group's retention (${retentionDays} days)`,
      );
    const values = o.values;
    if (typeof values !== 'object' || values === null || Array.isArray(values))
      return refuse('bad-input', 'values must be an object');
    const entries = Object.entries(values);
    if (entries.length === 0) return refuse('bad-input', 'values holds no key');
    if (entries.length > TELEMETRY_LIMITS.valuesPerObservation)
      return refuse('too-large', `at most ${TELEMETRY_LIMITS.valuesPerObservation} keys in one observation`);
    for (const [key, v] of entries) {
      if (key.length === 0 || key.length > TELEMETRY_LIMITS.keyLength)
        return refuse('bad-input', `a key has 1 to ${TELEMETRY_LIMITS.keyLength} characters`);
      if (!storable(key) || !storable(v)) return refuse('bad-input', UNSTORABLE);
      const def = defined.get(key);
      const ok = def
        ? TYPE_CHECK[def.type]?.(v) && (def.type !== 'ENUM' || (def.enumValues ?? []).includes(v as string))
        : typeof v === 'number' || typeof v === 'string' || typeof v === 'boolean';
      if (!ok || (typeof v === 'number' && !Number.isFinite(v)))
        return refuse(
          'wrong-type',
          def ? `${key} is a ${def.type} property` : `${key} must be a number, a string or a boolean`,
        );
      // A square of a larger one overflows float8: the rollups' sum of squares would be infinite.
      if (typeof v === 'number' && Math.abs(v) > TELEMETRY_LIMITS.largestNumber)
        return refuse('too-large', `${key}: a number is at most ${TELEMETRY_LIMITS.largestNumber} in size`);
      if (typeof v === 'string' && v.length > TELEMETRY_LIMITS.stringLength)
        return refuse(
          'too-large',
          `${key}: a string value holds at most ${TELEMETRY_LIMITS.stringLength} characters`,
        );
    }
    const key = `${o.id}\u0000${at.getTime()}`;
    if (seen.has(key))
      return refuse('bad-input', `asset ${o.id} has two observations at ${at.toISOString()}`);
    seen.add(key);
    observations.push({ index, id: o.id, at, values: values as Observation['values'] });
    return true;
  };
  for (const [index, o] of inputs.entries()) checkOne(o, index);
  return { observations, refused };
}

const UNSTORABLE = 'a string holds the NUL character or is not well-formed Unicode (a lone surrogate)';

/**
 * Whether every string in `value` (keys of objects too) can be stored: PostgreSQL's text and JSON
 * take neither U+0000 nor a lone surrogate. A device's message is not checked by the gateway's
 * input limits, as a GraphQL request is.
 */
function storable(value: unknown): boolean {
  const stack = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (v.includes('\u0000') || !v.isWellFormed()) return false;
    } else if (Array.isArray(v)) stack.push(...v);
    else if (v !== null && typeof v === 'object')
      for (const [k, item] of Object.entries(v)) {
        if (k.includes('\u0000') || !k.isWellFormed()) return false;
        stack.push(item);
      }
  }
  return true;
}

/** The ids among `ids` that name no asset of the profile. */
export async function unknownAssets(
  exec: Exec,
  group: string,
  profile: string,
  ids: readonly string[],
): Promise<string[]> {
  const rows = await exec<{ id: string }>(
    `select x as id from unnest($3::text[]) x
     except select id from assets where user_group = $1 and profile = $2 and id = any($3::text[])`,
    [group, profile, textArray([...new Set(ids)])],
  );
  return rows.map((r) => r.id);
}

/**
 * Stores checked observations of `dataset`, all or nothing, in one transaction: an asset the
 * profile does not hold refuses the write (a DatasetWriteError naming it).
 */
export async function recordObservations(
  database: Pick<Database, 'pool' | 'engine'>,
  group: string,
  profile: EffectiveProfile,
  dataset: string,
  observations: readonly Observation[],
): Promise<StoredCounts> {
  if (observations.length === 0)
    return { inserted: 0, observations: 0, replaced: 0, latest: null, columns: [] };
  const write = () =>
    inTransactionRetried(database, async (exec) => {
      const unknown = await unknownAssets(
        exec,
        group,
        profile.profile,
        observations.map((o) => o.id),
      );
      if (unknown.length > 0)
        throw new DatasetWriteError(`no ${profile.profile} assets ${unknown.slice(0, 10).join(', ')}`);
      const pairs: [string, string][] = [];
      for (const o of observations) for (const key of Object.keys(o.values)) pairs.push([o.id, key]);
      const series = await seriesOf(
        exec,
        database.pool,
        group,
        profile.profile,
        dataset,
        pairs,
        TELEMETRY_LIMITS.keysPerAsset,
      );
      const s: string[] = [];
      const assetIds: string[] = [];
      const keys: string[] = [];
      const ats: number[] = [];
      const nums: (number | null)[] = [];
      const vals: (string | null)[] = [];
      // Each (asset, key)'s latest reading, by its index among the readings.
      const latest = new Map<string, Map<string, number>>();
      const columns = new Set<string>();
      let held = 0;
      let newest: number | null = null;
      for (const o of observations) {
        const ofAsset = series.get(o.id)!;
        let latestOf = latest.get(o.id);
        if (!latestOf) {
          latestOf = new Map();
          latest.set(o.id, latestOf);
        }
        const at = o.at.getTime();
        let any = false;
        for (const [key, v] of Object.entries(o.values)) {
          const i = s.length;
          s.push(ofAsset.get(key)!);
          assetIds.push(o.id);
          keys.push(key);
          ats.push(at);
          nums.push(typeof v === 'number' ? v : null);
          vals.push(typeof v === 'number' ? null : JSON.stringify(v));
          const before = latestOf.get(key);
          // The statement is told there is none: the checks refuse them before, and this holds it.
          if (before !== undefined && ats[before] === at)
            throw new DatasetWriteError(new DuplicateReadingError().message);
          if (before === undefined || ats[before]! < at) latestOf.set(key, i);
          columns.add(key);
          any = true;
        }
        if (any) {
          held++;
          if (newest === null || at > newest) newest = at;
        }
      }
      const last = [...latest.values()].flatMap((m) => [...m.values()]);
      const known: KnownReadings = {
        rollups: rollupsOf(s, ats, nums),
        latest: {
          assetIds: last.map((i) => assetIds[i]!),
          properties: last.map((i) => keys[i]!),
          values: last.map((i) => vals[i] ?? JSON.stringify(nums[i])),
          ats: last.map((i) => ats[i]!),
        },
        observations: held,
        newest,
        columns: [...columns].sort(),
      };
      let counts: StoredCounts;
      try {
        counts = await storeReadings(
          exec,
          `select series, asset_id, property, ${ms('at')}, num, val
         from unnest($3::bigint[], $4::text[], $5::text[], $6::bigint[], $7::float8[], $8::jsonb[])
           as r(series, asset_id, property, at, num, val)`,
          [
            group,
            profile.profile,
            numberArray(s),
            textArray(assetIds),
            textArray(keys),
            numberArray(ats),
            numberArray(nums),
            textArray(vals),
          ],
          { force: profile.document.forceAssetStateUpdates === true, known },
        );
      } catch (e) {
        if (e instanceof DuplicateReadingError) throw new DatasetWriteError(e.message);
        throw e;
      }
      await bumpStats(exec, group, profile.profile, dataset, {
        observations: counts.observations,
        columns: counts.columns,
        latest: counts.latest,
      });
      return counts;
    });
  const months = monthsOf(observations.map((o) => o.at));
  await ensureMonths(database, months);
  try {
    return await write();
  } catch (e) {
    // No partition for a reading: a month this process saw made was dropped since.
    if ((e as { code?: string }).code !== '23514') throw e;
    forgetMonths(database);
    await ensureMonths(database, months);
    return write();
  }
}

/**
 * `work` in a transaction of its own, tried again (up to three times) when PostgreSQL chose it as
 * a deadlock's victim: two writers of readings of the same series in another order.
 */
async function inTransactionRetried<T>(
  database: Pick<Database, 'pool'>,
  work: (exec: Exec) => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await database.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('begin');
      // A batch's sorts stay in memory (10,000 observations of several keys).
      await client.query("set local work_mem = '32MB'");
      const result = await work(clientExec(client));
      await client.query('commit');
      return result;
    } catch (e) {
      try {
        await client.query('rollback');
      } catch (r) {
        broken = r as Error;
      }
      if ((e as { code?: string }).code !== '40P01' || attempt >= 3) throw e;
    } finally {
      client.release(broken);
    }
  }
}

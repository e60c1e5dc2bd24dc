import { numberArray } from '../../../storage/array-literal.ts';

/**
 * A batch's own hour and day buckets, computed by the writer from the readings it sends
 * (store.ts merges them into the stored ones).
 */

/** A rollup's columns as arrays, in the rollup tables' column order, for `unnest`. */
export interface RollupArrays {
  series: string[];
  /** Milliseconds since the epoch, as every time here. */
  bucket: number[];
  n: number[];
  sum: number[];
  sumsq: number[];
  min: number[];
  minAt: number[];
  max: number[];
  maxAt: number[];
  first: number[];
  firstAt: number[];
  last: number[];
  lastAt: number[];
}

/** Times travel as milliseconds since the epoch: pg renders a Date as text at a cost per value. */
export const ROLLUP_TYPES = [
  'bigint[]',
  'bigint[]',
  'bigint[]',
  'float8[]',
  'float8[]',
  'float8[]',
  'bigint[]',
  'float8[]',
  'bigint[]',
  'float8[]',
  'bigint[]',
  'float8[]',
  'bigint[]',
] as const;

export const rollupParams = (r: RollupArrays) =>
  [
    r.series,
    r.bucket,
    r.n,
    r.sum,
    r.sumsq,
    r.min,
    r.minAt,
    r.max,
    r.maxAt,
    r.first,
    r.firstAt,
    r.last,
    r.lastAt,
  ].map(numberArray);

/**
 * The hour and day buckets (UTC) of numeric readings, as the statement would group them: what a
 * writer that holds its readings computes in a few milliseconds where the database would sort.
 */
export function rollupsOf(
  series: readonly string[],
  ats: readonly number[],
  nums: readonly (number | null)[],
): { hour: RollupArrays; day: RollupArrays } {
  const of = (width: number): RollupArrays => {
    // Each series' buckets: the index of each in the arrays.
    const groups = new Map<string, Map<number, number>>();
    const r: RollupArrays = {
      series: [],
      bucket: [],
      n: [],
      sum: [],
      sumsq: [],
      min: [],
      minAt: [],
      max: [],
      maxAt: [],
      first: [],
      firstAt: [],
      last: [],
      lastAt: [],
    };
    for (let i = 0; i < series.length; i++) {
      const v = nums[i];
      if (v === null || v === undefined) continue;
      const t = ats[i]!;
      const b = Math.floor(t / width) * width;
      let ofSeries = groups.get(series[i]!);
      if (!ofSeries) {
        ofSeries = new Map();
        groups.set(series[i]!, ofSeries);
      }
      const g = ofSeries.get(b);
      if (g === undefined) {
        ofSeries.set(b, r.series.length);
        r.series.push(series[i]!);
        r.bucket.push(b);
        r.n.push(1);
        r.sum.push(v);
        r.sumsq.push(v * v);
        r.min.push(v);
        r.minAt.push(t);
        r.max.push(v);
        r.maxAt.push(t);
        r.first.push(v);
        r.firstAt.push(t);
        r.last.push(v);
        r.lastAt.push(t);
        continue;
      }
      r.n[g]!++;
      r.sum[g]! += v;
      r.sumsq[g]! += v * v;
      // Ties keep the earlier reading, as the statement's `order by num, at` does.
      if (v < r.min[g]! || (v === r.min[g]! && t < r.minAt[g]!)) {
        r.min[g] = v;
        r.minAt[g] = t;
      }
      if (v > r.max[g]! || (v === r.max[g]! && t < r.maxAt[g]!)) {
        r.max[g] = v;
        r.maxAt[g] = t;
      }
      if (t < r.firstAt[g]!) {
        r.first[g] = v;
        r.firstAt[g] = t;
      }
      if (t > r.lastAt[g]!) {
        r.last[g] = v;
        r.lastAt[g] = t;
      }
    }
    return r;
  };
  return { hour: of(3_600_000), day: of(86_400_000) };
}

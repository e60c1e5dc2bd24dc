// The arithmetic of the asset page's chart, apart from drawing it: the periods and resolutions
// offered, linear scales, "nice" value ticks, time ticks, and the line's path with its gaps.

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The periods the chart offers, ending now. */
export const PERIODS = [
  { value: '24h', label: 'Last 24 hours', ms: DAY },
  { value: '7d', label: 'Last 7 days', ms: 7 * DAY },
  { value: '30d', label: 'Last 30 days', ms: 30 * DAY },
  { value: '90d', label: 'Last 90 days', ms: 90 * DAY },
] as const;

/** The resolutions the chart offers, as `observationSeries(resolution:)` takes them. */
export const RESOLUTIONS = [
  { value: '5m', label: '5 minutes', ms: 5 * MINUTE },
  { value: '15m', label: '15 minutes', ms: 15 * MINUTE },
  { value: '1h', label: '1 hour', ms: HOUR },
  { value: '6h', label: '6 hours', ms: 6 * HOUR },
  { value: '1d', label: '1 day', ms: DAY },
  { value: '1w', label: '1 week', ms: 7 * DAY },
] as const;

export type Resolution = (typeof RESOLUTIONS)[number];

/** At most this many buckets a chart: more than its pixels could show (the API allows 10,000). */
export const MAX_BUCKETS = 1_000;

/** The resolutions that give a period at least 2 and at most {@link MAX_BUCKETS} buckets. */
export function resolutionsFor(periodMs: number): Resolution[] {
  return RESOLUTIONS.filter((r) => periodMs / r.ms >= 2 && periodMs / r.ms <= MAX_BUCKETS);
}

/** The resolution a period starts with: the finest giving at most 200 buckets. */
export function defaultResolution(periodMs: number): Resolution {
  const fits = resolutionsFor(periodMs);
  return fits.find((r) => periodMs / r.ms <= 200) ?? fits[fits.length - 1] ?? RESOLUTIONS[2];
}

/** A linear map from `domain` to `range`; a domain of one value maps to the middle of the range. */
export function linear(domain: [number, number], range: [number, number]): (x: number) => number {
  const [d0, d1] = domain;
  const [r0, r1] = range;
  if (d1 === d0) return () => (r0 + r1) / 2;
  return (x) => r0 + ((x - d0) / (d1 - d0)) * (r1 - r0);
}

/** A step of 1, 2, 2.5 or 5 times a power of ten near `span / count`. */
export function niceStep(span: number, count: number): number {
  const raw = span / Math.max(1, count);
  const power = 10 ** Math.floor(Math.log10(raw));
  const fraction = raw / power;
  const nice = fraction <= 1 ? 1 : fraction <= 2 ? 2 : fraction <= 2.5 ? 2.5 : fraction <= 5 ? 5 : 10;
  return nice * power;
}

/**
 * The value axis for values between `min` and `max`: a domain widened to whole steps, and about
 * `count` ticks in it. One value (or none) gets a domain around it.
 */
export function valueAxis(
  min: number,
  max: number,
  count = 5,
): { domain: [number, number]; ticks: number[] } {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return valueAxis(0, 1, count);
  if (min === max) {
    const pad = min === 0 ? 1 : Math.abs(min) * 0.1;
    return valueAxis(min - pad, max + pad, count);
  }
  const step = niceStep(max - min, count);
  const lo = Math.floor(min / step) * step;
  const hi = Math.ceil(max / step) * step;
  const ticks: number[] = [];
  // Whole multiples, rounded so that 0.1 + 0.2 shows as 0.3.
  const digits = Math.max(0, -Math.floor(Math.log10(step)) + 2);
  for (let i = 0; lo + i * step <= hi + step / 1e6; i++) ticks.push(Number((lo + i * step).toFixed(digits)));
  return { domain: [lo, hi], ticks };
}

const TIME_STEPS = [
  MINUTE,
  5 * MINUTE,
  15 * MINUTE,
  30 * MINUTE,
  HOUR,
  3 * HOUR,
  6 * HOUR,
  12 * HOUR,
  DAY,
  2 * DAY,
  7 * DAY,
  14 * DAY,
  30 * DAY,
];

/**
 * Ticks for a time axis from `from` to `to` (ms since the epoch): at most `count`, on whole steps
 * of the time zone that is `offsetMs` ahead of UTC (so that a day tick falls on its midnight).
 */
export function timeTicks(
  from: number,
  to: number,
  count = 6,
  offsetMs = 0,
): { step: number; ticks: number[] } {
  const span = Math.max(0, to - from);
  const step = TIME_STEPS.find((s) => span / s <= count) ?? Math.ceil(span / count / DAY) * DAY;
  const ticks: number[] = [];
  if (span === 0 || step === 0) return { step: step || DAY, ticks: [from] };
  const first = Math.ceil((from + offsetMs) / step) * step - offsetMs;
  for (let t = first; t <= to; t += step) ticks.push(t);
  return { step, ticks };
}

/** A point of the line: `y` null where a bucket had no reading (the line breaks there). */
export interface PlotPoint {
  x: number;
  y: number | null;
}

/** An SVG path of the points, in order, a new segment after every gap; '' when none has a value. */
export function linePath(points: readonly PlotPoint[]): string {
  const parts: string[] = [];
  let pen = false;
  for (const p of points) {
    if (p.y === null || !Number.isFinite(p.y)) {
      pen = false;
      continue;
    }
    parts.push(`${pen ? 'L' : 'M'}${round(p.x)} ${round(p.y)}`);
    pen = true;
  }
  return parts.join(' ');
}

/** The least and greatest of the values there are; null when there is none. */
export function extent(values: readonly (number | null)[]): [number, number] | null {
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const v of values) {
    if (v === null || !Number.isFinite(v)) continue;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return lo <= hi ? [lo, hi] : null;
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

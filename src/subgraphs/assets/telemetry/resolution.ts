/**
 * A bucket width of `observationSeries`: fixed (a number of seconds, the same length everywhere)
 * or calendar (days, weeks or months of the time zone's clock: a day lasts 23 or 25 hours across
 * a daylight-saving change).
 */
export type Resolution =
  | { kind: 'fixed'; seconds: number }
  | { kind: 'calendar'; unit: 'day' | 'week' | 'month'; n: number };

/** The finest fixed width: a second. The coarsest of anything: a hundred years. */
const MAX_SECONDS = 100 * 366 * 86_400;

const SHORT = /^(\d{1,6})(s|m|h|d|w)$/;
const ISO =
  /^P(?:(\d{1,4})Y)?(?:(\d{1,4})M)?(?:(\d{1,4})W)?(?:(\d{1,5})D)?(?:T(?:(\d{1,6})H)?(?:(\d{1,7})M)?(?:(\d{1,9})S)?)?$/;

/**
 * `1m`, `15m`, `1h`, `1d` (and any count of s, m, h, d, w), or an ISO 8601 duration: clock parts
 * (`PT5M`, `PT1H30M`) make a fixed width; days and weeks (`P1D`, `P2W`) or months and years
 * (`P1M`, `P3M`, `P1Y`) a calendar one. Calendar and clock parts do not mix, nor days with
 * months. Null for anything else.
 */
export function parseResolution(text: string): Resolution | null {
  const short = SHORT.exec(text);
  if (short) {
    const n = Number(short[1]);
    if (n < 1) return null;
    const unit = short[2];
    if (unit === 'd') return { kind: 'calendar', unit: 'day', n };
    if (unit === 'w') return { kind: 'calendar', unit: 'week', n };
    const seconds = n * (unit === 's' ? 1 : unit === 'm' ? 60 : 3600);
    return seconds <= MAX_SECONDS ? { kind: 'fixed', seconds } : null;
  }
  const iso = ISO.exec(text);
  if (!iso || text === 'P' || text.endsWith('T')) return null;
  const [y, mo, w, d, h, mi, s] = iso.slice(1).map((v) => (v === undefined ? 0 : Number(v))) as number[];
  const calendar = y! + mo! + w! + d!;
  const clock = h! + mi! + s!;
  if (calendar > 0 && clock > 0) return null;
  if (clock > 0) {
    const seconds = h! * 3600 + mi! * 60 + s!;
    return seconds <= MAX_SECONDS ? { kind: 'fixed', seconds } : null;
  }
  if (y! + mo! > 0 && w! + d! > 0) return null;
  if (y! + mo! > 0) {
    const months = y! * 12 + mo!;
    return months <= 1200 ? { kind: 'calendar', unit: 'month', n: months } : null;
  }
  if (w! > 0 && d! === 0) return w! <= 5200 ? { kind: 'calendar', unit: 'week', n: w! } : null;
  const days = w! * 7 + d!;
  return days >= 1 && days <= 36_600 ? { kind: 'calendar', unit: 'day', n: days } : null;
}

/** The shortest a bucket of `r` can last, in milliseconds (a day of 23 hours, a month of 28 days). */
export function shortestMs(r: Resolution): number {
  if (r.kind === 'fixed') return r.seconds * 1000;
  const hour = 3_600_000;
  if (r.unit === 'day') return r.n * 24 * hour - hour;
  if (r.unit === 'week') return r.n * 7 * 24 * hour - hour;
  return r.n * 28 * 24 * hour - hour;
}

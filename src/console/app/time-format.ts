// Times as the console shows them: in the reader's locale and time zone, and how long ago.

/** A date-time as "29 Nov 2026, 07:43" (the reader's locale); an unreadable one as it came. */
export function formatTime(value: string | number, locale?: string, timeZone?: string): string {
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  return new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(date);
}

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['week', 7 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

/** How long before `now` a time was: "3 hours ago", "yesterday", "now"; '' when unreadable. */
export function timeAgo(value: string | number, now: number, locale?: string): string {
  const at = new Date(value).getTime();
  if (Number.isNaN(at)) return '';
  const ms = at - now;
  const format = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
  for (const [unit, size] of UNITS) {
    if (Math.abs(ms) >= size) return format.format(Math.round(ms / size), unit);
  }
  return format.format(0, 'second');
}

/** A tick of a time axis: the date for steps of a day or more, else the time of day. */
export function tickLabel(at: number, stepMs: number, locale?: string, timeZone?: string): string {
  const options: Intl.DateTimeFormatOptions =
    stepMs >= 86_400_000 ? { month: 'short', day: 'numeric' } : { hour: '2-digit', minute: '2-digit' };
  return new Intl.DateTimeFormat(locale, { ...options, timeZone }).format(new Date(at));
}

/** The reader's time zone (an IANA name), for series laid out on its days; UTC if it says none. */
export function readerTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

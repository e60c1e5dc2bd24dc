import { describe, expect, it } from 'vitest';
import { formatTime, tickLabel, timeAgo } from './time-format.ts';

describe('times for a reader', () => {
  it('formats a time in the locale and zone given, and leaves an unreadable one as it came', () => {
    expect(formatTime('2026-11-29T07:43:18Z', 'en-GB', 'UTC')).toBe('29 Nov 2026, 07:43');
    expect(formatTime('2026-11-29T07:43:18Z', 'en-GB', 'Asia/Tokyo')).toBe('29 Nov 2026, 16:43');
    expect(formatTime('not a time', 'en-GB')).toBe('not a time');
  });

  it('says how long ago', () => {
    const now = Date.parse('2026-11-29T08:00:00Z');
    expect(timeAgo('2026-11-29T07:00:00Z', now, 'en')).toBe('1 hour ago');
    expect(timeAgo('2026-11-29T07:59:50Z', now, 'en')).toBe('now');
    expect(timeAgo('2026-11-28T08:00:00Z', now, 'en')).toBe('yesterday');
    expect(timeAgo('2026-11-08T08:00:00Z', now, 'en')).toBe('3 weeks ago');
    expect(timeAgo('x', now, 'en')).toBe('');
  });

  it('labels a time axis by the day or the time of day', () => {
    const at = Date.parse('2026-11-29T06:00:00Z');
    expect(tickLabel(at, 86_400_000, 'en-GB', 'UTC')).toBe('29 Nov');
    expect(tickLabel(at, 3_600_000, 'en-GB', 'UTC')).toBe('06:00');
  });
});

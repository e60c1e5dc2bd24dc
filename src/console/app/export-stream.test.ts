import { describe, expect, it } from 'vitest';
import { CsvRecordCounter, exportUrl, fileName, formatBytes, progressText } from './export-stream.ts';

const origin = 'http://127.0.0.1:4123';
const bytes = (text: string) => new TextEncoder().encode(text);

describe("an export's download", () => {
  it('fetches a link from the console’s own origin only', () => {
    expect(exportUrl(`${origin}/api/exports/abc.def`, origin)).toBe(`${origin}/api/exports/abc.def`);
    // A link made with another base URL (ASSETQL_BASE_URL naming another host): its path, here.
    expect(exportUrl('http://localhost:4000/api/exports/abc?x=1', origin)).toBe(
      `${origin}/api/exports/abc?x=1`,
    );
    expect(exportUrl('https://evil.example/api/exports/abc', origin)).toBe(`${origin}/api/exports/abc`);
    expect(exportUrl('/api/exports/abc', origin)).toBe(`${origin}/api/exports/abc`);
    expect(exportUrl('javascript:alert(1)', origin)).toBeNull();
    expect(exportUrl('http://[bad', origin)).toBeNull();
  });

  it('names the file as the server does, in any script', () => {
    expect(
      fileName(`attachment; filename="Well.csv"; filename*=UTF-8''W%C3%A9ll%20%E2%80%93%20red.csv`, 'x'),
    ).toBe('Wéll – red.csv');
    expect(fileName('attachment; filename="plain \\"name\\".xlsx"', 'x')).toBe('plain "name".xlsx');
    expect(fileName('attachment; filename=bare.csv', 'x')).toBe('bare.csv');
    expect(fileName("attachment; filename*=UTF-8''%E0%A4%A", 'fallback.csv')).toBe('fallback.csv');
    expect(fileName(null, 'fallback.csv')).toBe('fallback.csv');
  });

  it('counts CSV records as the bytes come, line breaks in quoted fields and chunks cut anywhere', () => {
    const csv = 'id,displayName,note\nW-1,"Well, one","two\nlines"\nW-2,Wéll 2,"say ""hi"""\nW-3,Three,';
    for (let cut = 0; cut <= csv.length; cut++) {
      const counter = new CsvRecordCounter();
      counter.feed(bytes(csv.slice(0, cut)));
      counter.feed(bytes(csv.slice(cut)));
      expect(counter.records(true)).toBe(4);
    }
    const counter = new CsvRecordCounter();
    counter.feed(bytes('id\nW-1\n'));
    expect(counter.records()).toBe(2);
    expect(counter.records(true)).toBe(2);
    counter.feed(bytes('W-2'));
    expect(counter.records()).toBe(2);
    expect(counter.records(true)).toBe(3);
    expect(new CsvRecordCounter().records(true)).toBe(0);
  });

  it('says the progress in words', () => {
    expect(formatBytes(999, 'en')).toBe('999 bytes');
    expect(formatBytes(12_345, 'en')).toBe('12.3 kB');
    expect(formatBytes(4_100_000, 'en')).toBe('4.1 MB');
    expect(progressText({ bytes: 12_345, rows: 240, expected: 1000 }, 'en')).toBe(
      '12.3 kB, 240 of 1,000 rows',
    );
    expect(progressText({ bytes: 12_345, rows: 240, expected: null }, 'en')).toBe('12.3 kB, 240 rows');
    expect(progressText({ bytes: 12_345, rows: null, expected: 10 }, 'en')).toBe('12.3 kB received');
  });
});

// The arithmetic of an export's download, apart from the DOM: where to fetch its link from (this
// origin only), the file's name from its Content-Disposition, how many rows of a CSV have come
// (counted as the bytes arrive, quotes minded), and the progress in words.

/**
 * Where the console fetches an export link: the link itself when it is of the console's origin;
 * otherwise the same path on the console's origin (a link's token is its credential, good in any
 * gateway process, and `connect-src 'self'` lets the console reach nothing else). A link the
 * console cannot read is null.
 */
export function exportUrl(link: string, origin: string): string | null {
  let url: URL;
  try {
    url = new URL(link, origin);
  } catch (e) {
    if (e instanceof TypeError) return null;
    throw e;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.origin === origin) return url.href;
  return new URL(`${url.pathname}${url.search}`, origin).href;
}

/** The file name a download's `Content-Disposition` gives (RFC 6266: `filename*` first), else `fallback`. */
export function fileName(disposition: string | null, fallback: string): string {
  if (disposition) {
    const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(disposition);
    if (extended) {
      try {
        return decodeURIComponent(extended[1]!.trim());
      } catch (e) {
        if (!(e instanceof URIError)) throw e;
      }
    }
    const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/.exec(disposition);
    if (plain) return (plain[1] ?? plain[2]!).replace(/\\(.)/g, '$1');
  }
  return fallback;
}

const QUOTE = 0x22;
const LF = 0x0a;

/**
 * Counts the records of a CSV (RFC 4180) as its bytes come, in chunks cut anywhere: a line break
 * inside a quoted field is part of the field. Quotes and line breaks are single bytes in UTF-8,
 * never part of another character, so the bytes need no decoding.
 */
export class CsvRecordCounter {
  #quoted = false;
  #records = 0;
  /** Whether the last byte seen ended a record (or none was seen). */
  #atStart = true;

  feed(chunk: Uint8Array): void {
    for (const byte of chunk) {
      if (byte === QUOTE) this.#quoted = !this.#quoted;
      else if (byte === LF && !this.#quoted) {
        this.#records++;
        this.#atStart = true;
        continue;
      }
      this.#atStart = false;
    }
  }

  /** Records complete so far, with a last one not ended by a line break once the file is whole. */
  records(whole = false): number {
    return this.#records + (whole && !this.#atStart ? 1 : 0);
  }
}

/** A size for people: "980 bytes", "12.3 kB", "4.1 MB". */
export function formatBytes(bytes: number, locale?: string): string {
  const f = (n: number) => new Intl.NumberFormat(locale, { maximumFractionDigits: 1 }).format(n);
  if (bytes < 1000) return `${f(bytes)} bytes`;
  if (bytes < 1_000_000) return `${f(bytes / 1000)} kB`;
  return `${f(bytes / 1_000_000)} MB`;
}

export interface Progress {
  bytes: number;
  /** Data rows received (CSV only). */
  rows: number | null;
  /** Rows expected: the list's count when it is exact. */
  expected: number | null;
}

/** The progress in words: "12.3 kB, 240 of 1,000 rows". */
export function progressText(p: Progress, locale?: string): string {
  const size = formatBytes(p.bytes, locale);
  if (p.rows === null) return `${size} received`;
  const n = new Intl.NumberFormat(locale);
  return p.expected !== null
    ? `${size}, ${n.format(p.rows)} of ${n.format(p.expected)} rows`
    : `${size}, ${n.format(p.rows)} rows`;
}

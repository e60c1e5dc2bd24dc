import { createHmac, timingSafeEqual } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { z } from 'zod';

/** Where export links live, under the service's base URL; any gateway process serves them. */
export const EXPORTS_PATH = '/api/exports/';

/** How long a link from `csvFileDownloadUrl` works (like a pre-signed object URL). */
export const EXPORT_URL_TTL_SECONDS = 60 * 60;

/** The longest token we hand out: URLs beyond ~8 KB break in proxies and browsers. */
export const MAX_TOKEN_LENGTH = 6000;

const format = z.enum(['CSV', 'XLSX']);

/** An ad-hoc export: everything needed to build the file travels in the signed token. */
const queryExport = z.object({
  k: z.literal('q'),
  /** tenant group */
  g: z.string(),
  /** who asked (shown in logs) */
  u: z.string(),
  p: z.string(),
  /** columns: the properties, after id and display name */
  c: z.array(z.string()),
  f: format,
  /** AssetFilter, or null for every asset */
  w: z.record(z.string(), z.unknown()).nullable(),
  /** file name without extension */
  n: z.string(),
  /** expiry, seconds since the epoch */
  e: z.number().int(),
});

/** A saved download: the token names the row; deleting the row revokes the link. */
const savedDownload = z.object({
  k: z.literal('d'),
  g: z.string(),
  d: z.string(),
  e: z.number().int(),
});

const payload = z.discriminatedUnion('k', [queryExport, savedDownload]);

export type ExportTokenPayload = z.infer<typeof payload>;
export type QueryExportToken = z.infer<typeof queryExport>;

export type TokenCheck =
  | { ok: true; payload: ExportTokenPayload }
  | { ok: false; reason: 'INVALID' | 'EXPIRED' };

/**
 * Signed export tokens: `base64url(deflate(JSON)) "." base64url(HMAC-SHA256)`, keyed by a key
 * derived from the service secret for this purpose only. Deflate keeps a filter-bearing URL
 * short; the MAC covers the compressed bytes, so nothing is inflated before it is trusted.
 */
export class ExportTokens {
  readonly #key: Uint8Array;

  constructor(key: Uint8Array) {
    if (key.byteLength < 32) throw new Error('export token key must be at least 256 bits');
    this.#key = key;
  }

  sign(body: ExportTokenPayload): string {
    const data = deflateRawSync(Buffer.from(JSON.stringify(payload.parse(body)))).toString('base64url');
    return `${data}.${this.#mac(data).toString('base64url')}`;
  }

  verify(token: string, nowSeconds: number): TokenCheck {
    const dot = token.indexOf('.');
    if (dot <= 0 || token.length > MAX_TOKEN_LENGTH * 2) return { ok: false, reason: 'INVALID' };
    const data = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = this.#mac(data);
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return { ok: false, reason: 'INVALID' };
    let parsed: ExportTokenPayload;
    try {
      const json = inflateRawSync(Buffer.from(data, 'base64url'), { maxOutputLength: 1 << 20 });
      parsed = payload.parse(JSON.parse(json.toString('utf8')));
    } catch {
      return { ok: false, reason: 'INVALID' };
    }
    if (parsed.e <= nowSeconds) return { ok: false, reason: 'EXPIRED' };
    return { ok: true, payload: parsed };
  }

  #mac(data: string): Buffer {
    return createHmac('sha256', this.#key).update(data).digest();
  }
}

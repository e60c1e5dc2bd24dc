import { createHmac, timingSafeEqual } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { z } from 'zod';
import { fail, ok, type Result } from '../../../shared/result.ts';

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
  /** who made it: the link works only while they are in good standing in the group */
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

/**
 * A saved download: the token names the row, which names its maker; deleting the row revokes
 * the link.
 */
const savedDownload = z.object({
  k: z.literal('d'),
  g: z.string(),
  d: z.string(),
  e: z.number().int(),
});

const payload = z.discriminatedUnion('k', [queryExport, savedDownload]);

export type ExportTokenPayload = z.infer<typeof payload>;

/** The payload of a good token; `INVALID` (forged, damaged) or `EXPIRED` otherwise. */
export type TokenCheck = Result<ExportTokenPayload, 'INVALID' | 'EXPIRED'>;

const invalid = () => fail('INVALID', 'The token is not valid.');

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
    if (dot <= 0 || token.length > MAX_TOKEN_LENGTH * 2) return invalid();
    const data = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = this.#mac(data);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return invalid();
    // Signed by this key, yet not a payload it makes (a key shared with an older release): invalid.
    let json: unknown;
    try {
      const inflated = inflateRawSync(Buffer.from(data, 'base64url'), { maxOutputLength: 1 << 20 });
      json = JSON.parse(inflated.toString('utf8'));
    } catch (e) {
      const code = String((e as { code?: unknown }).code ?? '');
      if (e instanceof SyntaxError || code.startsWith('Z_') || code === 'ERR_BUFFER_TOO_LARGE')
        return invalid();
      throw e;
    }
    const parsed = payload.safeParse(json);
    if (!parsed.success) return invalid();
    if (parsed.data.e <= nowSeconds) return fail('EXPIRED', 'The token has expired.');
    return ok(parsed.data);
  }

  #mac(data: string): Buffer {
    return createHmac('sha256', this.#key).update(data).digest();
  }
}

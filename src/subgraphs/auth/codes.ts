import { createHmac, randomInt } from 'node:crypto';

/** A one-time code (SMS sign-in, password reset): six digits from the CSPRNG. */
export function sixDigits(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

/** One-time codes are kept only as this HMAC (base64url), under a key derived from the secret. */
export function codeHash(key: Uint8Array, code: string): string {
  return createHmac('sha256', key).update(code).digest('base64url');
}

import { Secret, TOTP } from 'otpauth';

/** RFC 6238 with the parameters every authenticator app supports: SHA-1, 6 digits, 30 s. */
const PERIOD = 30;
const DIGITS = 6;
/** One step of clock drift either way. */
const WINDOW = 1;
export const TOTP_ISSUER = 'assetql';

export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

export function otpauthUri(secret: string, username: string): string {
  return new TOTP({
    issuer: TOTP_ISSUER,
    label: username,
    secret,
    period: PERIOD,
    digits: DIGITS,
  }).toString();
}

/**
 * The time step a code belongs to, or null when it matches none within the window.
 * The caller accepts a step only if it is later than the last one accepted (replay guard).
 */
export function totpStep(secret: string, code: string, now: Date): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const totp = new TOTP({ secret, period: PERIOD, digits: DIGITS });
  const delta = totp.validate({ token: code, timestamp: now.getTime(), window: WINDOW });
  if (delta === null) return null;
  return Math.floor(now.getTime() / 1000 / PERIOD) + delta;
}

/** The current code, for tests and the CLI. */
export function totpCode(secret: string, now: Date): string {
  return new TOTP({ secret, period: PERIOD, digits: DIGITS }).generate({ timestamp: now.getTime() });
}

import { createHash, randomBytes } from 'node:crypto';

/** The session cookie (spec §5.1). */
export const SESSION_COOKIE = 'svc_sessionid';
/**
 * The session header (spec §5.1), also sent back to header clients after sign-in: the auth
 * subgraph puts it, with the session cookie, on its answer to a mutation that starts a session.
 */
export const SESSION_HEADER = 'x-svc-sessionid';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface Lifetime {
  /** Idle timeout: the soft expiry moves to now + idle on activity. */
  idleMs: number;
  /** Maximum lifetime from sign-in: the hard expiry. */
  maxMs: number;
}

/** Spec §5.5, by client application type. */
export const LIFETIMES: Readonly<Record<string, Lifetime>> = Object.freeze({
  EXPLORER: { idleMs: 7 * DAY_MS, maxMs: 30 * DAY_MS },
  MOBILE_ANDROID: { idleMs: 60 * DAY_MS, maxMs: 365 * DAY_MS },
  MOBILE_IOS: { idleMs: 60 * DAY_MS, maxMs: 365 * DAY_MS },
  API_KEY: { idleMs: 60 * DAY_MS, maxMs: 365 * DAY_MS },
});

export function lifetimeOf(clientType: string): Lifetime {
  return LIFETIMES[clientType] ?? LIFETIMES.EXPLORER!;
}

/** A new session ID: 256 bits from the CSPRNG, base64url. */
export function newSessionId(): string {
  return randomBytes(32).toString('base64url');
}

/** Session IDs are stored and looked up only by this hash. */
export function hashSessionId(id: string): Buffer {
  return createHash('sha256').update(id).digest();
}

/** The plausible shape of a session ID; anything else is not looked up at all. */
export function isWellFormedSessionId(id: string): boolean {
  return id.length >= 22 && id.length <= 128 && /^[A-Za-z0-9_-]+$/.test(id);
}

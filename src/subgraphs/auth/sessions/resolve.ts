import type { Kysely } from 'kysely';
import type { Clock } from '../../../shared/clock.ts';
import {
  ANONYMOUS,
  type Identity,
  type IdentityKind,
  type SessionResolution,
} from '../../../shared/identity.ts';
import { type Metrics, NO_METRICS } from '../../../shared/metrics.ts';
import { hashSessionId, isWellFormedSessionId } from '../../../shared/session-policy.ts';
import type { Tables } from '../../../storage/tables.ts';
import { deleteSession, findStandingSession, slideSession } from '../repository/sessions.ts';
import { hasExpired, slidExpiry, slides } from './rules.ts';

export interface SessionResolutionOptions {
  db: Kysely<Tables>;
  clock: Clock;
  /** How long a looked-up session is trusted without asking the store again @default 2000 */
  cacheMs?: number;
  /** Soft-expiry writes for one session at most this often @default 60000 */
  slideWriteIntervalMs?: number;
  /** Entries kept in the cache @default 10000 */
  cacheSize?: number;
  /** Counts cache hits and misses @default NO_METRICS */
  metrics?: Metrics;
}

/**
 * Session resolution by auth's rules, for whoever is handed it: our gateway, once per request,
 * or a subgraph that resolves a forwarded session ID itself (behind another router). It needs
 * only the database and a clock.
 */
export function createSessionResolution(options: SessionResolutionOptions): SessionResolution {
  return new SessionResolver(options);
}

interface Cached {
  identity: Identity;
  expiresAt: number;
  expiresAtHard: number;
  lastWrite: number;
  fetchedAt: number;
}

const KINDS: ReadonlySet<string> = new Set(['session', 'challenge', 'api_key']);

/**
 * Turns a presented session ID into an identity, once per request: looks the session up by
 * the SHA-256 of its ID, ends it when past its soft or hard expiry, and slides the soft
 * expiry forward (never past the hard one), writing at most once a minute per session.
 */
class SessionResolver implements SessionResolution {
  readonly #db: Kysely<Tables>;
  readonly #clock: Clock;
  readonly #cacheMs: number;
  readonly #slideMs: number;
  readonly #cacheSize: number;
  readonly #metrics: Metrics;
  readonly #cache = new Map<string, Cached>();

  constructor(options: SessionResolutionOptions) {
    this.#db = options.db;
    this.#clock = options.clock;
    this.#cacheMs = options.cacheMs ?? 2000;
    this.#slideMs = options.slideWriteIntervalMs ?? 60_000;
    this.#cacheSize = options.cacheSize ?? 10_000;
    this.#metrics = options.metrics ?? NO_METRICS;
  }

  async resolve(sessionId: string | null | undefined): Promise<Identity> {
    if (!sessionId || !isWellFormedSessionId(sessionId)) return ANONYMOUS;
    const hash = hashSessionId(sessionId);
    const key = hash.toString('hex');
    const now = this.#clock.now().getTime();
    let entry = this.#cache.get(key);
    if (!entry || now - entry.fetchedAt > this.#cacheMs) {
      this.#metrics.sessionLookup('miss');
      entry = await this.#load(hash, key, now);
      if (!entry) return ANONYMOUS;
    } else this.#metrics.sessionLookup('hit');
    if (hasExpired(entry.expiresAt, entry.expiresAtHard, now)) {
      this.#cache.delete(key);
      await deleteSession(this.#db, hash);
      return ANONYMOUS;
    }
    if (slides(entry.identity.kind) && now - entry.lastWrite >= this.#slideMs) {
      await this.#slide(hash, entry, now);
    }
    return entry.identity;
  }

  /** Forgets a cached session at once (after sign-out or rotation seen by this gateway). */
  forget(sessionId: string): void {
    if (isWellFormedSessionId(sessionId)) this.#cache.delete(hashSessionId(sessionId).toString('hex'));
  }

  async #load(hash: Buffer, key: string, now: number): Promise<Cached | undefined> {
    // A session is only as good as its user: disabled users and users who left the group
    // lose every session and API key at once, whatever the cache of other processes says
    // (the rule: inGoodStanding in repository/sessions.ts).
    const row = await findStandingSession(this.#db, hash);
    if (!row || !KINDS.has(row.kind) || !row.in_good_standing) {
      this.#cache.delete(key);
      return undefined;
    }
    const entry: Cached = {
      identity: Object.freeze({
        kind: row.kind as IdentityKind,
        username: row.username,
        userGroup: row.user_group,
        clientType: row.client_type,
        sessionHash: key,
      }),
      expiresAt: row.expires_at.getTime(),
      expiresAtHard: row.expires_at_hard.getTime(),
      lastWrite: row.last_seen_at.getTime(),
      fetchedAt: now,
    };
    if (this.#cache.size >= this.#cacheSize) {
      const oldest = this.#cache.keys().next();
      if (!oldest.done) this.#cache.delete(oldest.value);
    }
    this.#cache.set(key, entry);
    return entry;
  }

  async #slide(hash: Buffer, entry: Cached, now: number): Promise<void> {
    const next = slidExpiry(entry.identity.clientType, now, entry.expiresAtHard);
    entry.lastWrite = now;
    entry.expiresAt = next;
    await slideSession(this.#db, hash, new Date(next), new Date(now));
  }
}

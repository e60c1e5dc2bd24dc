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
import type { ChangeNotices } from '../../../storage/change-notices.ts';
import type { TableWrites } from '../../../storage/table-writes.ts';
import type { Tables } from '../../../storage/tables.ts';
import { deleteSession, findStandingSession, slideSession } from '../repository/sessions.ts';
import { KeptSessions } from './kept.ts';
import { hasExpired, slidExpiry, slides } from './rules.ts';

/** The channel the database announces session changes on (migration 20261127T0100). */
export const SESSION_CHANNEL = 'assetql_sessions';

/** The tables resolution reads: a change to any may change what a session resolves to. */
export const SESSION_TABLES = ['sessions', 'users', 'user_groups'] as const;

export interface SessionResolutionOptions {
  db: Kysely<Tables>;
  clock: Clock;
  /**
   * How long a looked-up session is trusted without asking the store again, while the
   * database's session change notices are not heard @default 2000
   */
  cacheMs?: number;
  /**
   * How long while they are heard: every change evicts what it touches as its notice arrives,
   * so this only bounds what a lost notice could leave behind @default 60000
   */
  liveCacheMs?: number;
  /** The database's change notices (PostgreSQL): sessions are kept for as long as they are heard. */
  notices?: ChangeNotices;
  /** This process's own writes, so that a request after one waits for its notices. */
  writes?: TableWrites;
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
  identity: Identity & { username: string };
  expiresAt: number;
  expiresAtHard: number;
  lastWrite: number;
  fetchedAt: number;
  /** How many of this process's writes to the session tables had been made when it was read. */
  writesSeen: number;
}

/** How long a session's standing is trusted without notices: streams end within a second. */
const STANDING_CHECK_MS = 500;

const KINDS: ReadonlySet<string> = new Set(['session', 'challenge', 'api_key']);

/**
 * Turns a presented session ID into an identity, once per request: looks the session up by
 * the SHA-256 of its ID, ends it when past its soft or hard expiry, and slides the soft
 * expiry forward (never past the hard one), writing at most once a minute per session.
 *
 * A looked-up session is kept for 2 s; while the process hears the database's session change
 * notices, for as long as no change touches it (up to a minute). A notice evicts the session
 * it names, or every session of the user it names (disabled, deleted, a group joined or left).
 * A lookup that overlapped a notice serves its own request but is not kept. After a write of
 * this process's own to those tables (told when it commits), the next request that would use a
 * session read before it waits until the notices committed before it have arrived (a probe the
 * listening connection sends itself, one for every request waiting), or, without notices, reads
 * it again, so a session revoked here never resolves here again, however soon the next request
 * comes. A slide of the idle expiry
 * sends no notice: a kept session that looks expired is read again before it is ended.
 */
class SessionResolver implements SessionResolution {
  readonly #db: Kysely<Tables>;
  readonly #clock: Clock;
  readonly #cacheMs: number;
  readonly #liveCacheMs: number;
  readonly #slideMs: number;
  readonly #metrics: Metrics;
  readonly #notices: ChangeNotices | undefined;
  readonly #cache: KeptSessions<Cached>;
  #live = false;
  /** Counts notices: a lookup that saw it change while running is not kept. */
  #generation = 0;
  /** This process's writes to the session tables, and how many of them are known to be heard. */
  #localWrites = 0;
  #heardWrites = 0;
  #settling: Promise<void> | undefined;

  constructor(options: SessionResolutionOptions) {
    this.#db = options.db;
    this.#clock = options.clock;
    this.#cacheMs = options.cacheMs ?? 2000;
    this.#liveCacheMs = options.liveCacheMs ?? 60_000;
    this.#slideMs = options.slideWriteIntervalMs ?? 60_000;
    this.#cache = new KeptSessions<Cached>(options.cacheSize ?? 10_000);
    this.#metrics = options.metrics ?? NO_METRICS;
    this.#notices = options.notices;
    // A new row (a sign-in, a group joined) cannot make what is kept stale: inserts are not told.
    options.writes?.watch(
      SESSION_TABLES,
      () => {
        this.#localWrites++;
      },
      { inserts: false },
    );
    options.notices?.subscribe(SESSION_CHANNEL, {
      notice: (payload) => this.#changed(payload),
      live: (live) => {
        this.#live = live;
        this.#generation++;
        // Deaf, what is kept falls under the 2-s rule (so a session looked up just before the
        // database went away still answers for that long); heard again, notices sent before the
        // connection listened were missed, so nothing kept before is trusted.
        if (live) this.#cache.clear();
      },
    });
  }

  async resolve(sessionId: string | null | undefined): Promise<Identity> {
    if (!sessionId || !isWellFormedSessionId(sessionId)) return ANONYMOUS;
    const hash = hashSessionId(sessionId);
    const key = hash.toString('hex');
    let entry = this.#cache.get(key);
    // A write of this process's own since it was read: its notice may still be on the way. A
    // probe already under way may have been sent before that write: then one more.
    const writes = this.#localWrites;
    while (entry && this.#live && writes > Math.max(entry.writesSeen, this.#heardWrites)) {
      await this.#settle();
      entry = this.#cache.get(key);
    }
    // Not hearing notices (PGlite, or the listening connection gone): a write of this process's
    // own to the session tables since it was read (a sign-out, a revoked API key, a user disabled
    // here) is not waited for but read again, so that it holds here at once.
    if (entry && !this.#live && writes > entry.writesSeen) entry = undefined;
    const now = this.#clock.now().getTime();
    let fresh = false;
    if (!entry || now - entry.fetchedAt > (this.#live ? this.#liveCacheMs : this.#cacheMs)) {
      this.#metrics.sessionLookup('miss');
      entry = await this.#load(hash, key, now);
      if (!entry) return ANONYMOUS;
      fresh = true;
    } else this.#metrics.sessionLookup('hit');
    // Another process may have slid the expiry (a slide sends no notice): a kept session that
    // looks expired is read again before it is ended.
    if (!fresh && hasExpired(entry.expiresAt, entry.expiresAtHard, now)) {
      entry = await this.#load(hash, key, now);
      if (!entry) return ANONYMOUS;
    }
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

  async standing(identity: Identity): Promise<boolean> {
    const key = identity.sessionHash;
    if (!key || !/^[0-9a-f]{64}$/.test(key)) return false;
    let entry = this.#cache.get(key);
    const now = this.#clock.now().getTime();
    // Kept while notices are heard (each change evicts it); else read again past half a second,
    // or after a write of this process's own whose notice may not have arrived.
    if (
      !entry ||
      this.#localWrites > Math.max(entry.writesSeen, this.#live ? this.#heardWrites : 0) ||
      now - entry.fetchedAt > (this.#live ? this.#liveCacheMs : STANDING_CHECK_MS) ||
      hasExpired(entry.expiresAt, entry.expiresAtHard, now)
    )
      entry = await this.#load(Buffer.from(key, 'hex'), key, now);
    if (!entry || hasExpired(entry.expiresAt, entry.expiresAtHard, now)) return false;
    const kept = entry.identity;
    return (
      kept.kind === identity.kind &&
      kept.username === identity.username &&
      kept.userGroup === identity.userGroup
    );
  }

  /** Forgets a cached session at once (after sign-out or rotation seen by this gateway). */
  forget(sessionId: string): void {
    if (!isWellFormedSessionId(sessionId)) return;
    // A lookup under way may have read it before the change: it is not kept either.
    this.#generation++;
    this.#cache.delete(hashSessionId(sessionId).toString('hex'));
  }

  /** A session change notice: evicts what it names. */
  #changed(payload: string): void {
    this.#generation++;
    if (payload.startsWith('session:')) this.#cache.delete(payload.slice('session:'.length));
    else if (payload.startsWith('user:')) {
      this.#cache.deleteUser(payload.slice('user:'.length));
    } else this.#cache.clear();
  }

  /**
   * Waits until every notice of this process's writes so far has arrived; if that cannot be
   * known, nothing kept is trusted.
   */
  #settle(): Promise<void> {
    this.#settling ??= (async () => {
      const writes = this.#localWrites;
      const heard = (await this.#notices?.settled()) ?? false;
      if (heard) this.#heardWrites = Math.max(this.#heardWrites, writes);
      else {
        this.#generation++;
        this.#cache.clear();
        this.#heardWrites = this.#localWrites;
      }
    })().finally(() => {
      this.#settling = undefined;
    });
    return this.#settling;
  }

  async #load(hash: Buffer, key: string, now: number): Promise<Cached | undefined> {
    // A session is only as good as its user: disabled users and users who left the group
    // lose every session and API key at once, whatever the cache of other processes says
    // (the rule: inGoodStanding in repository/sessions.ts).
    const generation = this.#generation;
    const writesSeen = this.#localWrites;
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
        apiKeyId: row.kind === 'api_key' ? row.api_key_id : null,
      }),
      expiresAt: row.expires_at.getTime(),
      expiresAtHard: row.expires_at_hard.getTime(),
      lastWrite: row.last_seen_at.getTime(),
      fetchedAt: now,
      writesSeen,
    };
    // Overlapped a notice: it may have been read before the change the notice announced.
    if (generation !== this.#generation) return entry;
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

import type pg from 'pg';
import { RateLimiterPostgres, RateLimiterRes } from 'rate-limiter-flexible';

/** What is limited per client address; each allows `points` attempts per `seconds`. */
export type LimitedAction =
  | 'signIn'
  | 'confirmSignIn'
  | 'forgotPassword'
  | 'forgotPasswordSubmit'
  | 'createAPIKey';

export type AuthLimits = Record<LimitedAction, { points: number; seconds: number }>;

/** Defaults (docs/auth.md): generous for people, tight for scripts guessing. */
export const DEFAULT_LIMITS: AuthLimits = {
  signIn: { points: 30, seconds: 5 * 60 },
  confirmSignIn: { points: 30, seconds: 5 * 60 },
  forgotPassword: { points: 10, seconds: 60 * 60 },
  forgotPasswordSubmit: { points: 20, seconds: 60 * 60 },
  createAPIKey: { points: 20, seconds: 60 * 60 },
};

/** Per-address (or per-account) limits kept in PostgreSQL (`rate_limits`), so they hold across processes. */
export class AuthLimiter {
  readonly #limiters: Map<LimitedAction, RateLimiterPostgres>;

  constructor(pool: pg.Pool, limits: AuthLimits = DEFAULT_LIMITS) {
    // The limiter names its prepared statements; on embedded PGlite every pooled connection
    // shares one backend, where the second connection to prepare a name fails. Unnamed
    // statements work everywhere and cost little for these one-row upserts.
    const storeClient = {
      query: (q: { text: string; values?: unknown[] }) => pool.query({ text: q.text, values: q.values }),
    };
    this.#limiters = new Map(
      (Object.keys(limits) as LimitedAction[]).map((action) => [
        action,
        new RateLimiterPostgres({
          storeClient,
          storeType: 'pool',
          tableName: 'rate_limits',
          tableCreated: true,
          clearExpiredByTimeout: false,
          keyPrefix: `auth:${action}`,
          points: limits[action].points,
          duration: limits[action].seconds,
        }),
      ]),
    );
  }

  /**
   * Takes one attempt for `key` (a client address, or `account:<username>` when the address is
   * unknown: resolvers/results.ts); returns the seconds to wait when the limit is reached, else 0.
   */
  async take(action: LimitedAction, key: string): Promise<number> {
    const limiter = this.#limiters.get(action);
    if (!limiter) return 0;
    try {
      await limiter.consume(key);
      return 0;
    } catch (e) {
      if (e instanceof RateLimiterRes) return Math.max(1, Math.ceil(e.msBeforeNext / 1000));
      throw e;
    }
  }
}

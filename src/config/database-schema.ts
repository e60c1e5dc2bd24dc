import { z } from 'zod';
import { DEFAULT_PREPARED_STATEMENTS } from './limits.ts';

/**
 * The database settings of the one configuration (schema.ts spreads them into it): where the data
 * is, how each process reaches it, and the bounds on its statements (docs/deploy.md).
 */
export const DATABASE_SETTINGS = {
  /** `DATABASE_URL`: PostgreSQL; without it, embedded PGlite under `dataDir`. */
  databaseUrl: z.string().min(1).optional(),
  /**
   * `ASSETQL_DATABASE_SESSION_URL`: where `DATABASE_URL` reaches PostgreSQL through a
   * transaction-mode pooler (PgBouncer), the same database reached directly, for what needs a
   * session of its own: change notices (`LISTEN`) and the start-up locks. With it the pooled
   * connections get no session `SET` (docs/deploy.md#behind-a-transaction-mode-pooler).
   */
  databaseSessionUrl: z.string().min(1).optional(),
  /** `ASSETQL_DATABASE_READ_URLS`: streaming replicas of `DATABASE_URL`, for reads (deploy.md#read-replicas). */
  databaseReadUrls: z.array(z.string().min(1)).optional(),
  /**
   * `ASSETQL_DB_POOL_SIZE`: PostgreSQL connections each process opens at most (its pool; export
   * downloads and the rate limiter draw on it too). Processes × this must stay under the
   * server's `max_connections` (docs/deploy.md#scaling-out) @default 10
   */
  databasePoolSize: z.coerce
    .number({ error: 'must be a number of connections from 1 to 1000' })
    .int({ error: 'must be a number of connections from 1 to 1000' })
    .min(1, { error: 'must be a number of connections from 1 to 1000' })
    .max(1000, { error: 'must be a number of connections from 1 to 1000' })
    .default(10),
  /**
   * `ASSETQL_DB_PREPARED_STATEMENTS`: statements each PostgreSQL connection keeps prepared by
   * name, the ones the process repeats; 0 sends every statement unnamed, as a transaction-mode
   * pooler needs (docs/deploy.md) @default 100
   */
  databasePreparedStatements: z.coerce
    .number({ error: 'must be a number of statements from 0 to 10000' })
    .int({ error: 'must be a number of statements from 0 to 10000' })
    .min(0, { error: 'must be a number of statements from 0 to 10000' })
    .max(10_000, { error: 'must be a number of statements from 0 to 10000' })
    .default(DEFAULT_PREPARED_STATEMENTS),
  /**
   * `ASSETQL_STATEMENT_TIMEOUT_MS`: PostgreSQL's `statement_timeout` for the statements of a
   * request; one running longer is cancelled and the request answered with `TIMEOUT`
   * (docs/security.md). 0 turns it off @default 5000
   */
  statementTimeoutMs: z.coerce
    .number({ error: 'must be a number of milliseconds from 0 to 3600000' })
    .int({ error: 'must be a number of milliseconds from 0 to 3600000' })
    .min(0, { error: 'must be a number of milliseconds from 0 to 3600000' })
    .max(3_600_000, { error: 'must be a number of milliseconds from 0 to 3600000' })
    .default(5_000),
};

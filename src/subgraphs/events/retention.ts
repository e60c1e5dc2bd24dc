import type { Kysely } from 'kysely';
import type { Clock } from '../../shared/clock.ts';
import type { Logger } from '../../shared/logger.ts';
import { PeriodicJob } from '../../shared/periodic.ts';
import { LOCKS, tryAdvisoryLock } from '../../storage/locks.ts';
import type { Tables } from '../../storage/tables.ts';
import { pruneChanges } from './changes.repository.ts';
import { pruneDeliveries } from './webhooks/repository.ts';

/** Entries deleted by one statement: short enough that a pruning never holds much at once. */
const BATCH = 5_000;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface RetentionOptions {
  db: Kysely<Tables>;
  clock: Clock;
  log: Logger;
  /** How long an entry is kept. */
  days: number;
  /** How often the log is pruned @default one hour */
  everyMs?: number;
}

/**
 * Prunes the change log of entries older than the retention, every hour and once soon after the
 * start, in batches, one process at a time (an advisory lock taken without waiting: a process
 * that finds another pruning leaves it the work).
 */
export class ChangeRetention {
  readonly #options: RetentionOptions;
  readonly #job: PeriodicJob<number>;

  constructor(options: RetentionOptions) {
    this.#options = options;
    this.#job = new PeriodicJob(options.everyMs ?? 60 * 60 * 1000, () => this.#prune());
  }

  /** Prunes now (unless a pruning is running here); how many entries went. */
  prune(): Promise<number> {
    return this.#job.run();
  }

  async #prune(): Promise<number> {
    const { db, clock, log, days } = this.#options;
    const cutoff = new Date(clock.now().getTime() - days * DAY_MS);
    try {
      const pruned = await tryAdvisoryLock(db, LOCKS.changeRetention, async () => {
        let total = 0;
        for (;;) {
          const n = await pruneChanges(db, cutoff, BATCH);
          total += n;
          if (n < BATCH) break;
        }
        // Webhook deliveries, and their attempts, go with the entries they delivered.
        while ((await pruneDeliveries(db, cutoff, BATCH)) === BATCH);
        return total;
      });
      if (pruned) log.info({ pruned, before: cutoff.toISOString() }, 'change log pruned');
      return pruned ?? 0;
    } catch (e) {
      log.warn({ err: e }, 'change log pruning failed; it is tried again within the hour');
      return 0;
    }
  }

  close(): Promise<void> {
    return this.#job.close();
  }
}

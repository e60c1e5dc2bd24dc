import { performance } from 'node:perf_hooks';
import { DEFAULT_FAIRNESS, type Fairness } from '../config/limits.ts';

/** The operator's settings (config `fairness`) and the scheduler's own timing. */
export interface FairnessOptions extends Fairness {
  /** How often the event loop's utilisation is sampled, and waiting requests reconsidered. */
  sampleMs: number;
  /** A tenant counts as active this long after its last request ended. */
  activeMs: number;
  /** Half-life of a tenant's recorded running time. */
  halfLifeMs: number;
}

export const SCHEDULER_TIMING = Object.freeze({ sampleMs: 25, activeMs: 1_000, halfLifeMs: 1_000 });

/** Why a request was not admitted: too many waiting, waited too long, or its client left. */
export type Refusal = { reason: 'queue_full' | 'waited_too_long' | 'gone'; retryAfterSeconds: number };

export const isRefusal = (e: unknown): e is Refusal =>
  typeof e === 'object' &&
  e !== null &&
  ['queue_full', 'waited_too_long', 'gone'].includes((e as Refusal).reason);

interface Tenant {
  inFlight: number;
  /** Time its requests have spent running (ms), decayed with `halfLifeMs`. */
  use: number;
  /** When `use` was last decayed. */
  decayedAt: number;
  /** When it last started or ended a request. */
  seenAt: number;
  queue: Waiter[];
}

interface Waiter {
  admit: () => void;
  timer: NodeJS.Timeout;
}

/** What the scheduler needs of the process: a clock and the event loop's recent utilisation. */
export interface LoopProbe {
  now(): number;
  /** Utilisation of the event loop since the previous call (0–1). */
  utilisation(): number;
}

export function processProbe(): LoopProbe {
  let previous = performance.eventLoopUtilization();
  return {
    now: () => performance.now(),
    utilisation() {
      const current = performance.eventLoopUtilization();
      const delta = performance.eventLoopUtilization(current, previous);
      previous = current;
      return delta.utilization;
    },
  };
}

/**
 * Fair sharing of one process between tenants, work-conserving: while the event loop is not busy,
 * or only one tenant is active, every request runs at once. When it is busy and two or more
 * tenants are active, a tenant whose recent running time is above its even share runs one request
 * at a time, and only while the loop is not busy; the rest of its requests wait their turn
 * (bounded in number and time, then refused with 429). A tenant within its share is never held.
 *
 * Work inside one request cannot be interrupted, so the point is who starts next: a tenant sending
 * costly requests back to back finds them queued, at no cost to the process, while another
 * tenant's requests start as soon as they arrive.
 */
export class FairScheduler {
  private readonly tenants = new Map<string, Tenant>();
  private busy = 0;
  private sampledAt = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;
  private queued = 0;

  private readonly options: FairnessOptions;
  private readonly probe: LoopProbe;

  constructor(
    options: FairnessOptions = { ...DEFAULT_FAIRNESS, ...SCHEDULER_TIMING },
    probe: LoopProbe = processProbe(),
  ) {
    this.options = options;
    this.probe = probe;
  }

  /**
   * Runs `work` for the tenant `key` when its turn comes; rejects with a {@link Refusal} when it
   * does not, or when `signal` (the client going away) aborts while it waits.
   */
  async run<T>(key: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const tenant = this.tenant(key);
    if (!this.mayStart(key, tenant)) await this.wait(tenant, signal);
    tenant.inFlight++;
    const started = this.probe.now();
    tenant.seenAt = started;
    try {
      return await work();
    } finally {
      const ended = this.probe.now();
      this.decay(tenant, ended);
      tenant.use += ended - started;
      tenant.inFlight--;
      tenant.seenAt = ended;
      this.pump();
    }
  }

  /** Tenants known, for tests and metrics. */
  get size(): number {
    return this.tenants.size;
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private tenant(key: string): Tenant {
    let tenant = this.tenants.get(key);
    if (!tenant) {
      const now = this.probe.now();
      tenant = { inFlight: 0, use: 0, decayedAt: now, seenAt: now, queue: [] };
      this.tenants.set(key, tenant);
    }
    return tenant;
  }

  private decay(tenant: Tenant, now: number): void {
    const elapsed = now - tenant.decayedAt;
    if (elapsed <= 0) return;
    tenant.use *= 0.5 ** (elapsed / this.options.halfLifeMs);
    tenant.decayedAt = now;
  }

  /** Whether a request of `tenant` may start now (its queue empty, or it is that queue's head). */
  private mayStart(key: string, tenant: Tenant, head = false): boolean {
    if (this.options.busyAbove >= 1) return true;
    if (!head && tenant.queue.length > 0) return false;
    const now = this.probe.now();
    let active = 0;
    let total = 0;
    for (const [k, t] of this.tenants) {
      if (t.inFlight === 0 && t.queue.length === 0 && now - t.seenAt > this.options.activeMs) {
        if (k !== key) this.tenants.delete(k);
        continue;
      }
      this.decay(t, now);
      active++;
      total += t.use;
    }
    if (active <= 1) return true;
    const share = total > 0 ? tenant.use / total : 0;
    if (share <= 1 / active) return true;
    return tenant.inFlight === 0 && this.utilisation(now) < this.options.busyAbove;
  }

  /** The event loop's utilisation over the last `sampleMs` or so. */
  private utilisation(now: number): number {
    if (now - this.sampledAt >= this.options.sampleMs) {
      this.busy = this.probe.utilisation();
      this.sampledAt = now;
    }
    return this.busy;
  }

  private wait(tenant: Tenant, signal: AbortSignal | undefined): Promise<void> {
    if (tenant.queue.length >= this.options.maxQueued)
      return Promise.reject({ reason: 'queue_full', retryAfterSeconds: 1 } satisfies Refusal);
    if (signal?.aborted) return Promise.reject({ reason: 'gone', retryAfterSeconds: 0 } satisfies Refusal);
    return new Promise<void>((admit, refuse) => {
      const leave = (refusal: Refusal) => {
        const at = tenant.queue.indexOf(waiter);
        if (at < 0) return;
        tenant.queue.splice(at, 1);
        this.queued--;
        clearTimeout(waiter.timer);
        signal?.removeEventListener('abort', gone);
        refuse(refusal);
      };
      const gone = () => leave({ reason: 'gone', retryAfterSeconds: 0 });
      const waiter: Waiter = {
        admit: () => {
          signal?.removeEventListener('abort', gone);
          admit();
        },
        timer: setTimeout(
          () => leave({ reason: 'waited_too_long', retryAfterSeconds: 1 }),
          this.options.maxWaitMs,
        ),
      };
      signal?.addEventListener('abort', gone, { once: true });
      tenant.queue.push(waiter);
      this.queued++;
      this.sampling();
    });
  }

  /** Samples the loop while anything waits, and lets waiting requests start when they may. */
  private sampling(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.pump();
      if (this.queued === 0) this.close();
    }, this.options.sampleMs);
    this.timer.unref();
  }

  private pump(): void {
    if (this.queued === 0) return;
    const waiting = [...this.tenants].filter(([, t]) => t.queue.length > 0);
    waiting.sort(([, a], [, b]) => a.use - b.use);
    for (const [key, tenant] of waiting) {
      if (!this.mayStart(key, tenant, true)) continue;
      const waiter = tenant.queue.shift()!;
      this.queued--;
      clearTimeout(waiter.timer);
      waiter.admit();
      // One start per tenant per turn: its share is reconsidered once this one has run.
    }
  }
}

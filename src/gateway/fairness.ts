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
  /**
   * Longest an over-share tenant's next request gives way to requests of tenants within their
   * share that are in flight (from when it could otherwise start); past it, it starts beside
   * them, so no tenant starves. Only requests younger than this are given way to, so that a
   * tenant holding long requests open cannot slow another down by it.
   */
  giveWayMs: number;
}

export const SCHEDULER_TIMING = Object.freeze({
  sampleMs: 25,
  activeMs: 1_000,
  halfLifeMs: 1_000,
  giveWayMs: 50,
});

/** Why a request was not admitted: too many waiting, waited too long, or its client left. */
export type Refusal = { reason: 'queue_full' | 'waited_too_long' | 'gone'; retryAfterSeconds: number };

export const isRefusal = (e: unknown): e is Refusal =>
  typeof e === 'object' &&
  e !== null &&
  ['queue_full', 'waited_too_long', 'gone'].includes((e as Refusal).reason);

interface Tenant {
  inFlight: number;
  /**
   * Time its requests have spent running (ms), decayed with `halfLifeMs`, kept scaled to the
   * scheduler's reference time: every tenant decays alike, so shares are ratios of these.
   */
  use: number;
  /** When it last started or ended a request. */
  seenAt: number;
  queue: Waiter[];
  /** Since when its next request, free to start otherwise, has been giving way. */
  givingWaySince: number | undefined;
}

interface Waiter {
  admit: (why: Admission) => void;
  leave: (refusal: Refusal) => void;
  timer: NodeJS.Timeout;
}

/** Why a request starts: its tenant is alone or within its share, or over it and this is its turn. */
type Admission = 'in share' | 'turn';

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
 * Fair sharing of one process between tenants: while only one tenant is active, every request
 * runs at once. When two or more are, a tenant whose recent running time is above its even share
 * runs one request at a time, with a turn of the event loop (everyone's I/O) between two of them,
 * and starts it only while the loop is not busy and no request of a tenant within its share,
 * started in the last `giveWayMs`, is in flight (giving way so for `giveWayMs` at most); the rest
 * of its requests wait their turn (bounded in number and time, then refused with 429). A tenant
 * within its share is never held.
 *
 * Work inside one request cannot be interrupted, so the point is who starts next: a tenant sending
 * costly requests back to back finds them queued, at no cost to the process, while another
 * tenant's requests start as soon as they arrive, and the over-share tenant's next request waits
 * for them to end rather than taking the loop each time one of theirs waits for the database.
 */
export class FairScheduler {
  private readonly tenants = new Map<string, Tenant>();
  /** The tenants with requests waiting. */
  private readonly waiting = new Set<Tenant>();
  /** Sum of the tenants' `use`, on the same scale. */
  private total = 0;
  /** Tenants active at the last sweep, and those made since. */
  private active = 0;
  /** The reference time `use` is scaled to, and when tenants were last swept. */
  private reference: number;
  private sweptAt: number;
  private busy = 0;
  private sampledAt = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | undefined;
  /** Tenants that started or ended a request in this turn of the event loop, and its end. */
  private readonly held = new Set<Tenant>();
  private turn: NodeJS.Immediate | undefined;
  private queued = 0;
  /** Requests in flight that started while their tenant was within its share, and the last start. */
  private inShare = 0;
  private inShareStartedAt = Number.NEGATIVE_INFINITY;

  private readonly options: FairnessOptions;
  private readonly probe: LoopProbe;

  constructor(
    options: FairnessOptions = { ...DEFAULT_FAIRNESS, ...SCHEDULER_TIMING },
    probe: LoopProbe = processProbe(),
  ) {
    this.options = options;
    this.probe = probe;
    this.reference = this.sweptAt = probe.now();
  }

  /**
   * Runs `work` for the tenant `key` when its turn comes; rejects with a {@link Refusal} when it
   * does not, or when `signal` (the client going away) aborts while it waits.
   */
  async run<T>(key: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const tenant = this.tenant(key);
    // The slot is taken as the request is admitted (here, or by pump() before it wakes the
    // waiter), so that no two admissions of one tenant can pass the one-at-a-time rule together.
    const immediate = this.mayStart(tenant);
    if (immediate) this.admitted(tenant, immediate);
    const inShare = (immediate || (await this.wait(tenant, signal))) === 'in share';
    const started = this.probe.now();
    tenant.seenAt = started;
    try {
      return await work();
    } finally {
      const ended = this.probe.now();
      // Scaled to the reference time; the exponent is bounded so that a request running for
      // longer than any sweep interval cannot overflow it (sweeps rescale everything).
      const used = (ended - started) * 2 ** Math.min(500, (ended - this.reference) / this.options.halfLifeMs);
      tenant.use += used;
      this.total += used;
      tenant.inFlight--;
      if (inShare) this.inShare--;
      tenant.seenAt = ended;
      this.holdForTurn(tenant);
    }
  }

  /** Takes the slot of a request of `tenant` that starts now. */
  private admitted(tenant: Tenant, why: Admission): void {
    tenant.inFlight++;
    tenant.givingWaySince = undefined;
    if (why === 'in share') {
      this.inShare++;
      this.inShareStartedAt = this.probe.now();
    }
    this.holdForTurn(tenant);
  }

  /** Tenants known, for tests and metrics. */
  get size(): number {
    return this.tenants.size;
  }

  /** Stops sampling and refuses every waiting request (the process is shutting down). */
  close(): void {
    this.stopSampling();
    if (this.turn) clearImmediate(this.turn);
    this.turn = undefined;
    this.held.clear();
    for (const tenant of [...this.waiting])
      for (const waiter of [...tenant.queue])
        waiter.leave({ reason: 'waited_too_long', retryAfterSeconds: 1 });
  }

  private stopSampling(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private tenant(key: string): Tenant {
    const now = this.probe.now();
    let tenant = this.tenants.get(key);
    if (!tenant) {
      tenant = { inFlight: 0, use: 0, seenAt: now, queue: [], givingWaySince: undefined };
      this.tenants.set(key, tenant);
      this.active++;
    }
    // Seen now: a sweep before this request starts must not forget the tenant it belongs to.
    tenant.seenAt = now;
    return tenant;
  }

  /**
   * A few times a second at most: forgets tenants no longer active, counts those that are, and
   * rescales every use to now (so the scale never overflows). Everything else is O(1) per request,
   * however many tenants (client addresses) there are.
   */
  private sweep(now: number): void {
    if (now - this.sweptAt < this.options.activeMs / 4) return;
    const factor = 2 ** (-(now - this.reference) / this.options.halfLifeMs);
    let total = 0;
    let active = 0;
    for (const [key, t] of this.tenants) {
      if (t.inFlight === 0 && t.queue.length === 0 && now - t.seenAt > this.options.activeMs) {
        this.tenants.delete(key);
        continue;
      }
      t.use *= factor;
      total += t.use;
      active++;
    }
    this.total = total;
    this.active = active;
    this.reference = this.sweptAt = now;
  }

  /**
   * Whether a request of `tenant` may start now (its queue empty, or it is that queue's head), and
   * why: its tenant alone or within its share, or over its share and this is its turn.
   */
  private mayStart(tenant: Tenant, head = false): Admission | false {
    if (this.options.busyAbove >= 1) return 'in share';
    if (!head && tenant.queue.length > 0) return false;
    const now = this.probe.now();
    this.sweep(now);
    if (this.active <= 1) return 'in share';
    const share = this.total > 0 ? tenant.use / this.total : 0;
    if (share <= 1 / this.active) return 'in share';
    if (tenant.inFlight > 0 || this.held.has(tenant) || this.utilisation(now) >= this.options.busyAbove)
      return false;
    // Giving way to others' young requests in flight, for a bounded time.
    if (this.inShare === 0 || now - this.inShareStartedAt >= this.options.giveWayMs) return 'turn';
    tenant.givingWaySince ??= now;
    return now - tenant.givingWaySince >= this.options.giveWayMs ? 'turn' : false;
  }

  /** The event loop's utilisation over the last `sampleMs` or so. */
  private utilisation(now: number): number {
    if (now - this.sampledAt >= this.options.sampleMs) {
      this.busy = this.probe.utilisation();
      this.sampledAt = now;
    }
    return this.busy;
  }

  private wait(tenant: Tenant, signal: AbortSignal | undefined): Promise<Admission> {
    // Per tenant, and in all: each waiting request holds its (bounded) body in memory.
    if (tenant.queue.length >= this.options.maxQueued || this.queued >= this.options.maxQueued * 4)
      return Promise.reject({ reason: 'queue_full', retryAfterSeconds: 1 } satisfies Refusal);
    if (signal?.aborted) return Promise.reject({ reason: 'gone', retryAfterSeconds: 0 } satisfies Refusal);
    return new Promise<Admission>((admit, refuse) => {
      const leave = (refusal: Refusal) => {
        const at = tenant.queue.indexOf(waiter);
        if (at < 0) return;
        tenant.queue.splice(at, 1);
        if (tenant.queue.length === 0) this.waiting.delete(tenant);
        this.queued--;
        clearTimeout(waiter.timer);
        signal?.removeEventListener('abort', gone);
        refuse(refusal);
      };
      const gone = () => leave({ reason: 'gone', retryAfterSeconds: 0 });
      const waiter: Waiter = {
        admit: (why) => {
          signal?.removeEventListener('abort', gone);
          admit(why);
        },
        leave,
        timer: setTimeout(
          () => leave({ reason: 'waited_too_long', retryAfterSeconds: 1 }),
          this.options.maxWaitMs,
        ),
      };
      signal?.addEventListener('abort', gone, { once: true });
      tenant.queue.push(waiter);
      this.waiting.add(tenant);
      this.queued++;
      this.sampling();
    });
  }

  /** Samples the loop while anything waits, and lets waiting requests start when they may. */
  private sampling(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.pump();
      if (this.queued === 0) this.stopSampling();
    }, this.options.sampleMs);
    this.timer.unref();
  }

  /**
   * Holds `tenant`, when it is over its share, from starting anything until the event loop has
   * turned, then lets waiting requests start. Work that does no I/O (a refusal, a cached answer)
   * runs to its end in the turn it starts: without this, an over-share tenant's requests arriving
   * together, or each started as the one before ended, would run back to back in one stretch, and
   * every other tenant's I/O due meanwhile would wait behind all of them.
   */
  private holdForTurn(tenant: Tenant): void {
    this.held.add(tenant);
    this.turn ??= setImmediate(() => {
      this.turn = undefined;
      this.held.clear();
      this.pump();
    });
  }

  private pump(): void {
    if (this.queued === 0) return;
    // The least used first; over-share tenants are the only ones that wait, and they are few.
    const waiting = [...this.waiting].sort((a, b) => a.use - b.use);
    for (const tenant of waiting) {
      const why = this.mayStart(tenant, true);
      if (!why) continue;
      const waiter = tenant.queue.shift()!;
      if (tenant.queue.length === 0) this.waiting.delete(tenant);
      this.queued--;
      clearTimeout(waiter.timer);
      this.admitted(tenant, why);
      waiter.admit(why);
      // One start per tenant per turn: its share is reconsidered once this one has run.
    }
  }
}

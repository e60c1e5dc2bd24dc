import { afterEach, describe, expect, it } from 'vitest';
import { type FairnessOptions, FairScheduler, type LoopProbe, type Refusal } from './fairness.ts';

const OPTIONS: FairnessOptions = {
  busyAbove: 0.5,
  maxQueued: 4,
  maxWaitMs: 2_000,
  sampleMs: 5,
  activeMs: 1_000,
  halfLifeMs: 1_000,
  giveWayMs: 1_000,
};

/** A loop whose utilisation the test sets, and a clock that the jobs move on from real time. */
function loop(utilisation = 0.9) {
  const state = { utilisation, now: 0 };
  const probe: LoopProbe = {
    now: () => performance.now() + state.now,
    utilisation: () => state.utilisation,
  };
  return { state, probe };
}

/** A unit of work that ends when the test says so, having "run" `ms` on the fake clock. */
function job(state: { now: number }, ms: number) {
  let finish!: () => void;
  const done = new Promise<void>((r) => {
    finish = r;
  });
  let started = false;
  return {
    get started() {
      return started;
    },
    work: async () => {
      started = true;
      await done;
      state.now += ms;
      return 'ok';
    },
    finish: () => finish(),
  };
}

const tick = () => new Promise((r) => setTimeout(r, 20));

/** Makes `group:heavy` the tenant over its share: one request of 500 ms, then `group:light` one of 1 ms. */
async function heavyThenLight(s: FairScheduler, state: { now: number }) {
  for (const key of ['group:heavy', 'group:light']) {
    const j = job(state, key === 'group:heavy' ? 500 : 1);
    const r = s.run(key, j.work);
    j.finish();
    await r;
  }
}

describe('FairScheduler', () => {
  const schedulers: FairScheduler[] = [];
  const make = (probe: LoopProbe, options = OPTIONS) => {
    const s = new FairScheduler(options, probe);
    schedulers.push(s);
    return s;
  };
  afterEach(() => {
    for (const s of schedulers.splice(0)) s.close();
  });

  it('never holds a tenant that is alone, however busy the loop', async () => {
    const { state, probe } = loop(1);
    const s = make(probe);
    const jobs = Array.from({ length: 20 }, () => job(state, 50));
    const runs = jobs.map((j) => s.run('group:a', j.work));
    await tick();
    expect(jobs.every((j) => j.started)).toBe(true);
    for (const j of jobs) j.finish();
    expect(await Promise.all(runs)).toEqual(Array(20).fill('ok'));
  });

  it('runs a tenant over its share one request at a time while another is active and the loop is busy', async () => {
    const { state, probe } = loop(0.9);
    const s = make(probe);
    // The heavy tenant has used the process for a while; the light one has just arrived.
    for (let i = 0; i < 3; i++) {
      const j = job(state, 100);
      const r = s.run('group:heavy', j.work);
      j.finish();
      await r;
    }
    const light0 = job(state, 1);
    const first = s.run('group:light', light0.work);
    light0.finish();
    await first;

    // A burst of the heavy tenant while the loop is busy: none starts, four wait, four are refused.
    const burst = Array.from({ length: 8 }, () => job(state, 100));
    const outcomes = burst.map((j) =>
      s.run('group:heavy', j.work).then(
        () => 'ran',
        (e: Refusal) => e.reason,
      ),
    );
    await tick();
    expect(burst.filter((j) => j.started)).toHaveLength(0);

    // The light tenant is within its share: it starts at once, beside the heavy one's queue.
    const light = job(state, 1);
    const lightRun = s.run('group:light', light.work);
    await tick();
    expect(light.started).toBe(true);
    light.finish();
    await lightRun;

    // The loop quietens: the heavy tenant's queue drains one request at a time, in order.
    state.utilisation = 0.1;
    for (let n = 0; n < OPTIONS.maxQueued; n++) {
      await tick();
      expect(burst.filter((j) => j.started)).toHaveLength(n + 1);
      burst[n]!.finish();
    }
    const answers = await Promise.all(outcomes);
    expect(answers).toEqual([...Array(OPTIONS.maxQueued).fill('ran'), ...Array(4).fill('queue_full')]);
  });

  it("holds an over-share tenant's next request while another tenant's is in flight, for giveWayMs at most", async () => {
    // The loop is idle: only giving way holds the heavy tenant.
    const { state, probe } = loop(0.1);
    const s = make(probe, { ...OPTIONS, giveWayMs: 200 });
    await heavyThenLight(s, state);

    // The light tenant's request is in flight (waiting for its database, say).
    const light = job(state, 1);
    const lightRun = s.run('group:light', light.work);
    await tick();
    expect(light.started).toBe(true);

    // The heavy tenant's next request waits for it to end, and starts as soon as it has.
    const heavy = job(state, 100);
    const heavyRun = s.run('group:heavy', heavy.work);
    await tick();
    expect(heavy.started).toBe(false);
    light.finish();
    await lightRun;
    await tick();
    expect(heavy.started).toBe(true);
    heavy.finish();
    await heavyRun;

    // Giving way is bounded per request, from when it could otherwise start: the light tenant
    // starts a new request before its first is old, so a young one is always in flight; past
    // giveWayMs of giving way the heavy tenant's request starts beside them.
    const first = job(state, 1);
    const firstRun = s.run('group:light', first.work);
    const next = job(state, 100);
    const nextRun = s.run('group:heavy', next.work);
    await tick();
    expect(next.started).toBe(false);
    state.now += 150;
    const second = job(state, 1);
    const secondRun = s.run('group:light', second.work);
    await tick();
    expect(next.started).toBe(false);
    state.now += 100;
    await tick();
    expect(next.started).toBe(true);
    for (const j of [next, first, second]) j.finish();
    expect(await Promise.all([nextRun, firstRun, secondRun])).toEqual(['ok', 'ok', 'ok']);

    // Only young requests are given way to: one held open longer than giveWayMs (a slow export,
    // or a tenant keeping requests open to slow another) holds no one back. (The light tenant's
    // requests above ran across the clock's jumps: the heavy one runs more to stay over its share.)
    await tick();
    const more = job(state, 2_000);
    const moreRun = s.run('group:heavy', more.work);
    more.finish();
    await moreRun;
    await tick();
    const old = job(state, 1);
    const oldRun = s.run('group:light', old.work);
    state.now += 250;
    await tick();
    const after = job(state, 100);
    const afterRun = s.run('group:heavy', after.work);
    await tick();
    expect(after.started).toBe(true);
    after.finish();
    old.finish();
    expect(await Promise.all([afterRun, oldRun])).toEqual(['ok', 'ok']);
  });

  it('refuses a request that waited too long, and forgets one whose client left', async () => {
    const { state, probe } = loop(0.9);
    const s = make(probe, { ...OPTIONS, maxWaitMs: 50 });
    const warm = job(state, 100);
    const w = s.run('group:heavy', warm.work);
    warm.finish();
    await w;
    const other = job(state, 1);
    const o = s.run('group:light', other.work);
    other.finish();
    await o;

    // One request of the heavy tenant runs (the loop was quiet when it came), then it gets busy.
    state.utilisation = 0.1;
    const running = job(state, 100);
    const r = s.run('group:heavy', running.work);
    await tick();
    expect(running.started).toBe(true);
    state.utilisation = 0.9;
    const late = job(state, 1);
    const lateRun = s.run('group:heavy', late.work).catch((e: Refusal) => e.reason);
    const abort = new AbortController();
    const leaving = job(state, 1);
    const leavingRun = s.run('group:heavy', leaving.work, abort.signal).catch((e: Refusal) => e.reason);
    abort.abort();
    expect(await leavingRun).toBe('gone');
    expect(await lateRun).toBe('waited_too_long');
    expect(late.started || leaving.started).toBe(false);
    running.finish();
    await r;
  });

  it('admits everyone while the loop is not busy, whatever their shares', async () => {
    const { state, probe } = loop(0.1);
    const s = make(probe);
    await heavyThenLight(s, state);
    // Over its share, the heavy tenant still runs, one request at a time.
    const a = job(state, 10);
    const b = job(state, 10);
    const ra = s.run('group:heavy', a.work);
    const rb = s.run('group:heavy', b.work);
    await tick();
    expect([a.started, b.started]).toEqual([true, false]);
    a.finish();
    await ra;
    await tick();
    expect(b.started).toBe(true);
    b.finish();
    await rb;
  });

  it("lets the event loop turn between two of an over-share tenant's requests, however short", async () => {
    const { state, probe } = loop(0.1);
    const s = make(probe);
    await heavyThenLight(s, state);
    await tick();
    // Which iteration of the event loop it is (one step per check phase).
    let turn = 0;
    let counting = true;
    const count = () => {
      turn++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    // Requests that do no I/O (refusals, say), arriving together and each ending in the stretch
    // it started: no two start in the same iteration, so other tenants' I/O comes in between.
    const startedAt: number[] = [];
    await Promise.all(
      Array.from({ length: 4 }, () =>
        s.run('group:heavy', async () => {
          startedAt.push(turn);
          state.now += 10;
        }),
      ),
    );
    // Nor does one that arrives in the iteration in which the tenant's previous request ended.
    await tick();
    const before = turn;
    await s.run('group:heavy', async () => {
      state.now += 10;
    });
    const next = await new Promise<number>((resolve) => {
      void s.run('group:heavy', async () => resolve(turn));
    });
    expect(next).toBeGreaterThan(before);
    // A tenant within its share is not held: two of the light tenant's start in one iteration.
    const light: number[] = [];
    await Promise.all([0, 1].map(() => s.run('group:light', async () => void light.push(turn))));
    counting = false;
    expect(startedAt).toHaveLength(4);
    for (let i = 1; i < startedAt.length; i++) expect(startedAt[i]).toBeGreaterThan(startedAt[i - 1]!);
    expect(light).toHaveLength(2);
    expect(light[0]).toBe(light[1]);
  });

  it('forgets tenants once inactive, so many client addresses cost no lasting memory', async () => {
    const { state, probe } = loop(0.9);
    const s = make(probe);
    for (let i = 0; i < 5_000; i++) {
      const j = job(state, 0);
      const r = s.run(`address:198.51.${i >> 8}.${i & 255}`, j.work);
      j.finish();
      await r;
    }
    expect(s.size).toBe(5_000);
    // A second later, the next request sweeps them out; only its own tenant remains.
    state.now += OPTIONS.activeMs + 1;
    const j = job(state, 0);
    const r = s.run('group:calm', j.work);
    j.finish();
    await r;
    expect(s.size).toBe(1);
  });

  it('with busyAbove 1 is off', async () => {
    const { state, probe } = loop(1);
    const s = make(probe, { ...OPTIONS, busyAbove: 1 });
    const heavy = job(state, 1_000);
    const h = s.run('group:heavy', heavy.work);
    heavy.finish();
    await h;
    const jobs = Array.from({ length: 10 }, () => job(state, 10));
    const runs = [
      s.run('group:light', jobs[0]!.work),
      ...jobs.slice(1).map((j) => s.run('group:heavy', j.work)),
    ];
    await tick();
    expect(jobs.every((j) => j.started)).toBe(true);
    for (const j of jobs) j.finish();
    await Promise.all(runs);
  });
});

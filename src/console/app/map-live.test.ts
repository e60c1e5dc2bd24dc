import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Coalescer, MOST_WAIT_MS, QUIET_MS } from './map-live.ts';

/** A task that counts its runs, and how many ran at once; each run ends when `finish` is called. */
function counted() {
  const state = { runs: 0, running: 0, most: 0, finishers: [] as (() => void)[] };
  const task = () => {
    state.runs += 1;
    state.running += 1;
    state.most = Math.max(state.most, state.running);
    return new Promise<void>((resolve) => {
      state.finishers.push(() => {
        state.running -= 1;
        resolve();
      });
    });
  };
  const finish = async () => {
    for (const f of state.finishers.splice(0)) f();
    await vi.advanceTimersByTimeAsync(0);
  };
  return { state, task, finish };
}

describe('asking the map again after changes', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('asks once for a burst of a thousand changes, after they pause', async () => {
    const { state, task, finish } = counted();
    const asks = new Coalescer(task);
    for (let i = 0; i < 1000; i++) asks.poke();
    await vi.advanceTimersByTimeAsync(QUIET_MS - 1);
    expect(state.runs).toBe(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(state.runs).toBe(1);
    await finish();
    await vi.advanceTimersByTimeAsync(10 * QUIET_MS);
    expect(state.runs).toBe(1);
  });

  it('asks while changes keep coming, at most once a second, one ask at a time with one queued', async () => {
    const { state, task, finish } = counted();
    const asks = new Coalescer(task);
    // A change every 50 ms for 5 s, each ask answered 300 ms after it was made.
    for (let t = 0; t < 5_000; t += 50) {
      asks.poke();
      await vi.advanceTimersByTimeAsync(50);
      if (state.running > 0 && t % 300 === 0) await finish();
    }
    await finish();
    await vi.advanceTimersByTimeAsync(MOST_WAIT_MS);
    await finish();
    expect(state.most).toBe(1);
    expect(state.runs).toBeGreaterThanOrEqual(3);
    expect(state.runs).toBeLessThanOrEqual(5_000 / MOST_WAIT_MS + 2);
  });

  it('queues one ask more for changes made while one runs, and none after it is closed', async () => {
    const { state, task, finish } = counted();
    const asks = new Coalescer(task);
    asks.poke();
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(state.runs).toBe(1);
    for (let i = 0; i < 50; i++) asks.poke();
    await vi.advanceTimersByTimeAsync(5 * QUIET_MS);
    expect(state.runs).toBe(1);
    await finish();
    await vi.advanceTimersByTimeAsync(QUIET_MS);
    expect(state.runs).toBe(2);
    await finish();
    asks.poke();
    asks.close();
    await vi.advanceTimersByTimeAsync(5 * QUIET_MS);
    expect(state.runs).toBe(2);
  });
});

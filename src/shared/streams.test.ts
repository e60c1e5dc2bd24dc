import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ownedStream, type StreamEnd, StreamIdleError } from './streams.ts';

const chunk = (n: number) => new Uint8Array([n]);

/** A source that counts what it was asked for and whether its finally block ran (the connection). */
function counted(chunks = 5, options: { failAt?: number; slowMs?: number } = {}) {
  const seen = { started: false, produced: 0, released: 0 };
  async function* source() {
    seen.started = true;
    try {
      for (let i = 0; i < chunks; i++) {
        if (options.slowMs) await sleep(options.slowMs);
        if (i === options.failAt) throw new Error('source broke');
        seen.produced++;
        yield chunk(i);
      }
    } finally {
      seen.released++;
    }
  }
  return { seen, source: source() };
}

function recorder() {
  const ends: StreamEnd[] = [];
  return { ends, onEnd: (end: StreamEnd) => ends.push(end) };
}

// Every test here fails if an owned stream leaves a rejection nobody handles.
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeEach(() => {
  unhandled.length = 0;
  process.on('unhandledRejection', onUnhandled);
});
afterEach(async () => {
  await sleep(20);
  process.off('unhandledRejection', onUnhandled);
  expect(unhandled).toEqual([]);
});

describe('ownedStream', () => {
  it('streams every chunk in order, reads nothing ahead, and reports the end once', async () => {
    const { seen, source } = counted(3);
    const { ends, onEnd } = recorder();
    const reader = ownedStream({ source, onEnd, idleMs: 1000, firstByteMs: 1000 }).getReader();
    await sleep(10);
    expect(seen.started).toBe(false);
    expect((await reader.read()).value).toEqual(chunk(0));
    expect(seen.produced).toBe(1);
    expect((await reader.read()).value).toEqual(chunk(1));
    expect((await reader.read()).value).toEqual(chunk(2));
    expect((await reader.read()).done).toBe(true);
    expect(ends).toEqual([{ kind: 'done' }]);
    expect(seen.released).toBe(1);
  });

  it('releases the source once when the reader cancels part-way', async () => {
    const { seen, source } = counted(5);
    const { ends, onEnd } = recorder();
    const reader = ownedStream({ source, onEnd }).getReader();
    await reader.read();
    await reader.cancel(new Error('client went away'));
    expect(seen.released).toBe(1);
    expect(ends).toMatchObject([{ kind: 'aborted' }]);
    await reader.cancel().catch(() => {});
    expect(ends).toHaveLength(1);
  });

  it('ends when the request’s signal fires, even while a chunk is being made', async () => {
    const { seen, source } = counted(5, { slowMs: 50 });
    const { ends, onEnd } = recorder();
    const abort = new AbortController();
    const reader = ownedStream({ source, onEnd, signal: abort.signal }).getReader();
    const pending = reader.read();
    await sleep(10);
    abort.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(ends).toMatchObject([{ kind: 'aborted' }]);
    // The generator finished the chunk it was making, then ran its finally block.
    expect(seen.released).toBe(1);
  });

  it('never starts the source when the signal has already fired', async () => {
    const { seen, source } = counted();
    const { ends, onEnd } = recorder();
    const stream = ownedStream({ source, onEnd, signal: AbortSignal.abort() });
    await expect(stream.getReader().read()).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen.started).toBe(false);
    expect(ends).toMatchObject([{ kind: 'aborted' }]);
  });

  it('gives up on a reader that stops reading, and tells it if it comes back', async () => {
    const { seen, source } = counted(5);
    const { ends, onEnd } = recorder();
    const reader = ownedStream({ source, onEnd, idleMs: 30 }).getReader();
    await reader.read();
    await sleep(80);
    expect(ends).toEqual([{ kind: 'idle', waitingFor: 'next', ms: 30 }]);
    expect(seen.released).toBe(1);
    await expect(reader.read()).rejects.toBeInstanceOf(StreamIdleError);
  });

  it('gives up on a reader that never starts, before anything is read', async () => {
    const { seen, source } = counted(5);
    const { ends, onEnd } = recorder();
    ownedStream({ source, onEnd, firstByteMs: 20, idleMs: 10_000 });
    await sleep(60);
    expect(ends).toEqual([{ kind: 'idle', waitingFor: 'first', ms: 20 }]);
    expect(seen.started).toBe(false);
  });

  it('reports a failing source once and errors the reader with its error', async () => {
    const { seen, source } = counted(5, { failAt: 2 });
    const { ends, onEnd } = recorder();
    const reader = ownedStream({ source, onEnd }).getReader();
    await reader.read();
    await reader.read();
    await expect(reader.read()).rejects.toThrow('source broke');
    expect(ends).toMatchObject([{ kind: 'failed', error: { message: 'source broke' } }]);
    expect(seen.released).toBe(1);
  });

  it('closes instead of erroring in close mode, so a late cancel cannot reject', async () => {
    const { source } = counted(5, { failAt: 1 });
    const order: string[] = [];
    const stream = ownedStream({
      source,
      onBadEnd: 'close',
      onEnd: (end) => order.push(`end:${end.kind}`),
    });
    const reader = stream.getReader();
    await reader.read();
    const last = await reader.read();
    order.push(`read:${last.done}`);
    expect(order).toEqual(['end:failed', 'read:true']);
    // What the HTTP library does on a socket error: cancel without handling the promise.
    await expect(reader.cancel(new Error('socket hang up'))).resolves.toBeUndefined();
  });

  it('cancels an upstream body whose next chunk never comes', async () => {
    let cancelled: unknown;
    const upstream = new ReadableStream<Uint8Array>({
      pull: () => new Promise(() => {}),
      cancel: (reason) => {
        cancelled = reason;
      },
    });
    const { ends, onEnd } = recorder();
    const abort = new AbortController();
    const reader = ownedStream({ source: upstream, onEnd, signal: abort.signal }).getReader();
    const pending = reader.read();
    abort.abort(new Error('client left'));
    await expect(pending).rejects.toThrow('client left');
    expect(cancelled).toMatchObject({ message: 'client left' });
    expect(ends).toMatchObject([{ kind: 'aborted' }]);
  });

  it('reports nothing but the abort when the upstream failed with the same abort', async () => {
    // A fetched body errors when its request's signal fires, just before this owner hears it.
    const abort = new AbortController();
    let upstream!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({
      start: (c) => {
        upstream = c;
      },
    });
    abort.signal.addEventListener('abort', () => upstream.error(abort.signal.reason));
    const { ends, onEnd } = recorder();
    const logged: unknown[] = [];
    const reader = ownedStream({
      source: body,
      onEnd,
      signal: abort.signal,
      log: { error: (o: unknown) => logged.push(o) } as never,
    }).getReader();
    const pending = reader.read();
    abort.abort();
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    await sleep(10);
    expect(ends).toMatchObject([{ kind: 'aborted' }]);
    expect(logged).toEqual([]);
  });

  it('ends exactly once and releases once, whatever happens in whatever order', async () => {
    type Step = 'read' | 'cancel' | 'abort' | 'wait' | 'stall';
    const step = fc.constantFrom<Step>('read', 'read', 'read', 'cancel', 'abort', 'wait', 'stall');
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { maxLength: 12 }),
        fc.integer({ min: 0, max: 6 }),
        async (steps, fail) => {
          const { seen, source } = counted(5, { failAt: fail });
          const { ends, onEnd } = recorder();
          const abort = new AbortController();
          const reader = ownedStream({
            source,
            onEnd,
            signal: abort.signal,
            idleMs: 5,
            firstByteMs: 5,
          }).getReader();
          const pending: Promise<unknown>[] = [];
          for (const s of steps) {
            if (s === 'read') pending.push(reader.read().catch(() => {}));
            if (s === 'cancel') pending.push(reader.cancel().catch(() => {}));
            if (s === 'abort') abort.abort();
            if (s === 'wait') await sleep(1);
            if (s === 'stall') await sleep(12);
          }
          // However it went, end it the way a departing client does, and let everything settle.
          abort.abort();
          await Promise.all(pending);
          await sleep(15);
          expect(ends).toHaveLength(1);
          expect(seen.released).toBe(seen.started ? 1 : 0);
        },
      ),
      { numRuns: 60, seed: 20261124 },
    );
  });
});

import type { Readable } from 'node:stream';
import { Response } from '@whatwg-node/server';
import type { ExecutionResult } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ownEventStream } from '../../execution/event-stream.ts';
import { useEventStream } from './use-event-stream.ts';

/** The plugin's SSE answer to `results`, as the server adapter gets it: its Node stream. */
function answer(results: AsyncIterable<ExecutionResult>, heartbeatMs = 60_000): Readable {
  const plugin = useEventStream({ heartbeatMs });
  let processor: ((r: unknown, fetchAPI: { Response: typeof Response }) => Response) | undefined;
  (plugin.onResultProcess as (payload: unknown) => void)({
    request: new Request('http://localhost/api/graphql'),
    result: results,
    acceptableMediaTypes: ['text/event-stream'],
    setResultProcessor: (p: typeof processor) => {
      processor = p;
    },
  });
  const response = processor!(results, { Response });
  expect(response.headers.get('content-type')).toBe('text/event-stream');
  const body = response.body as unknown as Readable;
  expect(typeof body.read).toBe('function');
  // What the server hands to the socket as it is (src/server/listen.ts).
  expect(ownEventStream(body)).toBeDefined();
  return body;
}

async function text(body: Readable): Promise<string> {
  let all = '';
  for await (const chunk of body) all += String(chunk);
  return all;
}

/** A source of `count` events (endless without), counting what was asked of it. */
function source(count = Number.POSITIVE_INFINITY, failAt?: number) {
  const seen = { asked: 0, returned: false };
  const iterable: AsyncIterable<ExecutionResult> = {
    [Symbol.asyncIterator]: () => ({
      async next() {
        const i = seen.asked++;
        if (i === failAt) throw new Error('the source failed');
        if (i >= count) return { done: true, value: undefined };
        return { done: false, value: { data: { n: i }, extensions: { eventId: `c${i}` } } };
      },
      async return() {
        seen.returned = true;
        return { done: true, value: undefined };
      },
    }),
  };
  return { iterable, seen };
}

describe('the event stream body', () => {
  it('writes each event with its id, then complete', async () => {
    const { iterable } = source(3);
    const written = await text(answer(iterable));
    expect(written).toBe(
      ':\n\n' +
        'id: c0\nevent: next\ndata: {"data":{"n":0}}\n\n' +
        'id: c1\nevent: next\ndata: {"data":{"n":1}}\n\n' +
        'id: c2\nevent: next\ndata: {"data":{"n":2}}\n\n' +
        'event: complete\ndata:\n\n',
    );
  });

  it('asks its source for no more than a full buffer holds while nobody reads', async () => {
    const { iterable, seen } = source();
    const body = answer(iterable);
    body.read(0);
    await new Promise((r) => setTimeout(r, 100));
    // Each event is at least 40 bytes: what fills the stream's buffer (64 kB), not endless.
    expect(seen.asked).toBeGreaterThan(10);
    expect(seen.asked).toBeLessThan(body.readableHighWaterMark / 40 + 3);
    const before = seen.asked;
    await new Promise((r) => setTimeout(r, 100));
    expect(seen.asked).toBe(before);
    body.destroy();
  });

  it('lets its source go when the client goes (the adapter destroys the body)', async () => {
    const { iterable, seen } = source();
    const body = answer(iterable);
    body.read(0);
    await new Promise((r) => setTimeout(r, 20));
    body.destroy();
    await new Promise((r) => setTimeout(r, 20));
    expect(seen.returned).toBe(true);
    const asked = seen.asked;
    await new Promise((r) => setTimeout(r, 50));
    expect(seen.asked).toBe(asked);
  });

  it('is destroyed with the error when its source fails, after what came before', async () => {
    const { iterable } = source(Number.POSITIVE_INFINITY, 2);
    const body = answer(iterable);
    let written = '';
    body.on('data', (chunk) => {
      written += String(chunk);
    });
    const error = await new Promise<Error>((resolve) => body.once('error', resolve));
    expect(error.message).toBe('the source failed');
    expect(written).toContain('id: c1\n');
    expect(written).not.toContain('event: complete');
  });

  it('cuts a client that reads nothing for two heartbeats, and lets its source go', async () => {
    const { iterable, seen } = source();
    const body = answer(iterable, 30);
    // The first chunk is read, then nothing: the body fills and stays full.
    body.read(0);
    const error = await new Promise<Error>((resolve) => body.once('error', resolve));
    expect(error.message).toMatch(/read nothing/);
    expect(seen.returned).toBe(true);
  });

  it('keeps a client that reads, however slowly, and beats while idle', async () => {
    // An idle source: nothing but heartbeats, read as they come.
    const idle: AsyncIterable<ExecutionResult> = {
      [Symbol.asyncIterator]: () => ({
        next: () => new Promise(() => {}),
        return: async () => ({ done: true, value: undefined }),
      }),
    };
    const body = answer(idle, 20);
    let written = '';
    body.on('data', (chunk) => {
      written += String(chunk);
    });
    let failed = false;
    body.once('error', () => {
      failed = true;
    });
    await new Promise((r) => setTimeout(r, 150));
    expect(failed).toBe(false);
    expect(written.split(':\n\n').length).toBeGreaterThan(3);
    body.destroy();
  });
});

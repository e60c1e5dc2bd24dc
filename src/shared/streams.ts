import type { Logger } from './logger.ts';

/**
 * How an owned stream ended, reported once:
 * - `done`: the source ran out and the reader took the last chunk;
 * - `aborted`: the reader went away (it cancelled the stream, or the request's signal fired);
 * - `idle`: the reader did not ask for the first chunk within `firstByteMs`, or for the next one
 *   within `idleMs` of the last;
 * - `failed`: the source threw.
 */
export type StreamEnd =
  | { readonly kind: 'done' }
  | { readonly kind: 'aborted'; readonly reason: unknown }
  | { readonly kind: 'idle'; readonly waitingFor: 'first' | 'next'; readonly ms: number }
  | { readonly kind: 'failed'; readonly error: unknown };

export interface OwnedStreamOptions {
  /** What is streamed: read one chunk at a time, only when the reader asks for one. */
  source: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array>;
  /** The request's signal: when it fires the reader has gone, and the stream ends. */
  signal?: AbortSignal | null;
  /** How long the reader may take to ask for the first chunk @default no limit */
  firstByteMs?: number;
  /** How long the reader may take to ask for the next chunk after one @default no limit */
  idleMs?: number;
  /**
   * Runs exactly once, however the stream ends, after the source has let go of what it holds
   * (a database connection is back in its pool): the place to release a slot or count the end.
   * It must not throw; if it does, the error is logged and goes no further.
   */
  onEnd?: (end: StreamEnd) => void;
  /**
   * What a reader still reading sees when the stream ends badly (`idle`, `failed`, or `aborted`
   * by the signal), after `onEnd` has run:
   * - `error` (the default): the stream errors, so a cut-off file never looks complete;
   * - `close`: the stream just closes. Only for the HTTP server's own guard, whose `onEnd` has
   *   already cut the connection: an errored stream there would reach its HTTP library, which
   *   cancels it on a socket error without handling the rejection, and the process dies.
   */
  onBadEnd?: 'error' | 'close';
  /** Where a failure to release the source, or a throwing `onEnd`, is reported. */
  log?: Pick<Logger, 'error'>;
}

interface Source {
  next(): Promise<IteratorResult<Uint8Array> | ReadableStreamReadResult<Uint8Array>>;
  stop(reason: unknown): Promise<unknown>;
}

function sourceOf(source: OwnedStreamOptions['source']): Source {
  // Duck-typed: a Response body may be a ponyfill stream rather than Node's own.
  if (typeof (source as ReadableStream<Uint8Array>).getReader === 'function') {
    const reader = (source as ReadableStream<Uint8Array>).getReader();
    return {
      next: () => reader.read(),
      // cancel() settles a pending read at once, so an upstream that never answers does not hold
      // the end. A stream that has already failed (a fetch aborted with its request) rejects its
      // cancel with that failure: it holds nothing more, so there is nothing to report.
      stop: (reason) => reader.cancel(reason).catch(() => {}),
    };
  }
  const iterator = (source as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
  // return() runs the generator's finally blocks, which give back its connection; on a
  // generator still waiting for a chunk it runs once that chunk has come.
  return { next: () => iterator.next(), stop: async () => iterator.return?.() };
}

/**
 * A byte stream with an owner: the one place that ends a streamed response, whatever ends it
 * (the reader going away, the reader stalling, the source failing, the last chunk), and that
 * releases what it holds exactly once, with no rejection or error left for nobody to hear.
 *
 * Nothing is read from the source until the reader asks (no read-ahead). On a bad end the
 * source is stopped (an async generator's `return()`, a stream's `cancel()`), then `onEnd`
 * runs, then the reader learns of it (see `onBadEnd`). Timers are unref'd: a stalled download
 * never keeps a stopping process alive.
 */
export function ownedStream(options: OwnedStreamOptions): ReadableStream<Uint8Array> {
  const source = sourceOf(options.source);
  const { signal, firstByteMs, idleMs, log } = options;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let ended = false;
  let finished: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;

  const report = (end: StreamEnd) => {
    try {
      options.onEnd?.(end);
    } catch (err) {
      log?.error({ err }, 'a stream’s end handler failed');
    }
  };

  /** Ends the stream once; `tell` says whether a reader may still be waiting to hear of it. */
  const finish = (end: StreamEnd, tell: boolean): Promise<void> => {
    if (ended) return finished;
    ended = true;
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
    if (end.kind === 'done') {
      controller.close();
      report(end);
      return finished;
    }
    const why = end.kind === 'failed' ? end.error : end.kind === 'aborted' ? end.reason : idleError(end);
    finished = source
      .stop(why)
      .catch((err: unknown) => log?.error({ err }, 'a stream’s source failed to stop'))
      .then(() => {
        report(end);
        if (!tell) return;
        try {
          if (options.onBadEnd === 'close') controller.close();
          else controller.error(why);
        } catch (e) {
          // The reader cancelled meanwhile (the controller then refuses with a TypeError): there
          // is nobody left to tell.
          if (!(e instanceof TypeError)) throw e;
        }
      });
    return finished;
  };

  const arm = (waitingFor: 'first' | 'next', ms: number | undefined) => {
    if (ms === undefined || !Number.isFinite(ms)) return;
    timer = setTimeout(() => void finish({ kind: 'idle', waitingFor, ms }, true), ms);
    timer.unref();
  };

  function onAbort() {
    void finish({ kind: 'aborted', reason: signal?.reason }, true);
  }

  return new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        if (signal?.aborted) return void finish({ kind: 'aborted', reason: signal.reason }, true);
        signal?.addEventListener('abort', onAbort, { once: true });
        arm('first', firstByteMs);
      },
      async pull(c) {
        if (ended) return;
        clearTimeout(timer);
        let next: IteratorResult<Uint8Array> | ReadableStreamReadResult<Uint8Array>;
        try {
          next = await source.next();
        } catch (error) {
          await finish({ kind: 'failed', error }, true);
          return;
        }
        // Ended while the chunk was coming (the reader left, or the signal fired): drop it.
        if (ended) return;
        if (next.done) {
          await finish({ kind: 'done' }, true);
          return;
        }
        c.enqueue(next.value);
        arm('next', idleMs);
      },
      cancel(reason) {
        // The reader has gone: nobody to tell. Never rejects, so a cancel nobody awaits is safe.
        return finish({ kind: 'aborted', reason }, false);
      },
    },
    // Nothing is read ahead: the source produces only what the reader asks for.
    { highWaterMark: 0 },
  );
}

function idleError(end: Extract<StreamEnd, { kind: 'idle' }>): Error {
  return new StreamIdleError(
    end.waitingFor === 'first'
      ? `the reader did not start reading within ${end.ms} ms`
      : `the reader stopped reading for ${end.ms} ms`,
  );
}

/** What a reader still holding an idle stream is told. */
export class StreamIdleError extends Error {
  override name = 'StreamIdleError';
}

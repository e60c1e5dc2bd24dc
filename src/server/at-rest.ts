import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** How long without a request before the process gives back what its last burst grew. */
const IDLE_MS = 30_000;

/**
 * What a server gives back when it rests. V8 grows the young generation to its bound
 * (`--max-semi-space-size`, 2 × 16 MB) under load and keeps it resident after: at rest after a
 * start, a third of the JavaScript heap's memory held no object. One full collection shrinks it
 * to a page; it grows back within a few requests when work comes. So: once when the start is
 * done, and once each time the process has gone `IDLE_MS` without a request after having
 * served some (docs/performance.md, "Memory at rest"). Nothing is collected while requests come.
 */
export class AtRest {
  readonly #collect = collector();
  #served = false;
  #timer: NodeJS.Timeout | undefined;
  #quietSince = Date.now();

  /** Notes a request: the process is not at rest. */
  touch(): void {
    this.#served = true;
    this.#quietSince = Date.now();
  }

  /** Collects now, then whenever the process comes to rest after serving. */
  start(): void {
    this.#collect();
    this.#timer = setInterval(() => {
      if (!this.#served || Date.now() - this.#quietSince < IDLE_MS) return;
      this.#served = false;
      this.#collect();
    }, IDLE_MS / 3);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}

/** V8's own full collection, made callable without starting Node with `--expose-gc`. */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  return () => gc();
}

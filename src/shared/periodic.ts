/**
 * Runs `work` every `everyMs` and once soon after the start (within a minute), never twice at once
 * in this process: {@link run} while a run is going joins it. The timers keep no process alive.
 */
export class PeriodicJob<T> {
  readonly #work: () => Promise<T>;
  readonly #timer: NodeJS.Timeout;
  readonly #first: NodeJS.Timeout;
  #running: Promise<T> | undefined;

  constructor(everyMs: number, work: () => Promise<T>) {
    this.#work = work;
    this.#timer = setInterval(() => void this.run(), everyMs);
    this.#timer.unref();
    this.#first = setTimeout(() => void this.run(), Math.min(everyMs, 60_000));
    this.#first.unref();
  }

  /** Runs now, unless a run is going here: then that run's outcome. */
  run(): Promise<T> {
    this.#running ??= this.#work().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  /** No more runs; resolves when the one going (if any) ends. */
  async close(): Promise<void> {
    clearInterval(this.#timer);
    clearTimeout(this.#first);
    await this.#running?.catch(() => {});
  }
}

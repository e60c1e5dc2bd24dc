/**
 * Runs a job's rounds one at a time (the webhook dispatcher's, the NATS relay's): a call while a
 * round runs asks for one more after it, however many calls came meanwhile.
 */
export class Rounds {
  readonly #round: () => Promise<void>;
  #running: Promise<void> | undefined;
  #again = false;
  #stopped = false;

  constructor(round: () => Promise<void>) {
    this.#round = round;
  }

  /** A round now, or right after the one under way. */
  run(): void {
    if (this.#stopped) return;
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = (async () => {
      do {
        this.#again = false;
        await this.#round();
      } while (this.#again && !this.#stopped);
    })().finally(() => {
      this.#running = undefined;
    });
  }

  /** Waits for the round under way. */
  async settled(): Promise<void> {
    await this.#running;
  }

  /** Runs no more rounds; waits for the one under way. */
  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#running;
  }
}

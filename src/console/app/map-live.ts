// The map kept up to date: the profile's asset changes followed (live.ts, one stream a page), and
// the viewport shown asked for again once they pause — created, moved, changed, deleted or
// restored assets drawn where they now are, the reader's place, zoom and selection kept. A burst
// of changes asks a handful of times, never once a change: the asks are coalesced, one at a time.
import { SessionEndedError } from './api.ts';
import { h } from './dom.ts';
import { ChangeStream, LIVE_TEXT } from './live.ts';
import type { ViewContext } from './view.ts';

/** How long the map waits for more changes before it asks again. */
export const QUIET_MS = 250;
/** The longest it waits after the first change not yet drawn, however fast they keep coming. */
export const MOST_WAIT_MS = 1_000;

/**
 * Runs `task` once calls to {@link Coalescer.poke} pause for `quiet` ms (or `most` ms after the
 * first poke not yet served), never two at once: a poke while it runs queues one run more, which
 * waits its own pause after it. A thousand pokes in a burst make a few runs.
 */
export class Coalescer {
  readonly #task: () => Promise<void>;
  readonly #quiet: number;
  readonly #most: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** When the first poke not yet served came (`Date.now()`), or null. */
  #since: number | null = null;
  #running = false;
  #queued = false;
  #closed = false;

  constructor(task: () => Promise<void>, quiet = QUIET_MS, most = MOST_WAIT_MS) {
    this.#task = task;
    this.#quiet = quiet;
    this.#most = most;
  }

  poke(): void {
    if (this.#closed) return;
    if (this.#running) {
      this.#queued = true;
      return;
    }
    const now = Date.now();
    this.#since ??= now;
    clearTimeout(this.#timer);
    const wait = Math.max(0, Math.min(this.#quiet, this.#since + this.#most - now));
    this.#timer = setTimeout(() => void this.#run(), wait);
  }

  /** No more runs; one running finishes. */
  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  async #run(): Promise<void> {
    this.#since = null;
    this.#running = true;
    try {
      await this.#task();
    } finally {
      this.#running = false;
      if (this.#queued) {
        this.#queued = false;
        this.poke();
      }
    }
  }
}

export interface LiveMap {
  /** The line that says whether the map is live. */
  status: HTMLElement;
  /** Call before the map first asks: changes from then on are followed. */
  begin(): Promise<void>;
  /** Starts following (once the map is drawn). */
  start(): void;
}

/** Follows the asset changes of `profile`, calling `redraw` (coalesced) after them, until the page is left. */
export function liveMap(ctx: ViewContext, profile: string, redraw: () => Promise<void>): LiveMap {
  const status = h('p', { class: 'live', id: 'live-status' }, LIVE_TEXT.connecting);
  const asks = new Coalescer(redraw);
  ctx.signal.addEventListener('abort', () => asks.close(), { once: true });
  const stream = new ChangeStream({
    api: ctx.api,
    filter: { entities: ['ASSET'], profiles: [profile] },
    signal: ctx.signal,
    onChange: () => asks.poke(),
    onGap: () => asks.poke(),
    onState: (state) => {
      status.textContent = LIVE_TEXT[state];
    },
    onSessionEnded: () => ctx.fail(new SessionEndedError()),
  });
  return { status, begin: () => stream.begin(), start: () => stream.start() };
}

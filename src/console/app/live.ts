// Live updates: the group's change log followed over GraphQL over SSE (docs/events.md,
// "Subscriptions"), one stream a page. The stream starts after the newest change there was before
// the page read its data, so nothing made in between is missed; after a dropped connection it
// resumes from the last cursor read, waiting longer after each failure (1 s, 2 s, 4 s… at most
// 30 s, with jitter); it ends when the page is left (the page's signal), which sign-out and a
// group switch do too.
import { type Api, isAbort, SessionEndedError } from './api.ts';
import { SESSION_CHECK } from './documents.ts';
import { SseParser } from './sse.ts';

/** Which changes a page follows (`ChangeFilter`). */
export interface ChangeFilter {
  entities?: string[];
  kinds?: string[];
  profiles?: string[];
  ids?: string[];
}

/** A change as the console reads it from the stream and from `Asset.history`. */
export interface ChangeEvent {
  cursor: string;
  kind: string;
  entityId: string | null;
  version: number;
  at: string;
  actor: { kind: string; name: string } | null;
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

export const CHANGE_FIELDS = 'cursor kind entityId version at actor { kind name } before after';

export const CHANGES_SUBSCRIPTION = `subscription ConsoleChanges($filter: ChangeFilter, $after: String) {
  changes(filter: $filter, after: $after) { ${CHANGE_FIELDS} }
}`;

export const NEWEST_CHANGE = `query ConsoleNewestChange($filter: ChangeFilter) {
  changes(filter: $filter, first: 1) { edges { cursor } }
}`;

export type LiveState = 'connecting' | 'live' | 'reconnecting' | 'stopped';

/** What a page's status line says of its stream. */
export const LIVE_TEXT: Record<LiveState, string> = {
  connecting: 'Connecting to live updates…',
  live: 'Live: changes show as they are made.',
  reconnecting: 'Live updates interrupted; reconnecting…',
  stopped: 'Live updates stopped.',
};

export interface LiveOptions {
  api: Api;
  filter: ChangeFilter;
  /** The page's: its abort ends the stream. */
  signal: AbortSignal;
  onChange(change: ChangeEvent): void;
  onState?(state: LiveState): void;
  /** The log could not be followed from the last cursor (retention passed it): read everything again. */
  onGap?(): void;
  /** The session has ended (checked with the API, not only said by the stream). */
  onSessionEnded(): void;
  /** The first wait and the longest @default 1000, 30000 */
  delays?: { first: number; max: number };
  random?: () => number;
}

/** How long to wait before attempt `attempt` (0-based) again: doubling to `max`, half of it random. */
export function backoff(attempt: number, first = 1_000, max = 30_000, random: () => number = Math.random) {
  const ceiling = Math.min(max, first * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** What to do once a connection is over. */
type Next = 'backoff' | 'now' | 'stop';

/** A connection that stayed up this long was not a failure: the next wait starts short again. */
const HEALTHY_MS = 60_000;

export class ChangeStream {
  readonly #options: LiveOptions;
  #cursor: string | null = null;
  #attempt = 0;
  #running = false;
  /** Changes read so far, over every connection. */
  #read = 0;

  constructor(options: LiveOptions) {
    this.#options = options;
  }

  /** The last change read (or the starting point), as `after:` takes it. */
  get cursor(): string | null {
    return this.#cursor;
  }

  /**
   * Reads the newest change's cursor, to start from: call it before the page reads what it shows.
   * A failure leaves the stream to start at the log's end (the page's own request says why).
   */
  async begin(): Promise<void> {
    const { api, filter, signal } = this.#options;
    try {
      const data = await api.request<{ changes: { edges: { cursor: string }[] } }>(
        NEWEST_CHANGE,
        { filter },
        signal,
      );
      this.#cursor = data.changes.edges[0]?.cursor ?? null;
    } catch (e) {
      if (isAbort(e)) return;
      this.#cursor = null;
    }
  }

  /** Opens the stream (once), to run until the page's signal aborts. */
  start(): void {
    if (this.#running || this.#options.signal.aborted) return;
    this.#running = true;
    void this.#run();
  }

  async #run(): Promise<void> {
    const { signal, onState, delays, random } = this.#options;
    while (!signal.aborted) {
      onState?.(this.#attempt === 0 ? 'connecting' : 'reconnecting');
      const opened = Date.now();
      const read = this.#read;
      let next: Next;
      try {
        next = await this.#connect();
      } catch (e) {
        if (isAbort(e) || signal.aborted) return;
        if (e instanceof SessionEndedError) next = await this.#sessionEnded();
        else next = 'backoff';
      }
      if (signal.aborted) return;
      if (next === 'stop') {
        onState?.('stopped');
        return;
      }
      if (Date.now() - opened >= HEALTHY_MS) this.#attempt = 0;
      // Again at once only after a connection that delivered something: never a loop of refusals.
      if (next === 'now' && this.#read === read) next = 'backoff';
      if (next === 'backoff') {
        onState?.('reconnecting');
        await sleep(backoff(this.#attempt, delays?.first, delays?.max, random), signal);
        this.#attempt += 1;
      }
    }
  }

  /** One connection, read to its end. */
  async #connect(): Promise<Next> {
    const { api, filter, signal, onState } = this.#options;
    const body = await api.stream(CHANGES_SUBSCRIPTION, { filter, after: this.#cursor }, signal);
    onState?.('live');
    const reader = body.getReader();
    const decoder = new TextDecoder();
    const parser = new SseParser();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return 'backoff';
        for (const event of parser.push(decoder.decode(value, { stream: true }))) {
          if (event.event === 'complete') return 'backoff';
          if (event.event !== 'next') continue;
          const next = await this.#event(event.id, event.data);
          if (next) return next;
        }
      }
    } finally {
      void reader.cancel().catch((e: unknown) => {
        if (!isAbort(e)) console.debug('live updates: closing the stream', e);
      });
    }
  }

  /** A `next` event: a change, or the error that ends the stream. */
  async #event(id: string | undefined, data: string): Promise<Next | null> {
    let result: {
      data?: { changes?: ChangeEvent | null } | null;
      errors?: { message: string; extensions?: { code?: string; cursor?: string } }[];
    };
    try {
      result = JSON.parse(data) as typeof result;
    } catch (e) {
      if (!(e instanceof SyntaxError)) throw e;
      return 'backoff';
    }
    const change = result.data?.changes;
    if (change) {
      this.#cursor = id ?? change.cursor;
      this.#attempt = 0;
      this.#read += 1;
      this.#options.onChange(change);
      return null;
    }
    const error = result.errors?.[0];
    switch (error?.extensions?.code) {
      case 'SESSION_ENDED':
      case 'UNAUTHENTICATED':
        return this.#sessionEnded();
      case 'SLOW_CONSUMER':
        this.#cursor = error.extensions.cursor ?? this.#cursor;
        return 'now';
      case 'CURSOR_EXPIRED':
        await this.begin();
        this.#options.onGap?.();
        return 'now';
      default:
        // SHUTTING_DOWN, TOO_MANY_STREAMS, anything else: try again later from the last cursor.
        return 'backoff';
    }
  }

  /** The stream says the session ended: the API is asked, as the stream may end just before a sign-out does. */
  async #sessionEnded(): Promise<Next> {
    const { api, signal } = this.#options;
    try {
      const data = await api.request<{ session: { authenticated: boolean } | null }>(
        SESSION_CHECK,
        {},
        signal,
      );
      if (data.session?.authenticated) return 'backoff';
    } catch (e) {
      if (isAbort(e)) return 'stop';
      if (!(e instanceof SessionEndedError)) return 'backoff';
    }
    if (!signal.aborted) this.#options.onSessionEnded();
    return 'stop';
  }
}

/** Waits `ms`, or less when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

import { GraphQLError } from 'graphql';
import type { Identity } from '../../shared/identity.ts';
import { EVENT_ID } from '../../shared/subgraph.ts';
import { before, type ChangeRow, type ChangeSelection, type Start } from './changes.repository.ts';
import { encodePosition, type Position, type Snapshot, seenIn } from './cursor.ts';
import { SLOW_CONSUMER } from './error-codes.ts';

/** Entries replayed at once. */
export const PAGE = 500;

/** What a stream asks of the feed that serves it (feed.ts). */
export interface StreamHost {
  /** Joins the stream to its group's live tail. */
  attach(stream: Stream): Promise<void>;
  /** The stream ended: it is offered nothing more. */
  detach(stream: Stream): void;
  /** A page of the group's log after `after` that the selection keeps (at most PAGE entries). */
  replay(group: string, selection: ChangeSelection, after: Position | undefined): Promise<ChangeRow[]>;
}

/** A stream's last event: the error it ends with. */
export class StreamEnd {
  readonly error: GraphQLError;
  constructor(error: GraphQLError) {
    this.error = error;
  }
}

export type StreamEvent = ChangeRow | StreamEnd;

const DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

/**
 * One client's stream: the replay (when resuming), then what its tail offers, buffered up to a
 * bound until its client reads it, delivered only past the last entry it delivered. Not an async
 * generator: one waiting on the database could not be ended until the wait is over, and a client
 * that goes away must let go of everything at once.
 */
export class Stream implements AsyncIterableIterator<StreamEvent> {
  readonly group: string;
  readonly holder: string;
  #queue: ChangeRow[] = [];
  #head = 0;
  /** The last entry delivered, or where the stream started. */
  #last: Position | undefined;
  /** Replaying: the page being delivered and where in it; null once live. */
  #page: ChangeRow[] | null = null;
  #at = 0;
  /** Replay pages left before joining the tail (`first`), or after joining (`seam`). */
  #phase: 'replay' | 'seam' | 'live';
  /** Opened without a cursor: what a reader could see as it opened, which it does not deliver. */
  #seen: Snapshot | undefined;
  #end: StreamEnd | undefined;
  #done = false;
  #waiter: (() => void) | undefined;
  readonly feed: StreamHost;
  readonly identity: Identity & { userGroup: string };
  readonly selection: ChangeSelection;
  readonly buffer: number;

  constructor(
    feed: StreamHost,
    identity: Identity & { userGroup: string },
    selection: ChangeSelection,
    after: Position | undefined,
    buffer: number,
  ) {
    this.feed = feed;
    this.identity = identity;
    this.selection = selection;
    this.buffer = buffer;
    this.group = identity.userGroup;
    this.holder = holderOf(identity);
    this.#last = after;
    this.#phase = after ? 'replay' : 'live';
  }

  /**
   * Opened without a cursor, at `start`: it delivers what comes after that position, but not what
   * the start's snapshot saw, committed before it opened behind a transaction still running.
   */
  opened(start: Start): void {
    this.#last = start.position;
    this.#seen = start.snapshot;
  }

  /** Ended, or ending: offered nothing more. */
  get done(): boolean {
    return this.#done || this.#end !== undefined;
  }

  [Symbol.asyncIterator]() {
    return this;
  }

  /**
   * Joined the tail at `position`. A stream opened now whose tail has read past where it started
   * reads that stretch once more, as a resuming one does at its seam; the tail offers the rest.
   */
  joined(position: Position | undefined): void {
    if (this.#phase === 'live' && position && (!this.#last || before(this.#last, position)))
      this.#phase = 'seam';
  }

  /** An entry of the group's log, as its tail read it. */
  offer(row: ChangeRow): void {
    if (this.#done || this.#end || !keeps(this.selection, row) || this.#seenAtStart(row)) return;
    if (this.#queue.length - this.#head >= this.buffer) {
      const at = this.#last ? { cursor: encodePosition(this.#last) } : {};
      this.end(
        new GraphQLError(
          `The stream fell more than ${this.buffer} changes behind its client; resume from the last cursor read.`,
          { extensions: { code: SLOW_CONSUMER, limit: 'buffer', maximum: this.buffer, ...at } },
        ),
      );
      return;
    }
    this.#queue.push(row);
    this.#wake();
  }

  /** Ends the stream with `error` as its last event; what waited in its buffer is dropped. */
  end(error: GraphQLError): void {
    if (this.#done || this.#end) return;
    this.#end = new StreamEnd(error);
    this.#queue = [];
    this.#head = 0;
    this.#page = null;
    this.feed.detach(this);
    this.#wake();
  }

  async next(): Promise<IteratorResult<StreamEvent>> {
    for (;;) {
      if (this.#done) return DONE;
      if (this.#end) {
        const end = this.#end;
        this.#finish();
        return { done: false, value: end };
      }
      if (this.#page && this.#at < this.#page.length) {
        const row = this.#page[this.#at++]!;
        this.#last = row;
        if (this.#seenAtStart(row)) continue;
        return { done: false, value: identified(row) };
      }
      if (this.#phase !== 'live') {
        await this.#replayPage();
        continue;
      }
      while (this.#head < this.#queue.length) {
        const row = this.#queue[this.#head++]!;
        if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
          this.#queue = this.#queue.slice(this.#head);
          this.#head = 0;
        }
        if (this.#last && !before(this.#last, row)) continue;
        this.#last = row;
        return { done: false, value: identified(row) };
      }
      await new Promise<void>((resolve) => {
        this.#waiter = resolve;
      });
    }
  }

  return(): Promise<IteratorResult<StreamEvent>> {
    this.#finish();
    return Promise.resolve(DONE);
  }

  throw(): Promise<IteratorResult<StreamEvent>> {
    return this.return();
  }

  async #replayPage(): Promise<void> {
    try {
      const rows = await this.feed.replay(this.group, this.selection, this.#last);
      if (this.#done || this.#end) return;
      this.#page = rows;
      this.#at = 0;
      if (rows.length >= PAGE) return;
      // The replay caught up: join the tail, then read once more up to where it stands.
      if (this.#phase === 'replay') {
        this.#phase = 'seam';
        await this.feed.attach(this);
      } else this.#phase = 'live';
    } catch (e) {
      this.end(e instanceof GraphQLError ? e : replayFailed());
    }
  }

  /** Committed before the stream opened without a cursor: not for it. */
  #seenAtStart(row: ChangeRow): boolean {
    return this.#seen !== undefined && seenIn(this.#seen, row);
  }

  #wake(): void {
    const w = this.#waiter;
    this.#waiter = undefined;
    w?.();
  }

  #finish(): void {
    this.#done = true;
    this.#queue = [];
    this.#page = null;
    this.feed.detach(this);
    this.#wake();
  }
}

/** The entry with its cursor as its event's id (the SSE `id`), worked out once for every stream. */
function identified(row: ChangeRow): ChangeRow {
  const r = row as ChangeRow & { [EVENT_ID]?: string };
  r[EVENT_ID] ??= encodePosition(row);
  return r;
}

export function keeps(s: ChangeSelection, row: ChangeRow): boolean {
  return (
    (!s.entities || s.entities.includes(row.entity)) &&
    (!s.kinds || s.kinds.includes(row.kind)) &&
    (!s.profiles || s.profiles.includes(row.profile)) &&
    (!s.ids || s.ids.includes(row.entity_id))
  );
}

/** Streams are counted per session (or API key); an identity without one, per user. */
export function holderOf(identity: Identity): string {
  return identity.sessionHash ?? `user:${identity.userGroup}:${identity.username}`;
}

function replayFailed(): GraphQLError {
  return new GraphQLError('The change log could not be read; resume from the last cursor read.', {
    extensions: { code: 'SERVICE_UNAVAILABLE' },
  });
}

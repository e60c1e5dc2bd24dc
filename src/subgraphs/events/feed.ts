import type { Kysely } from 'kysely';
import { ClientGoneError } from '../../shared/errors.ts';
import type { Identity } from '../../shared/identity.ts';
import type { Logger } from '../../shared/logger.ts';
import type { ChangeNotices } from '../../storage/change-notices.ts';
import type { TableWrites } from '../../storage/table-writes.ts';
import type { Tables } from '../../storage/tables.ts';
import {
  type ChangeRow,
  type ChangeSelection,
  listChanges,
  oldestRunning,
  readTail,
  type Start,
  startOf,
  tailOf,
} from './changes.repository.ts';
import type { Position } from './cursor.ts';
import { sessionEnded, shuttingDown, tooManyStreams } from './error-codes.ts';
import { holderOf, PAGE, Stream, type StreamEvent, type StreamHost } from './stream.ts';

export { keeps, StreamEnd, type StreamEvent } from './stream.ts';

/** The channel the change log's triggers notify on, with the group as payload (migration 20261128T0100). */
export const CHANGES_CHANNEL = 'assetql_changes';

/** The tables whose writes the log records: a write of this process's own wakes the feed at once. */
export const LOGGED_TABLES = [
  'assets',
  'asset_profiles',
  'asset_profile_extensions',
  'asset_views',
  'asset_filters',
  'asset_conversions',
  'asset_downloads',
] as const;

/** How many streams may be open at once, and how far one may fall behind (docs/security.md). */
export interface StreamLimits {
  /** Streams one session (or API key) holds open in this process @default 20 */
  perSession: number;
  /** Streams one group holds open in this process @default 2000 */
  perGroup: number;
  /** Changes waiting for a stream's client before the stream is ended (SLOW_CONSUMER) @default 1000 */
  buffer: number;
}

export const DEFAULT_STREAM_LIMITS: StreamLimits = { perSession: 20, perGroup: 2000, buffer: 1000 };

export interface ChangeFeedOptions {
  db: Kysely<Tables>;
  log: Logger;
  /** Whether a stream's session still stands, for the same user and group (auth's rule). */
  standing(identity: Identity): Promise<boolean>;
  /** The database's notices (PostgreSQL): each group's tail is read as its changes commit. */
  notices?: ChangeNotices;
  /** This process's own writes: what it writes is read at once, notices or not. */
  writes?: TableWrites;
  limits?: Partial<StreamLimits>;
  /** How often a tail is read when nothing says it changed, without notices @default 250 */
  pollMs?: number;
  /** How often streams' sessions are checked @default 500 */
  checkMs?: number;
  /** How often a tail held back by a running transaction is read when no notice comes @default 100 */
  heldReadMs?: number;
}

/** Without a word of a change (a lost notice), a tail is read this often anyway, notices or not. */
const SAFETY_READ_MS = 5_000;
const TICK_MS = 100;
/** Held tails are read again after a notice at most this often, however many notices come. */
const HELD_AFTER_NOTICE_MS = 5;

/**
 * Live streams of the change log (docs/events.md, "Subscriptions"). Each group with an open stream
 * has one tail here, read oldest first as a resuming reader reads the log (only entries of
 * transactions older than every one still running: nothing can later appear behind what was
 * read), when the database says the group's log grew, when this process wrote, when a read found
 * entries held back by a running transaction (after any group's notice, since the transaction
 * holding them may be the one that just committed, and every 100 ms, each time only once the
 * oldest running transaction has moved), and every 250 ms without notices (5 s with). Each entry
 * read is offered to the group's streams, whose filters keep what they asked for: one read for
 * every stream of a group, whatever their number.
 *
 * A stream that resumes from a cursor replays the log after it by pages, as its client reads
 * them, then joins its group's tail and reads once more up to it, delivering only what comes
 * after the last entry it delivered: no gap and no duplicate at the seam. A stream opened without
 * one starts where a resuming reader then stood and keeps the snapshot of its opening: what that
 * saw committed before it opened, even where a transaction still running held it past that
 * position, and is not delivered; everything committed after is.
 */
export class ChangeFeed implements StreamHost {
  readonly #db: Kysely<Tables>;
  readonly #log: Logger;
  readonly #limits: StreamLimits;
  readonly #standing: ChangeFeedOptions['standing'];
  readonly #pollMs: number;
  readonly #heldReadMs: number;
  /** A pass over the held tails: set to follow the notices that came, and whether one runs. */
  #heldPass: NodeJS.Timeout | undefined;
  #heldPassAt = 0;
  #passing = false;
  readonly #passes = new Set<'notice' | 'tick'>();
  readonly #tails = new Map<string, Tail>();
  readonly #streams = new Set<Stream>();
  readonly #timers: NodeJS.Timeout[];
  readonly #unwatch: (() => void)[] = [];
  #live = false;
  #checking = false;
  #closed = false;

  constructor(options: ChangeFeedOptions) {
    this.#db = options.db;
    this.#log = options.log;
    this.#limits = { ...DEFAULT_STREAM_LIMITS, ...options.limits };
    this.#standing = options.standing;
    this.#pollMs = options.pollMs ?? 250;
    this.#heldReadMs = options.heldReadMs ?? 100;
    if (options.notices)
      this.#unwatch.push(
        options.notices.subscribe(CHANGES_CHANNEL, {
          notice: (group) => {
            const tail = group ? this.#tails.get(group) : undefined;
            if (tail) void this.#read(tail);
            else if (!group) this.#readAll();
            // A tail waits for every older transaction, of any group: the one that just
            // committed may have held others' tails.
            this.#readHeldSoon();
          },
          live: (live) => {
            this.#live = live;
            // Heard again: what was said while deaf is read now.
            if (live) this.#readAll();
          },
        }),
      );
    if (options.writes) this.#unwatch.push(options.writes.watch(LOGGED_TABLES, () => this.#readAll()));
    this.#timers = [
      setInterval(() => this.#tick(), TICK_MS),
      setInterval(() => void this.#check(), options.checkMs ?? 500),
    ];
    for (const t of this.#timers) t.unref();
  }

  /** Another source says `group`'s log grew (the NATS relay's subject): its tail is read now. */
  heard(group: string): void {
    const tail = this.#tails.get(group);
    if (tail) void this.#read(tail);
  }

  /** How many streams are open in this process. */
  get size(): number {
    return this.#streams.size;
  }

  /**
   * A stream of `identity`'s group's changes that `selection` keeps, after `after` (replayed
   * first), or of those committed from now on. Refused past the stream limits.
   */
  async open(
    identity: Identity & { userGroup: string },
    selection: ChangeSelection,
    after: Position | undefined,
    signal?: AbortSignal,
  ): Promise<AsyncIterableIterator<StreamEvent>> {
    if (this.#closed) throw shuttingDown();
    // A client gone before its stream opened: not the server's fault.
    if (signal?.aborted) throw new ClientGoneError();
    const group = identity.userGroup;
    const holder = holderOf(identity);
    let ofHolder = 0;
    let ofGroup = 0;
    for (const s of this.#streams) {
      if (s.group === group) ofGroup++;
      if (s.holder === holder) ofHolder++;
    }
    if (ofHolder >= this.#limits.perSession) throw tooManyStreams('perSession', this.#limits.perSession);
    if (ofGroup >= this.#limits.perGroup) throw tooManyStreams('perGroup', this.#limits.perGroup);
    const stream = new Stream(this, identity, selection, after, this.#limits.buffer);
    this.#streams.add(stream);
    // The client went away: whatever the layers above do about it, and when, this lets go now.
    signal?.addEventListener('abort', () => void stream.return(), { once: true });
    try {
      if (!after) {
        // From now: where a resuming reader stands, and what was committed by then (skipped).
        const start = await startOf(this.#db, group);
        stream.opened(start);
        await this.attach(stream, start);
      }
    } catch (e) {
      this.detach(stream);
      throw e;
    }
    return stream;
  }

  /**
   * Joins `stream` to its group's tail: from now on it is offered every entry the tail reads. A
   * tail made for it starts at `start` (a stream opened now), or where a resuming reader stands.
   */
  async attach(stream: Stream, start?: Start): Promise<void> {
    let tail = this.#tails.get(stream.group);
    if (!tail) {
      const made = new Tail(
        stream.group,
        start ? Promise.resolve(start.position) : tailOf(this.#db, stream.group),
      );
      tail = made;
      this.#tails.set(stream.group, made);
      // A tail whose start could not be read is forgotten: the next stream tries again.
      made.ready.catch(() => {
        if (this.#tails.get(made.group) === made) this.#tails.delete(made.group);
      });
    }
    await tail.ready;
    if (stream.done) return;
    stream.joined(tail.position);
    tail.streams.add(stream);
  }

  /** A stream ended: it is offered nothing more, and a tail with no stream left is dropped. */
  detach(stream: Stream): void {
    this.#streams.delete(stream);
    const tail = this.#tails.get(stream.group);
    if (!tail?.streams.delete(stream)) return;
    if (tail.streams.size === 0) this.#tails.delete(stream.group);
  }

  /** A page of `group`'s log after `after` that `selection` keeps, for a stream's replay. */
  replay(group: string, selection: ChangeSelection, after: Position | undefined): Promise<ChangeRow[]> {
    return listChanges(this.#db, group, selection, { order: 'OLDEST_FIRST', after, limit: PAGE - 1 });
  }

  /** Ends every stream (SHUTTING_DOWN: their clients resume elsewhere) and stops reading. */
  close(): void {
    this.#closed = true;
    for (const t of this.#timers) clearInterval(t);
    if (this.#heldPass) clearTimeout(this.#heldPass);
    for (const u of this.#unwatch) u();
    for (const s of [...this.#streams]) s.end(shuttingDown());
  }

  #readAll(): void {
    for (const tail of this.#tails.values()) void this.#read(tail);
  }

  /** Reads the held tails again soon: a burst of notices costs one pass every 5 ms at most. */
  #readHeldSoon(): void {
    if (this.#heldPass || this.#closed) return;
    const wait = Math.max(0, this.#heldPassAt + HELD_AFTER_NOTICE_MS - Date.now());
    this.#heldPass = setTimeout(() => {
      this.#heldPass = undefined;
      this.#heldPassAt = Date.now();
      void this.#readHeld('notice');
    }, wait);
  }

  /**
   * Reads again the held tails that may have moved: their oldest waiting entry's transaction is
   * older than the oldest running now (one statement a pass, however many groups a transaction
   * holds). After a notice, every held tail but those whose last read failed (the tick retries
   * them); at the tick, those due. One pass at a time; those asked for meanwhile follow.
   */
  async #readHeld(kind: 'notice' | 'tick'): Promise<void> {
    this.#passes.add(kind);
    if (this.#passing) return;
    this.#passing = true;
    try {
      while (this.#passes.size && !this.#closed) {
        const [notice, tick] = [this.#passes.has('notice'), this.#passes.has('tick')];
        this.#passes.clear();
        const now = Date.now();
        const held = [...this.#tails.values()].filter(
          (t) => t.held && ((notice && !t.failed) || (tick && now - t.readAt >= this.#heldReadMs - TICK_MS)),
        );
        if (held.length === 0) continue;
        const xmin = await oldestRunning(this.#db);
        if (this.#closed) return;
        for (const tail of held) if (tail.waiting === undefined || tail.waiting < xmin) void this.#read(tail);
      }
    } catch (e) {
      // The tick tries again; the streams wait, they lose nothing.
      this.#log.warn({ err: (e as Error).message }, 'change feed: reading the oldest running failed');
    } finally {
      this.#passing = false;
    }
  }

  #tick(): void {
    const now = Date.now();
    let held = false;
    for (const tail of this.#tails.values()) {
      if (tail.held) held = true;
      else if (now - tail.readAt >= (this.#live ? SAFETY_READ_MS : this.#pollMs)) void this.#read(tail);
    }
    if (held) void this.#readHeld('tick');
  }

  /** Reads `tail` up to what may be read now and offers each entry to its streams. */
  async #read(tail: Tail): Promise<void> {
    if (tail.reading) {
      tail.again = true;
      return;
    }
    tail.reading = true;
    try {
      await tail.ready;
      do {
        tail.again = false;
        tail.readAt = Date.now();
        for (;;) {
          const { rows, held, waiting } = await readTail(this.#db, tail.group, tail.position, PAGE);
          // Offered and moved past together, so that a stream joining between reads starts
          // exactly where the tail stands.
          for (const row of rows) for (const s of tail.streams) s.offer(row);
          if (rows.length) tail.position = rows[rows.length - 1];
          tail.held = held;
          tail.waiting = waiting;
          tail.failed = false;
          if (rows.length < PAGE || this.#tails.get(tail.group) !== tail) break;
        }
      } while (tail.again && this.#tails.get(tail.group) === tail);
    } catch (e) {
      // Read again at the next tick; the streams wait, they lose nothing.
      this.#log.warn({ err: (e as Error).message, group: tail.group }, 'change feed: reading the log failed');
      tail.held = true;
      tail.waiting = undefined;
      tail.failed = true;
    } finally {
      tail.reading = false;
    }
  }

  /** Ends the streams whose session no longer stands, each session asked once. */
  async #check(): Promise<void> {
    if (this.#checking || this.#streams.size === 0) return;
    this.#checking = true;
    try {
      const bySession = new Map<string, Stream[]>();
      for (const s of this.#streams) {
        const list = bySession.get(s.holder);
        if (list) list.push(s);
        else bySession.set(s.holder, [s]);
      }
      await Promise.all(
        [...bySession.values()].map(async (streams) => {
          const stands = await this.#standing(streams[0]!.identity).catch((e: unknown) => {
            // Unknown is not ended: asked again at the next check.
            this.#log.warn({ err: (e as Error).message }, 'change feed: checking a session failed');
            return true;
          });
          if (!stands) for (const s of streams) s.end(sessionEnded());
        }),
      );
    } finally {
      this.#checking = false;
    }
  }
}

/** One group's place in the log, read for all of its streams. */
class Tail {
  position: Position | undefined;
  readonly ready: Promise<void>;
  readonly streams = new Set<Stream>();
  reading = false;
  again = false;
  held = false;
  /** While held: the transaction of its oldest entry waiting ({@link readTail}). */
  waiting: bigint | undefined;
  /** Its last read failed: read again at the tick only. */
  failed = false;
  readAt = 0;
  readonly group: string;

  constructor(group: string, start: Promise<Position | undefined>) {
    this.group = group;
    this.ready = start.then((p) => {
      this.position = p;
      this.readAt = Date.now();
    });
  }
}

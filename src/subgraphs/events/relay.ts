import {
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamClient,
  jetstream,
  jetstreamManager,
} from '@nats-io/jetstream';
import {
  connect,
  type NatsConnection,
  headers as natsHeaders,
  type Subscription,
} from '@nats-io/transport-node';
import { type Kysely, sql } from 'kysely';
import type { Logger } from '../../shared/logger.ts';
import type { ChangeNotices } from '../../storage/change-notices.ts';
import type { TableWrites } from '../../storage/table-writes.ts';
import type { Tables } from '../../storage/tables.ts';
import { changeJson } from './change-json.ts';
import { groupsInLog, readTail } from './changes.repository.ts';
import { encodePosition, type Position } from './cursor.ts';
import { CHANGES_CHANNEL, LOGGED_TABLES } from './feed.ts';
import { Rounds } from './rounds.ts';

/** The JetStream stream every change goes to by default (`ASSETQL_NATS_STREAM`). */
export const DEFAULT_STREAM = 'ASSETQL_CHANGES';

/** The subjects of a stream's groups: its name in lower case, `_` for `.` (`assetql.changes`). */
export function prefixOf(stream: string): string {
  return stream.toLowerCase().replaceAll('_', '.');
}
/** How long JetStream remembers a message id to drop a second copy (a relay that died mid-batch). */
const DUPLICATE_WINDOW_NS = 10 * 60 * 1e9;
const PAGE = 500;
/** Every group is looked at this often, whatever was heard (a notice lost, a process deaf to them). */
const SWEEP_MS = 30_000;
/** A group whose entries a running transaction holds back is looked at again this soon. */
const HELD_MS = 250;

/**
 * A group's subject token: NATS tokens may not hold `.`, `*`, `>` or white space, so every
 * character but letters, digits, `-` and `_` is written `~` and its code in hex (`~2e` for `.`).
 */
export function subjectOf(prefix: string, group: string): string {
  return `${prefix}.${group.replace(/[^A-Za-z0-9_-]/gu, (c) => `~${c.codePointAt(0)!.toString(16)}~`)}`;
}

/** The group a subject names (the inverse of {@link subjectOf}); undefined for another subject. */
export function groupOf(prefix: string, subject: string): string | undefined {
  if (!subject.startsWith(`${prefix}.`)) return undefined;
  return subject
    .slice(prefix.length + 1)
    .replace(/~([0-9a-f]+)~/gu, (_, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)));
}

export interface RelayOptions {
  db: Kysely<Tables>;
  log: Logger;
  url: string;
  /** The stream's name @default ASSETQL_CHANGES */
  stream?: string;
  notices?: ChangeNotices;
  writes?: TableWrites;
  /** Told each group whose subject carried a change, from whichever process relayed it. */
  heard?(group: string): void;
}

/**
 * Relays the change log to NATS JetStream (docs/events.md#nats-jetstream): one stream,
 * `ASSETQL_CHANGES` unless named, a subject per group (`assetql.changes.<group>`), each change's
 * JSON with its group and cursor as the message id. For each group, one process at a time (an advisory lock taken without
 * waiting) reads its log after the relay's position as a resuming reader does (nothing can later
 * appear behind it), publishes, and moves the position once JetStream has acknowledged: a change is
 * published at least once, and a second copy (the relay died between publishing and moving on)
 * is dropped by JetStream's duplicate window (10 minutes) by its message id.
 *
 * Streams of this process also hear the subjects: a change relayed by any process wakes the
 * group's tail here (subgraphs/events/feed.ts), a way past the database's notices.
 */
export class NatsRelay {
  readonly #options: RelayOptions;
  readonly #stream: string;
  readonly #prefix: string;
  #nc: NatsConnection | undefined;
  #js: JetStreamClient | undefined;
  #sub: Subscription | undefined;
  #timer: NodeJS.Timeout | undefined;
  #heldTimer: NodeJS.Timeout | undefined;
  readonly #unwatch: (() => void)[] = [];
  readonly #rounds = new Rounds(() => this.#round());
  #closed = false;
  /** The groups to relay at the next round: those a notice named, or all. */
  #dirty: Set<string> | 'all' = 'all';
  /** The groups to look at again soon (entries held back, or no notices heard: all). */
  #held: Set<string> | 'all' = new Set();

  constructor(options: RelayOptions) {
    this.#options = options;
    this.#stream = options.stream ?? DEFAULT_STREAM;
    this.#prefix = prefixOf(this.#stream);
  }

  /** Connects, makes the stream if it is missing, and starts relaying. */
  async start(): Promise<void> {
    const { url, log } = this.#options;
    const nc = await connect({ servers: url, name: 'assetql change relay', maxReconnectAttempts: -1 });
    this.#nc = nc;
    const jsm = await jetstreamManager(nc);
    const config = { subjects: [`${this.#prefix}.>`], duplicate_window: DUPLICATE_WINDOW_NS };
    try {
      await jsm.streams.info(this.#stream);
      await jsm.streams.update(this.#stream, config);
    } catch (e) {
      if (!(e instanceof JetStreamApiError && e.code === JetStreamApiCodes.StreamNotFound)) throw e;
      await jsm.streams.add({ name: this.#stream, ...config });
    }
    this.#js = jetstream(nc);
    if (this.#options.heard) {
      const heard = this.#options.heard;
      this.#sub = nc.subscribe(`${this.#prefix}.>`, {
        callback: (error, message) => {
          if (error) return;
          const group = groupOf(this.#prefix, message.subject);
          if (group !== undefined) heard(group);
        },
      });
    }
    this.#timer = setInterval(() => this.wake(), SWEEP_MS);
    this.#timer.unref();
    if (this.#options.notices)
      this.#unwatch.push(
        this.#options.notices.subscribe(CHANGES_CHANNEL, {
          notice: (group) => this.wake(group || undefined),
          live: () => {},
        }),
      );
    if (this.#options.writes)
      this.#unwatch.push(this.#options.writes.watch(LOGGED_TABLES, () => this.wake()));
    log.info({ url: redacted(url), stream: this.#stream }, 'relaying the change log to NATS JetStream');
    this.wake();
  }

  /** Relays `group` (every group without) now, or right after the round under way. */
  wake(group?: string): void {
    if (this.#closed || !this.#js) return;
    if (group === undefined) this.#dirty = 'all';
    else if (this.#dirty !== 'all') this.#dirty.add(group);
    this.#rounds.run();
  }

  /** Waits for the round under way. */
  settled(): Promise<void> {
    return this.#rounds.settled();
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    if (this.#heldTimer) clearTimeout(this.#heldTimer);
    for (const u of this.#unwatch) u();
    await this.#rounds.stop();
    this.#sub?.unsubscribe();
    await this.#nc?.drain().catch(() => {});
  }

  async #round(): Promise<void> {
    const dirty = this.#dirty;
    this.#dirty = new Set();
    try {
      const held: string[] = [];
      for (const group of dirty === 'all' ? await groupsInLog(this.#options.db) : dirty)
        if (await this.#relay(group)) held.push(group);
      // Deaf to the database's notices (embedded PGlite; some writes are not told in process
      // either), every group is read again soon; else those a running transaction holds back.
      if (!this.#options.notices?.live) this.#held = 'all';
      else if (this.#held !== 'all') for (const group of held) this.#held.add(group);
      if (this.#held !== 'all' && this.#held.size === 0) return;
      this.#heldTimer ??= setTimeout(() => {
        this.#heldTimer = undefined;
        const again = this.#held;
        this.#held = new Set();
        if (again === 'all') this.wake();
        else for (const group of again) this.wake(group);
      }, HELD_MS);
      this.#heldTimer.unref();
    } catch (e) {
      this.#dirty = 'all';
      setTimeout(() => this.wake(), 1_000).unref();
      this.#options.log.warn(
        { err: (e as Error).message },
        'change relay: a round failed; tried again shortly',
      );
    }
  }

  /** Relays what may be read of `group`'s log; true when entries wait behind a running transaction. */
  async #relay(group: string): Promise<boolean> {
    const js = this.#js!;
    let held = false;
    for (;;) {
      const more = await this.#options.db.transaction().execute(async (trx) => {
        const { rows: got } = await sql<{ locked: boolean }>`
          select pg_try_advisory_xact_lock(hashtext('change relay'), hashtext(${group})) as locked`.execute(
          trx,
        );
        if (!got[0]?.locked) return false;
        const { rows: at } = await sql<Position>`
          select tx::text as tx, seq::text as seq from change_relay_positions where user_group = ${group}
          for update`.execute(trx);
        const read = await readTail(trx, group, at[0], PAGE);
        const { rows } = read;
        held = read.held;
        if (rows.length === 0) return false;
        const subject = subjectOf(this.#prefix, group);
        await Promise.all(
          rows.map((change) => {
            const h = natsHeaders();
            const cursor = encodePosition(change);
            h.set('assetql-group', group);
            return js.publish(subject, JSON.stringify({ group, ...changeJson(change) }), {
              msgID: `${group}:${cursor}`,
              headers: h,
            });
          }),
        );
        const last = rows[rows.length - 1]!;
        await sql`
          insert into change_relay_positions (user_group, tx, seq) values (${group}, ${last.tx}::xid8, ${last.seq}::bigint)
          on conflict (user_group) do update set tx = excluded.tx, seq = excluded.seq`.execute(trx);
        return rows.length === PAGE;
      });
      if (!more) return held;
    }
  }
}

function redacted(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//…@');
}

import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../shared/logger.ts';

/** What hears one channel's notices: each notice, and whether notices are heard at all. */
export interface NoticeListener {
  /** A notice arrived on the channel (its payload; probes are never passed on). */
  notice(payload: string): void;
  /**
   * Notices are heard (true) or may be missed (false: not yet connected, the connection failed,
   * the channel stopped answering probes): what is kept on their strength must be dropped.
   */
  live(live: boolean): void;
}

/** The channel probes travel on; never one a listener subscribes to. */
const PROBE_CHANNEL = 'assetql_probe';

/** How the listening connection names itself in pg_stat_activity. */
export const NOTICES_APPLICATION_NAME = 'assetql change notices';

/**
 * The database's change notices (PostgreSQL LISTEN/NOTIFY) for what this process keeps between
 * requests, on one connection of its own beside the pool (docs/deploy.md counts it), whatever
 * number of channels it hears: profile definitions (subgraphs/assets/profiles/cache.ts) and
 * sessions (subgraphs/auth/sessions/resolve.ts).
 *
 * Before trusting the connection it sends itself a probe through the pool and waits for it:
 * where notices do not travel between connections (embedded PGlite; a transaction-mode pooler)
 * nothing is ever live, and what relies on notices behaves as without them. When the connection
 * fails, nothing is live until it is back (retried every second). The listening connection
 * probes itself every 3 s (a connection that silently stopped delivering is dropped within 5 s),
 * and the channel between connections is proved again through the pool every 30 s (a failover
 * that left the old server up).
 */
export class ChangeNotices {
  readonly #pool: pg.Pool;
  /** Where the listening connection goes: straight to the server, past any pooler. */
  readonly #listenOn: pg.ClientConfig;
  readonly #log: Logger;
  readonly #probeMs: number;
  readonly #listeners = new Map<string, Set<NoticeListener>>();
  #client: pg.Client | undefined;
  /** The channels LISTENed on the current connection. */
  readonly #listened = new Set<string>();
  #closed = false;
  #started = false;
  #retry: NodeJS.Timeout | undefined;
  #reported = false;
  /** Probes that did not come back in a row: the next try waits 1, 2, 4… s, at most 30. */
  #unheard = 0;
  #firstTry!: () => void;
  /** Settles after the first try to listen, heard or not: a process serves once it has tried. */
  readonly ready = new Promise<void>((r) => {
    this.#firstTry = r;
  });

  /**
   * `options.session`: where the listening connection is made, when the pool goes through a
   * transaction-mode pooler (storage/database.ts, `Database.session`); probes still go through
   * the pool, as the notices of its writes do.
   */
  constructor(pool: pg.Pool, log: Logger, options: { probeMs?: number; session?: pg.Pool } = {}) {
    this.#pool = pool;
    this.#listenOn = (options.session ?? pool).options as pg.ClientConfig;
    this.#log = log;
    this.#probeMs = options.probeMs ?? 2_000;
  }

  /** True while notices are heard. */
  get live(): boolean {
    return this.#client !== undefined;
  }

  /**
   * Hands `channel`'s notices to `listener` from now on. Channels subscribed after
   * {@link start} are listened to on the next connection; subscribe first.
   */
  subscribe(channel: string, listener: NoticeListener): () => void {
    let set = this.#listeners.get(channel);
    if (!set) {
      set = new Set();
      this.#listeners.set(channel, set);
    }
    set.add(listener);
    // A channel subscribed after the connection listened is heard from the next connection on.
    listener.live(this.live && this.#listened.has(channel));
    return () => {
      set.delete(listener);
    };
  }

  /** Connects and listens (once); {@link ready} settles after the first try. */
  start(): Promise<void> {
    if (!this.#started) {
      this.#started = true;
      void this.#connect();
    }
    return this.ready;
  }

  /**
   * Resolves once every notice committed before the call has been handed to its listeners: a
   * probe the listening connection sends itself now arrives after them (PostgreSQL delivers
   * notices in commit order), and needs no connection of the pool. False when notices are not
   * heard, or the probe did not come back in time.
   */
  settled(): Promise<boolean> {
    const c = this.#client;
    return c ? this.#probeOn(c, c) : Promise.resolve(false);
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry) clearTimeout(this.#retry);
    const c = this.#client;
    this.#setClient(undefined);
    this.#firstTry();
    await c?.end().catch(() => {});
  }

  #setClient(c: pg.Client | undefined, listened: readonly string[] = []): void {
    const was = this.live;
    this.#client = c;
    this.#listened.clear();
    for (const channel of listened) this.#listened.add(channel);
    if (was !== this.live)
      for (const [channel, set] of this.#listeners)
        for (const l of set) l.live(this.live && this.#listened.has(channel));
  }

  #again(): void {
    this.#setClient(undefined);
    if (!this.#closed && !this.#retry) this.#retry = setTimeout(() => void this.#connect(), 1_000).unref();
  }

  /** Sends a probe through `sender` (the pool by default); true when `c` hears it in time. */
  #probeOn(c: pg.Client, sender: pg.Pool | pg.Client = this.#pool): Promise<boolean> {
    const probe = randomUUID();
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => done(false), this.#probeMs);
      const heard = (n: pg.Notification) => {
        if (n.channel === PROBE_CHANNEL && n.payload === probe) done(true);
      };
      const done = (ok: boolean) => {
        clearTimeout(timer);
        c.off('notification', heard);
        resolve(ok);
      };
      c.on('notification', heard);
      sender.query('select pg_notify($1, $2)', [PROBE_CHANNEL, probe]).catch(() => done(false));
    });
  }

  async #connect(): Promise<void> {
    this.#retry = undefined;
    // Keep-alive probes, so that a connection to a server that went away silently ends.
    const c = new pg.Client({
      ...this.#listenOn,
      application_name: NOTICES_APPLICATION_NAME,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    c.on('notification', (n) => {
      if (this.#client !== c) return;
      for (const l of this.#listeners.get(n.channel) ?? []) l.notice(n.payload ?? '');
    });
    c.on('error', (e) => this.#log.warn({ err: e.message }, 'change notices: connection failed'));
    c.on('end', () => {
      if (this.#client === c) this.#again();
    });
    const listened = [...this.#listeners.keys()];
    try {
      await c.connect();
      for (const channel of [PROBE_CHANNEL, ...listened])
        await c.query(`listen ${pg.escapeIdentifier(channel)}`);
      if (!(await this.#probeOn(c))) {
        if (!this.#reported)
          this.#log.info(
            'change notices do not reach this process (a transaction-mode pooler?); profiles are read for every request and sessions every 2 s until they do (tried again in 1 s, then less often, every 30 s at most)',
          );
        this.#reported = true;
        await c.end().catch(() => {});
        // A probe lost on a busy machine (a start among many) is tried again soon; where notices
        // never travel (a transaction-mode pooler) the tries thin out to one every 30 s.
        const wait = Math.min(30_000, 1_000 * 2 ** this.#unheard++);
        if (!this.#closed) this.#retry = setTimeout(() => void this.#connect(), wait).unref();
        return;
      }
      if (this.#closed) {
        await c.end();
        return;
      }
      this.#setClient(c, listened);
      this.#unheard = 0;
      if (this.#reported)
        this.#log.info('change notices heard again; definitions and sessions kept between requests');
      this.#reported = false;
      // Every 3 s the connection probes itself, every tenth time through the pool.
      let round = 0;
      const check = async () => {
        if (this.#client !== c || this.#closed) return;
        round++;
        if (await this.#probeOn(c, round % 10 === 0 ? this.#pool : c)) setTimeout(check, 3_000).unref();
        else if (this.#client === c) {
          this.#log.warn('change notices stopped arriving; reconnecting');
          this.#setClient(undefined);
          await c.end().catch(() => {});
          this.#again();
        }
      };
      setTimeout(check, 3_000).unref();
    } catch (e) {
      if (!this.#reported)
        this.#log.warn(
          { err: (e as Error).message },
          'cannot listen for change notices; profiles are read for every request and sessions every 2 s until it can',
        );
      this.#reported = true;
      c.end().catch(() => {});
      this.#again();
    } finally {
      this.#firstTry();
    }
  }
}

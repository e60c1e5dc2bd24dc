import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { Logger } from '../../../shared/logger.ts';
import type { EffectiveProfile } from './definition.ts';

/** The channel the database announces profile changes on (migration 20261125T0200). */
export const PROFILE_CHANNEL = 'assetql_profiles';

/** The tables a definition is read from: a change to either changes definitions. */
export const PROFILE_TABLES = ['asset_profiles', 'asset_profile_extensions'] as const;

/** Profiles kept at most; beyond, the cache starts again empty (tenants × profiles in use). */
const MAX_ENTRIES = 20_000;

/**
 * Effective profile definitions kept between requests, so that a request reads its profiles
 * from memory instead of with a statement of its own (two of the five statements of a facility
 * with its wells and issues). Kept only while this process hears the database's change notices
 * ({@link watchProfileChanges}): every change to a profile or an extension, by any process,
 * empties it when its transaction commits. A load that overlaps a change is used for its own
 * request but not kept, so a definition read before a change can never outlive it here.
 * Entries are frozen: shared by every request of a tenant, they must not be changed by one.
 */
export class ProfileCache {
  #entries = new Map<string, EffectiveProfile | null>();
  /** The names of each group's profiles, by group. */
  #names = new Map<string, readonly string[]>();
  #generation = 0;
  #live = false;

  /** True while change notices are heard, and definitions therefore kept. */
  get live(): boolean {
    return this.#live;
  }

  /** Starts or stops keeping definitions; either way what is kept is forgotten. */
  setLive(live: boolean): void {
    this.#live = live;
    this.invalidate();
  }

  /** Forgets every definition: a profile changed somewhere, or a notice may have been missed. */
  invalidate(): void {
    this.#generation++;
    this.#entries.clear();
    this.#names.clear();
  }

  /**
   * The names of `group`'s profiles, from memory where kept, else by `fetch` (a filter or a
   * saved filter may reach any profile of the group, so each such request needs them all).
   */
  async names(group: string, fetch: () => Promise<string[]>): Promise<readonly string[]> {
    const kept = this.#live ? this.#names.get(group) : undefined;
    if (kept) return kept;
    const generation = this.#generation;
    const fetched = Object.freeze(await fetch());
    if (this.#live && generation === this.#generation) {
      if (this.#names.size >= MAX_ENTRIES) this.#names.clear();
      this.#names.set(group, fetched);
    }
    return fetched;
  }

  /** The profiles `names` of `group`, from memory where kept, the rest by one call of `fetch`. */
  async load(
    group: string,
    names: readonly string[],
    fetch: (names: readonly string[]) => Promise<Map<string, EffectiveProfile>>,
  ): Promise<(EffectiveProfile | null)[]> {
    const key = (name: string) => `${group}\u0000${name}`;
    // What is kept is taken now: a change may empty the cache while the rest is fetched.
    const kept = new Map<string, EffectiveProfile | null>();
    const missing: string[] = [];
    for (const name of names) {
      const k = key(name);
      if (this.#live && this.#entries.has(k)) kept.set(name, this.#entries.get(k) ?? null);
      else missing.push(name);
    }
    if (missing.length > 0) {
      const generation = this.#generation;
      const fetched = await fetch(missing);
      for (const profile of fetched.values()) deepFreeze(profile);
      for (const name of missing) kept.set(name, fetched.get(name) ?? null);
      if (this.#live && generation === this.#generation) {
        if (this.#entries.size + missing.length > MAX_ENTRIES) this.#entries.clear();
        for (const name of missing) this.#entries.set(key(name), fetched.get(name) ?? null);
      }
    }
    return names.map((n) => kept.get(n) ?? null);
  }
}

/**
 * Listens for the database's profile change notices on a connection of its own (one per
 * process, beside the pool; docs/deploy.md counts it), and keeps `cache` live while it hears
 * them. Before trusting the channel it sends itself a notice through the pool and waits for it:
 * where notices do not travel between connections (embedded PGlite; a transaction-mode
 * connection pooler) nothing is ever kept and every request reads its profiles, as without a
 * cache. When the connection fails, nothing is kept until it is back (retried every second).
 */
export function watchProfileChanges(
  pool: pg.Pool,
  cache: ProfileCache,
  log: Logger,
  options: { probeMs?: number } = {},
): { close(): Promise<void>; ready: Promise<void> } {
  const probeMs = options.probeMs ?? 2_000;
  let client: pg.Client | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let reported = false;
  let firstTry!: () => void;
  const ready = new Promise<void>((r) => {
    firstTry = r;
  });

  const again = () => {
    cache.setLive(false);
    client = undefined;
    if (!closed && !retry) retry = setTimeout(connect, 1_000).unref();
  };

  /** Sends a probe notice through the pool; true when `c` hears it within `probeMs`. */
  const probeOn = (c: pg.Client): Promise<boolean> => {
    const probe = `probe:${randomUUID()}`;
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => done(false), probeMs);
      const heard = (n: pg.Notification) => {
        if (n.channel === PROFILE_CHANNEL && n.payload === probe) done(true);
      };
      const done = (ok: boolean) => {
        clearTimeout(timer);
        c.off('notification', heard);
        resolve(ok);
      };
      c.on('notification', heard);
      pool.query('select pg_notify($1, $2)', [PROFILE_CHANNEL, probe]).catch(() => done(false));
    });
  };

  async function connect() {
    retry = undefined;
    // Keep-alive probes, so that a connection to a server that went away silently ends.
    const c = new pg.Client({
      ...(pool.options as pg.ClientConfig),
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    c.on('notification', (n) => {
      if (n.channel === PROFILE_CHANNEL && !n.payload?.startsWith('probe:')) cache.invalidate();
    });
    c.on('error', (e) => log.warn({ err: e.message }, 'profile change notices: connection failed'));
    c.on('end', () => {
      if (client === c) again();
    });
    try {
      await c.connect();
      await c.query(`listen ${PROFILE_CHANNEL}`);
      if (!(await probeOn(c))) {
        if (!reported)
          log.info(
            'profile change notices do not reach this process (a transaction-mode pooler?); profiles are read for every request, tried again in 30 s',
          );
        reported = true;
        await c.end().catch(() => {});
        if (!closed) retry = setTimeout(connect, 30_000).unref();
        return;
      }
      if (closed) {
        await c.end();
        return;
      }
      client = c;
      cache.setLive(true);
      if (reported) log.info('profile change notices heard again; definitions kept between requests');
      reported = false;
      // The channel is proved again every 30 s: a listener that stopped hearing (a failover that
      // left the old server up) is dropped, and with it everything kept.
      const check = async () => {
        if (client !== c || closed) return;
        if (await probeOn(c)) setTimeout(check, 30_000).unref();
        else if (client === c) {
          log.warn('profile change notices stopped arriving; reconnecting');
          client = undefined;
          await c.end().catch(() => {});
          again();
        }
      };
      setTimeout(check, 30_000).unref();
    } catch (e) {
      if (!reported)
        log.warn(
          { err: (e as Error).message },
          'cannot listen for profile change notices; profiles are read for every request until it can',
        );
      reported = true;
      c.end().catch(() => {});
      again();
    } finally {
      firstTry();
    }
  }
  void connect();

  return {
    ready,
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      cache.setLive(false);
      const c = client;
      client = undefined;
      await c?.end().catch(() => {});
    },
  };
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

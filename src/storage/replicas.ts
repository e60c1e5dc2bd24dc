import {
  type CompiledQuery,
  type DatabaseConnection,
  type Dialect,
  type Driver,
  PostgresDialect,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import pg from 'pg';
import { replicaRouting, sessionWork } from '../shared/session-work.ts';
import {
  lagBound,
  parseLsn,
  pickReplica,
  replicaFailure,
  type Sample,
  statementKind,
} from './replica-rules.ts';

/** How often each replica is checked: reachable, still a standby, and how far it has replayed. */
export const REPLICA_CHECK_MS = 1_000;
/** A replica that has not replayed what the primary had flushed this long ago is skipped. */
export const REPLICA_MAX_LAG_MS = 2_000;
/** How long a read waits for a replica to replay its session's last write, before the primary. */
export const REPLICA_WAIT_MS = 250;
/** How often a waiting read's replica is asked again how far it has replayed. */
const WAIT_POLL_MS = 5;

/** One replica: its pool, its Kysely driver, and what its checks found. */
class Replica {
  readonly pool: pg.Pool;
  readonly driver: Driver;
  /** One connection of its own for the checks and the waits, so that a busy pool delays neither. */
  readonly #probe: pg.Pool;
  healthy = false;
  /** The replay LSN last seen. */
  replayed = 0n;
  readonly #waiting: { lsn: bigint; until: number; done: (caughtUp: boolean) => void }[] = [];
  #polling = false;

  constructor(pool: pg.Pool, probe: pg.PoolConfig) {
    this.pool = pool;
    this.driver = new PostgresDialect({ pool }).createDriver();
    this.#probe = new pg.Pool({ ...probe, max: 1, connectionTimeoutMillis: 1_000, query_timeout: 1_000 });
    for (const p of [pool, this.#probe]) {
      p.on('error', () => {});
      p.on('connect', (client) => client.on('error', () => {}));
    }
  }

  /** Reachable, still a standby, and not past the lag bound (`bound`, or not judged: 0). */
  async check(bound: bigint): Promise<void> {
    const healthy = await this.#replay().then(
      (replayed) => replayed !== undefined && replayed >= bound,
      () => false,
    );
    this.healthy = healthy;
  }

  /** True once it has replayed `lsn`, false when it has not within `ms`. */
  caughtUp(lsn: bigint, ms: number): Promise<boolean> {
    if (this.replayed >= lsn) return Promise.resolve(true);
    return new Promise((done) => {
      this.#waiting.push({ lsn, until: Date.now() + ms, done });
      void this.#poll();
    });
  }

  /** Asks how far it has replayed while reads wait for it, one question at a time for all. */
  async #poll(): Promise<void> {
    if (this.#polling) return;
    this.#polling = true;
    while (this.#waiting.length > 0) {
      const ok = await this.#replay().then(
        (r) => r !== undefined,
        () => false,
      );
      const now = Date.now();
      for (const w of [...this.#waiting])
        if (!ok || this.replayed >= w.lsn || now >= w.until) {
          this.#waiting.splice(this.#waiting.indexOf(w), 1);
          w.done(ok && this.replayed >= w.lsn);
        }
      if (this.#waiting.length > 0) await new Promise((r) => setTimeout(r, WAIT_POLL_MS));
    }
    this.#polling = false;
  }

  /** Its replay LSN; undefined when it is no standby (promoted, or a primary given by mistake). */
  async #replay(): Promise<bigint | undefined> {
    const { rows } = await this.#probe.query<{ replayed: string | null }>(
      'select case when pg_is_in_recovery() then pg_last_wal_replay_lsn()::text end as replayed',
    );
    const text = rows[0]?.replayed;
    if (!text) return undefined;
    const replayed = parseLsn(text);
    if (replayed > this.replayed) this.replayed = replayed;
    return replayed;
  }

  async close(): Promise<void> {
    for (const w of this.#waiting.splice(0)) w.done(false);
    await this.#probe.end();
  }
}

/**
 * Sends reads to streaming replicas (`ASSETQL_DATABASE_READ_URLS`, docs/deploy.md#read-replicas),
 * under Kysely ({@link ReplicaRouter.dialect}): a statement goes to a replica only when it is a
 * read, outside a transaction, of work that allows it (shared/session-work.ts), and a healthy replica
 * has replayed the session's last write (waited for up to {@link REPLICA_WAIT_MS}); everything
 * else goes to the primary. A replica that fails a statement is skipped and the statement asked of
 * the primary. Each replica is checked every {@link REPLICA_CHECK_MS} in the background.
 */
export class ReplicaRouter {
  readonly #primary: pg.Pool;
  readonly replicas: readonly Replica[];
  #samples: Sample[] = [];
  #turn = 0;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  /** `replicas`: a pool of each, and the settings of its check connection (`probe`). */
  constructor(primary: pg.Pool, replicas: readonly { pool: pg.Pool; probe: pg.PoolConfig }[]) {
    this.#primary = primary;
    this.replicas = replicas.map((r) => new Replica(r.pool, r.probe));
    replicaRouting.routers.add(this);
  }

  /** Checks every replica once, then every {@link REPLICA_CHECK_MS} until closed. */
  async start(): Promise<void> {
    await this.check();
    const next = () => {
      this.#timer = setTimeout(
        () => void this.check().finally(() => this.#closed || next()),
        REPLICA_CHECK_MS,
      );
      this.#timer.unref();
    };
    next();
  }

  /** One round of checks: where the primary stands now, then each replica against the bound. */
  async check(): Promise<void> {
    const now = Date.now();
    const primary = await this.#primary
      .query<{ lsn: string }>('select pg_current_wal_flush_lsn()::text as lsn')
      .then(
        ({ rows }) => parseLsn(rows[0]!.lsn),
        () => undefined,
      );
    // Without the primary's position this round, replicas are checked without the lag bound.
    if (primary !== undefined) this.#samples.push({ at: now, lsn: primary });
    this.#samples = this.#samples.filter((s) => s.at > now - REPLICA_MAX_LAG_MS - 3 * REPLICA_CHECK_MS);
    const bound = primary === undefined ? 0n : lagBound(this.#samples, now, REPLICA_MAX_LAG_MS);
    await Promise.all(this.replicas.map((r) => r.check(bound)));
  }

  /** `inner` (the primary's dialect) with reads routed. */
  dialect(inner: Dialect): Dialect {
    return {
      createAdapter: () => inner.createAdapter(),
      createIntrospector: (db) => inner.createIntrospector(db),
      createQueryCompiler: () => inner.createQueryCompiler(),
      createDriver: () => new RoutingDriver(inner.createDriver(), this),
    };
  }

  /** Where `sql` goes: a replica, or undefined for the primary (always, in a transaction). */
  async route(sql: string, inTransaction: boolean): Promise<Replica | undefined> {
    const work = sessionWork.getStore();
    if (!work) return undefined;
    const kind = statementKind(sql);
    if (kind === 'write') work.wrote = this;
    if (kind !== 'read' || inTransaction || !work.replicaReads) return undefined;
    work.target ??= this.#choose(work.session);
    const replica = (await work.target) as Replica | undefined;
    return replica?.healthy ? replica : undefined;
  }

  /** A statement failed on `replica`: the rest of the work's reads go to the primary. */
  failed(replica: Replica, failure: 'down' | 'refused'): void {
    if (failure === 'down') replica.healthy = false;
    const work = sessionWork.getStore();
    if (work) work.target = Promise.resolve(undefined);
  }

  async #choose(session: string | null): Promise<Replica | undefined> {
    const healthy = this.replicas.filter((r) => r.healthy);
    if (healthy.length === 0) return undefined;
    const lsn = session ? await this.#lastWrite(session) : undefined;
    const pick = pickReplica(healthy, lsn, this.#turn++);
    if (!pick || 'read' in pick) return pick?.read;
    return (await pick.wait.caughtUp(lsn!, REPLICA_WAIT_MS)) ? pick.wait : undefined;
  }

  /** The session's last write, from the primary (any process may have made it). */
  async #lastWrite(session: string): Promise<bigint | undefined> {
    const { rows } = await this.#primary.query<{ lsn: string | null }>(
      'select write_lsn::text as lsn from sessions where id_hash = $1',
      [Buffer.from(session, 'hex')],
    );
    const text = rows[0]?.lsn;
    return text ? parseLsn(text) : undefined;
  }

  /**
   * Records where the primary's WAL stands as `session`'s last write, after that write committed:
   * its flush position, which a commit under `synchronous_commit` (on by default) has passed.
   */
  async recordWrite(session: string): Promise<void> {
    await this.#primary.query(
      'update sessions set write_lsn = greatest(write_lsn, pg_current_wal_flush_lsn()) where id_hash = $1',
      [Buffer.from(session, 'hex')],
    );
  }

  /** Stops the checks and closes the check connections (the pools close with the driver). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    replicaRouting.routers.delete(this);
    clearTimeout(this.#timer);
    await Promise.all(this.replicas.map((r) => r.close()));
  }
}

/** A connection bound, per statement, to the primary or a replica; in a transaction, the primary. */
class RoutedConnection implements DatabaseConnection {
  readonly #driver: RoutingDriver;
  bound: { replica: Replica | undefined; connection: DatabaseConnection } | undefined;
  inTransaction = false;

  constructor(driver: RoutingDriver) {
    this.#driver = driver;
  }

  async executeQuery<R>(
    query: CompiledQuery,
    options?: Parameters<DatabaseConnection['executeQuery']>[1],
  ): Promise<QueryResult<R>> {
    const replica = await this.#driver.router.route(query.sql, this.inTransaction);
    if (replica) {
      try {
        return await (await this.on(replica)).executeQuery<R>(query, options);
      } catch (e) {
        const failure = replicaFailure(e);
        if (!failure) throw e;
        this.#driver.router.failed(replica, failure);
      }
    }
    return (await this.on(undefined)).executeQuery<R>(query, options);
  }

  async *streamQuery<R>(
    query: CompiledQuery,
    chunkSize: number,
    options?: Parameters<DatabaseConnection['streamQuery']>[2],
  ): AsyncIterableIterator<QueryResult<R>> {
    yield* (await this.on(undefined)).streamQuery<R>(query, chunkSize, options);
  }

  /** The connection to `replica` (undefined: the primary), the one held before released. */
  async on(replica: Replica | undefined): Promise<DatabaseConnection> {
    if (this.bound && this.bound.replica === replica) return this.bound.connection;
    await this.release();
    const driver = replica?.driver ?? this.#driver.primary;
    this.bound = { replica, connection: await driver.acquireConnection() };
    return this.bound.connection;
  }

  async release(): Promise<void> {
    const bound = this.bound;
    this.bound = undefined;
    if (bound) await (bound.replica?.driver ?? this.#driver.primary).releaseConnection(bound.connection);
  }
}

/** The primary's driver, handing out {@link RoutedConnection}s; transactions on the primary. */
class RoutingDriver implements Driver {
  readonly primary: Driver;
  readonly router: ReplicaRouter;

  constructor(primary: Driver, router: ReplicaRouter) {
    this.primary = primary;
    this.router = router;
  }

  async init(): Promise<void> {
    await this.primary.init();
    await Promise.all(this.router.replicas.map((r) => r.driver.init()));
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    return new RoutedConnection(this);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const c = connection as RoutedConnection;
    await this.primary.beginTransaction(await c.on(undefined), settings);
    c.inTransaction = true;
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as RoutedConnection;
    c.inTransaction = false;
    await this.primary.commitTransaction(await c.on(undefined));
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as RoutedConnection;
    c.inTransaction = false;
    await this.primary.rollbackTransaction(await c.on(undefined));
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    return this.primary.savepoint!(await (connection as RoutedConnection).on(undefined), name, compile);
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ) {
    return this.primary.rollbackToSavepoint!(
      await (connection as RoutedConnection).on(undefined),
      name,
      compile,
    );
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compile: QueryCompiler['compileQuery'],
  ) {
    return this.primary.releaseSavepoint!(
      await (connection as RoutedConnection).on(undefined),
      name,
      compile,
    );
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return (connection as RoutedConnection).release();
  }

  async destroy(): Promise<void> {
    await this.primary.destroy();
    await Promise.all(this.router.replicas.map((r) => r.driver.destroy()));
  }
}

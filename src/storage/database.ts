import { AsyncResource } from 'node:async_hooks';
import { mkdirSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { DEFAULT_PREPARED_STATEMENTS } from '../config/limits.ts';
import { stampingClient } from './change-log.ts';
import {
  claimDataDir,
  DataDirError,
  DataDirInUseError,
  type DataDirOwner,
  type OwnerSocket,
  type Ownership,
  ownerOf,
} from './data-dir.ts';
import { takeLocksOn } from './locks.ts';
import { keepProtocolSequencesWhole } from './pglite-socket.ts';
import { preparingClient } from './prepared-statements.ts';
import { ReplicaRouter } from './replicas.ts';
import { TableWrites } from './table-writes.ts';
import type { Tables } from './tables.ts';

/** Where the data lives: PostgreSQL by URL, or embedded PGlite in a folder (or in memory). */
export type DatabaseTarget =
  /**
   * `sessionUrl`: where `url` reaches PostgreSQL through a transaction-mode pooler, the same
   * database reached directly, for what needs a session of its own ({@link Database.session}).
   */
  | {
      url: string;
      sessionUrl?: string;
      /** Streaming replicas of `url` that answer reads (storage/replicas.ts). */
      readUrls?: readonly string[];
    }
  | { dataDir: string }
  /** In memory; `from` a copy of another embedded database's files ({@link Database.snapshot}). */
  | { memory: true; from?: Blob };

export interface Database {
  readonly db: Kysely<Tables>;
  readonly pool: pg.Pool;
  /**
   * Connections for what needs a PostgreSQL session of its own, which a transaction-mode pooler
   * does not keep from one transaction to the next: change notices (`LISTEN`), the start-up locks
   * (storage/locks.ts), the lock-waiting DDL of a new month of readings. `pool` itself unless the
   * target has a `sessionUrl`.
   */
  readonly session: pg.Pool;
  /** `pglite` when the data is embedded (this process or another serves it over a socket). */
  readonly engine: 'postgres' | 'pglite';
  /** True when this process owns the embedded database (and so serves the socket). */
  readonly ownsEmbedded: boolean;
  /** This process's own writes to the tables it watches, as they happen (storage/table-writes.ts). */
  readonly writes: TableWrites;
  /**
   * A copy of the embedded database's files (PGlite's `dumpDataDir`), to open another in memory
   * from (`{ memory: true, from }`): a copy opens in a fraction of the time a new one takes
   * (the tests start each file's database from a migrated copy). Only where this process owns
   * the embedded database.
   */
  snapshot?: () => Promise<Blob>;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** Pool size @default 10 */
  maxConnections?: number;
  /** Called once per new connection; tests use it to count statements. */
  onConnect?: (client: pg.PoolClient) => void;
  /**
   * PostgreSQL's `statement_timeout` on every connection, in milliseconds (0: none) @default 0.
   * PGlite ignores it: it runs statements on the JavaScript thread, where no timer fires until
   * the statement is done (docs/security.md).
   */
  statementTimeoutMs?: number;
  /**
   * Statements prepared by name on each PostgreSQL connection, at most this many
   * (storage/prepared-statements.ts); 0 sends every statement unnamed. PGlite's are always
   * unnamed. @default 100
   */
  preparedStatements?: number;
  /**
   * Where another live process owns the embedded database in `DATA_DIR`: attach to it over its
   * socket (true, or the function says so of the owner), or refuse with
   * {@link DataDirInUseError} @default true
   */
  attach?: boolean | ((owner: DataDirOwner) => boolean);
  /**
   * Called once when the process this one attached to is gone (checked every second): its
   * database went with it, and nothing this process sends will be answered again.
   */
  onOwnerGone?: (owner: DataDirOwner) => void;
}

/** The embedded database's shared buffers, MB (PostgreSQL's default is 128). */
const EMBEDDED_SHARED_BUFFERS_MB = 16;

/** How long a process waits for the owner of DATA_DIR, still starting, to serve its database. */
const OWNER_START_MS = 60_000;

// PostgreSQL returns int8 (counts) as strings; our counts fit in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));

/**
 * How a PostgreSQL pool behaves when the server goes away: a connection (or a free slot in
 * the pool) that does not come within 5 s fails the request instead of holding it forever,
 * idle connections are dropped after 30 s, and TCP keepalive notices a peer that vanished.
 */
const RESILIENCE = {
  connectionTimeoutMillis: 5_000,
  idleTimeoutMillis: 30_000,
  keepAlive: true,
} satisfies pg.PoolConfig;

/**
 * Opens the database. PostgreSQL is reached through `pg`; PGlite is single-process, so
 * the process that opens it serves it over a local socket (`@electric-sql/pglite-socket`)
 * and every other process (a CLI command beside a running server) connects to that socket
 * with the same `pg` code path, so the two never open the files at once.
 */
export async function openDatabase(target: DatabaseTarget, options: OpenOptions = {}): Promise<Database> {
  if ('url' in target) {
    const preparedStatements = options.preparedStatements ?? DEFAULT_PREPARED_STATEMENTS;
    // No JIT compilation: the planner's cost of a small lookup joined to a parameter list (the
    // related-assets probe: 100 rows assumed for any jsonb_array_elements) passes
    // jit_optimize_above_cost, and compiling then took 120-170 ms of a 1 ms query at a million
    // wells. Every statement here is short or a COPY. A SET, not a startup option, so that
    // connection poolers that refuse unknown startup parameters still connect; awaited before
    // the pool hands the connection out (a query sent meanwhile would be queued behind it,
    // which pg deprecates).
    const settings = async (client: pg.ClientBase) => {
      await client.query('set jit = off').catch(() => {});
      // Every statement of a request within this time (docs/security.md); migrations lift it.
      if (options.statementTimeoutMs)
        await client.query(`set statement_timeout = ${Math.trunc(options.statementTimeoutMs)}`);
    };
    // Behind a transaction-mode pooler a session SET would stay on whichever server connection
    // ran it, for the pooler's next client: the pooler sets them (its connect_query,
    // docs/deploy.md), and only the direct connections get them here.
    const session = target.sessionUrl
      ? new pg.Pool({ connectionString: target.sessionUrl, max: 3, ...RESILIENCE, onConnect: settings })
      : undefined;
    const pool = new pg.Pool({
      connectionString: target.url,
      max: options.maxConnections ?? 10,
      ...RESILIENCE,
      // Ours in every case: it names what is worth naming (none with 0) and awaits pg's answers
      // without pg's own promise (prepared-statements.ts).
      Client: preparingClient(preparedStatements, stampingClient()),
      ...(session ? {} : { onConnect: settings }),
    });
    const replicas = target.readUrls?.length
      ? new ReplicaRouter(
          pool,
          target.readUrls.map((url) => ({
            pool: new pg.Pool({
              connectionString: url,
              max: options.maxConnections ?? 10,
              ...RESILIENCE,
              Client: preparingClient(preparedStatements),
              onConnect: settings,
            }),
            probe: { connectionString: url },
          })),
        )
      : undefined;
    await replicas?.start();
    return fromPool(pool, 'postgres', false, options, undefined, session, replicas);
  }
  if ('dataDir' in target) {
    const claim = claimDataDir(target.dataDir);
    if ('owned' in claim) return openEmbedded(target, options, claim.owned);
    const attach =
      typeof options.attach === 'function' ? options.attach(claim.ownedBy) : options.attach !== false;
    if (!attach) throw new DataDirInUseError(target.dataDir, claim.ownedBy);
    return attachTo(target.dataDir, claim.ownedBy, options);
  }
  return openEmbedded(target, options, undefined);
}

/**
 * Connects to the embedded database another process owns, once it serves it (an owner still
 * starting is waited for; one that dies meanwhile leaves the data dir to this process).
 */
async function attachTo(dataDir: string, first: DataDirOwner, options: OpenOptions): Promise<Database> {
  let owner: DataDirOwner | undefined = first;
  const until = Date.now() + OWNER_START_MS;
  while (!owner?.socket) {
    if (!owner) return openDatabase({ dataDir }, options);
    if (Date.now() > until)
      throw new DataDirError(
        `the process ${owner.pid} that owns DATA_DIR ${dataDir} has not opened its database in ${OWNER_START_MS / 1000} s`,
      );
    await new Promise((resolve) => setTimeout(resolve, 100));
    owner = ownerOf(dataDir);
  }
  const { socket } = owner;
  const config: pg.PoolConfig =
    'path' in socket
      ? {
          host: socket.path.replace(/\/\.s\.PGSQL\.\d+$/, ''),
          port: 5432,
          user: 'postgres',
          database: 'postgres',
        }
      : { host: socket.host, port: socket.port, user: 'postgres', database: 'postgres' };
  let watch: NodeJS.Timeout | undefined;
  if (options.onOwnerGone) {
    const gone = options.onOwnerGone;
    const attachedTo = owner;
    // Gone once the data dir's file no longer names that very process (it stopped, died, or its
    // file was taken over after it died), or cannot be read at all.
    const stillThere = () => {
      try {
        const now = ownerOf(dataDir);
        return (
          now?.pid === attachedTo.pid && now.started === attachedTo.started && now.pidns === attachedTo.pidns
        );
      } catch (e) {
        if (typeof (e as { code?: unknown }).code === 'string') return false;
        throw e;
      }
    };
    watch = setInterval(() => {
      if (stillThere()) return;
      clearInterval(watch);
      gone(attachedTo);
    }, 1_000);
    watch.unref();
  }
  return fromPool(
    new pg.Pool({ ...config, max: 4, Client: preparingClient(0, stampingClient()) }),
    'pglite',
    false,
    options,
    async () => clearInterval(watch),
  );
}

function fromPool(
  pool: pg.Pool,
  engine: Database['engine'],
  ownsEmbedded: boolean,
  options: OpenOptions,
  onClose?: () => Promise<void>,
  session?: pg.Pool,
  replicas?: ReplicaRouter,
): Database {
  // An idle client's error (the server went away) must not crash the process. Nor may a
  // checked-out client's between two statements, which pg-pool leaves unlistened: its next
  // query fails instead, and the pool drops it on release.
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  if (options.onConnect) pool.on('connect', options.onConnect);
  // pg-pool calls a waiting `connect`'s callback (and so runs a waiting `pool.query`) in the
  // context of whoever released the connection it gets: bound to its caller's instead, whose
  // change stamp the statement must carry (change-log.ts). A promised `connect` needs nothing.
  const connect = pool.connect.bind(pool) as (cb?: (...args: unknown[]) => void) => unknown;
  pool.connect = ((cb?: (...args: unknown[]) => void) =>
    cb ? connect(AsyncResource.bind(cb)) : connect()) as typeof pool.connect;
  const writes = new TableWrites();
  const dialect = new PostgresDialect({ pool });
  const db = new Kysely<Tables>({ dialect: writes.dialect(replicas ? replicas.dialect(dialect) : dialect) });
  const sessionDb = session
    ? new Kysely<Tables>({ dialect: new PostgresDialect({ pool: session }) })
    : undefined;
  if (session) {
    session.on('error', () => {});
    session.on('connect', (client) => client.on('error', () => {}));
    takeLocksOn(db, sessionDb!);
  }
  let closed: Promise<void> | undefined;
  return {
    db,
    pool,
    session: session ?? pool,
    engine,
    ownsEmbedded,
    writes,
    close() {
      closed ??= (async () => {
        await replicas?.close();
        await db.destroy();
        await sessionDb?.destroy();
        await onClose?.();
      })();
      return closed;
    },
  };
}

/**
 * PGlite is WebAssembly, and Node 24's V8 can abort the process (`Check failed:
 * jit_page.has_value()`, or `jit_page_->allocations_.erase(addr) == 1`) while freeing a
 * wasm-to-JS import wrapper it has just tiered up (Runtime_TierUpWasmToJSWrapper →
 * WasmEngine::FreeDeadCode → WasmCodeAllocator::FreeCode → UnregisterWasmAllocation): it took
 * down a test worker, and a server at start, in two runs of the test suite. Wrappers that never
 * tier up are never freed that way, so the budget for it is set out of reach before PGlite's
 * module is instantiated (the import wrappers take it then). What it costs, the generic wrapper
 * for PGlite's calls into JavaScript, did not show in the tests' times.
 */
function keepWasmWrappersUntiered(): void {
  setFlagsFromString('--wasm-wrapper-tiering-budget=1000000000');
}

async function openEmbedded(
  target: { dataDir: string } | { memory: true; from?: Blob },
  options: OpenOptions,
  ownership: Ownership | undefined,
): Promise<Database> {
  try {
    return await startEmbedded(target, options, ownership);
  } catch (e) {
    // A start that fails leaves the data dir to whoever comes next.
    ownership?.release();
    throw e;
  }
}

async function startEmbedded(
  target: { dataDir: string } | { memory: true; from?: Blob },
  options: OpenOptions,
  ownership: Ownership | undefined,
): Promise<Database> {
  keepWasmWrappersUntiered();
  const [{ PGlite }, { PGLiteSocketServer }, { pg_trgm }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('@electric-sql/pglite-socket'),
    import('@electric-sql/pglite/contrib/pg_trgm'),
  ]);
  const dataDir = 'dataDir' in target ? target.dataDir : undefined;
  if (dataDir) mkdirSync(join(dataDir, 'pgdata'), { recursive: true });
  const from = 'memory' in target ? target.from : undefined;
  ownership?.confirm();
  const pglite = await PGlite.create({
    ...(dataDir ? { dataDir: join(dataDir, 'pgdata') } : {}),
    ...(from ? { loadDataDir: from } : {}),
    extensions: { pg_trgm },
    // PostgreSQL's default 128 MB of shared buffers, in WebAssembly memory that is never given
    // back, is most of what an embedded server holds at rest; the operating system's page cache
    // keeps the files' pages anyway (docs/performance.md, "Memory at rest").
    postgresqlconf: [`shared_buffers = ${EMBEDDED_SHARED_BUFFERS_MB}MB`],
  });

  // A Unix socket where its path fits (sun_path is 108 bytes), else an ephemeral loopback port.
  const dir = dataDir ?? (await mkdtemp(join(tmpdirSafe(), 'assetql-')));
  const socketPath = join(dir, '.s.PGSQL.5432');
  const useUnix = Buffer.byteLength(socketPath) < 100;
  const server = new PGLiteSocketServer({
    db: pglite,
    ...(useUnix ? { path: socketPath } : { host: '127.0.0.1', port: 0 }),
    maxConnections: 64,
  });
  const closeEmbedded = async () => {
    await server.stop();
    await pglite.close();
    if (dataDir) ownership?.release();
    else rmSync(dir, { recursive: true, force: true });
  };
  let socket: OwnerSocket;
  try {
    // A socket file left by an owner that died (this process owns the data dir now).
    if (useUnix) rmSync(socketPath, { force: true });
    keepProtocolSequencesWhole(server);
    await server.start();
    socket = useUnix
      ? { path: socketPath }
      : { host: '127.0.0.1', port: Number(server.getServerConn().split(':').pop()) };
    ownership?.publish(socket);
  } catch (e) {
    await closeEmbedded();
    throw e;
  }

  const poolConfig: pg.PoolConfig =
    'path' in socket
      ? { host: dir, port: 5432, user: 'postgres', database: 'postgres' }
      : { host: socket.host, port: socket.port, user: 'postgres', database: 'postgres' };
  const pool = new pg.Pool({ ...poolConfig, max: options.maxConnections ?? 8, Client: stampingClient() });
  const database = fromPool(pool, 'pglite', true, options, closeEmbedded);
  return { ...database, snapshot: () => pglite.dumpDataDir('none') };
}

function tmpdirSafe() {
  return process.env.TMPDIR && Buffer.byteLength(process.env.TMPDIR) < 60 ? process.env.TMPDIR : '/tmp';
}

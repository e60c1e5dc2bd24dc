import { AsyncLocalStorage } from 'node:async_hooks';
import { appendFileSync, mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type CompiledQuery, DefaultQueryExecutor } from 'kysely';
import pg from 'pg';

/**
 * Records every distinct SQL text this process sends, for the tenant-scoping check
 * (test/helpers/tenant-scope.ts, run after each integration test file by
 * test/helpers/tenant-scope-setup.ts).
 *
 * The one place every statement goes through, on PostgreSQL and on PGlite alike: `pg`'s Client.
 * PGlite is served over a socket (src/storage/database.ts) and reached with the same `pg` code as
 * PostgreSQL, and every connection of the process — the pools' clients, the change notices' own
 * connection, a partition's own connection, a test's admin client — is a `pg.Client` that calls
 * `connect`. So `connect` is patched to wrap the new client's own `query` (an instance property,
 * which shadows the class's): it sees the text as its caller wrote it, before the change stamp
 * (src/storage/change-log.ts) or the statement naming (src/storage/prepared-statements.ts) of the
 * clients' classes is added, and those classes' own `super.query` calls are not seen twice.
 *
 * Who sent a statement is read from the stack where it starts, so it is recorded there, and not
 * again below: Kysely's executor for what Kysely runs, a pool's `query` (pg-pool runs the
 * client's from a callback, where the caller's stack is gone), else the client's `query`.
 *
 * Each text is kept once per origin and record ({@link startRecord}: the tenant-scoping check
 * starts one for each test file), found from the caller's stack the first time it is sent:
 * `app` (the innermost frame of this project is under src/, or none is found), `migration` (a
 * frame in src/storage/migrate.ts or migrations/) or `test` (under test/: a test's own setup or
 * check, not the product's). Kysely and pg texts take `$1` parameters, so the set stays small.
 *
 * With `ASSETQL_TEST_RECORD_SQL=<dir>` each new statement is also appended, as a JSON line, to
 * `<dir>/<pid>.jsonl`, one file per test process, to read a whole run's statements afterwards.
 */

export type Origin = 'app' | 'migration' | 'test';

export interface Recorded {
  text: string;
  origin: Origin;
  /** The innermost frame of this project that sent it, `path:line`, when one was found. */
  at: string | undefined;
}

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SELF = fileURLToPath(import.meta.url);
const INSTALLED = Symbol.for('assetql.sqlRecorder');
/** Frames of the plumbing every statement passes, which say nothing of who sent it. */
const PLUMBING = [
  'src/storage/database.ts',
  'src/storage/change-log.ts',
  'src/storage/prepared-statements.ts',
  'src/storage/table-writes.ts',
  'src/subgraphs/assets/exec.ts',
];

interface State {
  statements: Recorded[];
  /** Texts already seen from the app: the common case, which needs no stack. */
  fromApp: Set<string>;
  /** `origin\0text` of texts seen only from tests or migrations so far. */
  seen: Set<string>;
  file: string | undefined;
}

type Patched = typeof pg.Client.prototype & { [INSTALLED]?: State };

/** The text a caller's hook has recorded, for the hooks below it to leave alone. */
const recordedAbove = new AsyncLocalStorage<string>();
/** Set while a client's outermost `query` wrapper runs: the wrappers under it record nothing. */
let inClientQuery = false;

/** Starts recording (once per process; later calls return the same record). */
export function installSqlRecorder(): State {
  const proto = pg.Client.prototype as Patched;
  if (proto[INSTALLED]) return proto[INSTALLED];
  const dir = process.env.ASSETQL_TEST_RECORD_SQL;
  if (dir) mkdirSync(dir, { recursive: true });
  const state: State = {
    statements: [],
    fromApp: new Set(),
    seen: new Set(),
    file: dir ? join(dir, `${process.pid}.jsonl`) : undefined,
  };
  proto[INSTALLED] = state;
  hookKysely(state);
  // A pool's `query` runs its client's in pg-pool's callback, where the caller's stack is gone.
  const pool = pg.Pool.prototype;
  pool.query = recordingCall(pool.query, state) as typeof pool.query;
  const connect = proto.connect;
  proto.connect = function (this: pg.Client, ...args: unknown[]) {
    wrapQuery(this, state);
    return Reflect.apply(connect, this, args);
  } as typeof proto.connect;
  return state;
}

/**
 * Starts a new record: each text is recorded again from here on, once, as for a new process
 * (the integration tests' files share their worker's process). Returns the position it starts at
 * in {@link recordedStatements}.
 */
export function startRecord(): number {
  const state = installSqlRecorder();
  state.fromApp.clear();
  state.seen.clear();
  return state.statements.length;
}

/** The statements recorded in this process so far (from `from` on). */
export function recordedStatements(from = 0): Recorded[] {
  const state = (pg.Client.prototype as Patched)[INSTALLED];
  return state ? state.statements.slice(from) : [];
}

/**
 * Kysely's executor, where a query built by Kysely (or its `sql` tag) starts to run: its caller
 * is still on the stack there, even one that hands Kysely's promise back without awaiting it
 * (which the stack of the later `pg` call would not show).
 */
function hookKysely(state: State): void {
  const base = Object.getPrototypeOf(DefaultQueryExecutor.prototype) as {
    executeQuery(query: CompiledQuery, ...rest: unknown[]): unknown;
  };
  const executeQuery = base.executeQuery;
  base.executeQuery = function (this: unknown, query: CompiledQuery, ...rest: unknown[]) {
    if (recordedAbove.getStore() !== query.sql) record(state, query.sql);
    return recordedAbove.run(query.sql, () => Reflect.apply(executeQuery, this, [query, ...rest]));
  };
}

/** `call` (a pool's or client's `query`), recording its text unless a caller's hook has. */
function recordingCall(call: (...args: unknown[]) => unknown, state: State) {
  return function (this: unknown, ...args: unknown[]) {
    const text = textOf(args[0]);
    if (text === undefined || recordedAbove.getStore() === text) return Reflect.apply(call, this, args);
    record(state, text);
    return recordedAbove.run(text, () => Reflect.apply(call, this, args));
  };
}

function textOf(first: unknown): string | undefined {
  const text = typeof first === 'string' ? first : (first as { text?: unknown } | undefined)?.text;
  return typeof text === 'string' ? text : undefined;
}

/**
 * Makes the client's `query` record, and keeps it the outermost of the wrappers a test may set
 * on the client (a statement counter, as test/helpers/database.ts's): set later, such a wrapper
 * would otherwise be the caller every statement's stack shows.
 */
function wrapQuery(client: pg.Client, state: State): void {
  if (Object.getOwnPropertyDescriptor(client, 'query')?.get) return;
  const wrap = (query: (...args: unknown[]) => unknown) => {
    const recording = recordingCall(query, state);
    return function (this: unknown, ...args: unknown[]) {
      if (inClientQuery) return Reflect.apply(query, this, args);
      inClientQuery = true;
      try {
        return Reflect.apply(recording, this, args);
      } finally {
        inClientQuery = false;
      }
    };
  };
  let current = wrap(client.query as (...args: unknown[]) => unknown);
  Object.defineProperty(client, 'query', {
    configurable: true,
    get: () => current,
    set: (query: (...args: unknown[]) => unknown) => {
      current = wrap(query);
    },
  });
}

function record(state: State, text: string): void {
  if (state.fromApp.has(text)) return;
  const { origin, at } = originOf(new StackProbe().stack ?? '');
  if (origin === 'app') state.fromApp.add(text);
  else {
    const key = `${origin}\0${text}`;
    if (state.seen.has(key)) return;
    state.seen.add(key);
  }
  const entry = { text, origin, at };
  state.statements.push(entry);
  if (state.file) appendFileSync(state.file, `${JSON.stringify(entry)}\n`);
}

/** An Error whose stack is deep enough to reach past Kysely's and pg's frames. */
class StackProbe extends Error {
  constructor() {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 60;
    super('probe');
    Error.stackTraceLimit = limit;
  }
}

/** Who sent a statement, from the stack of its `query` call. */
export function originOf(stack: string): { origin: Origin; at: string | undefined } {
  let at: string | undefined;
  let origin: Origin | undefined;
  for (const line of stack.split('\n').slice(1)) {
    const file = /\(?((?:file:\/\/)?\/[^():]+):(\d+):\d+\)?$/.exec(line.trim());
    if (!file) continue;
    const path = file[1]!.startsWith('file://') ? fileURLToPath(file[1]!) : file[1]!;
    if (path === SELF || !path.startsWith(ROOT) || path.includes('/node_modules/')) continue;
    const rel = relative(ROOT, path);
    if (rel === 'src/storage/migrate.ts' || rel.startsWith('src/storage/migrations/'))
      return { origin: 'migration', at: `${rel}:${file[2]}` };
    if (PLUMBING.includes(rel)) continue;
    if (!origin) {
      origin = rel.startsWith('test/') ? 'test' : 'app';
      at = `${rel}:${file[2]}`;
    }
  }
  return { origin: origin ?? 'app', at };
}

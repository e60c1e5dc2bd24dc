import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';

/**
 * Who makes the changes of a piece of work, and why: what the change log's entries of every
 * transaction begun within it record (migrations/20261128T0100_change_log.ts, and
 * 20261202T0100_change_actor_key.ts for the API key). Never a secret: a username, an API key's
 * owner and public id, or a named system actor such as `assetql import`.
 */
export interface ChangeStamp {
  actorKind: 'USER' | 'API_KEY' | 'SYSTEM';
  actor: string;
  /** For `API_KEY`: the key's public id (`AuthAPIKey.apiKeyId`), the log's `actor_key`. */
  apiKeyId?: string | null;
  correlationId: string | null;
  /** The kind of the assets' inserts and updates, when they are a conversion. */
  kind?: 'CONVERTED';
}

const current = new AsyncLocalStorage<ChangeStamp>();

/** Runs `work` with its transactions' changes recorded as made by `stamp`. */
export function withChangeStamp<T>(stamp: ChangeStamp, work: () => T): T {
  return current.run(stamp, work);
}

/** Runs `work` with the current stamp's changes recorded as being of `kind`. */
export function asChangeKind<T>(kind: ChangeStamp['kind'], work: () => T): T {
  const stamp = current.getStore();
  return stamp ? current.run({ ...stamp, kind }, work) : work();
}

/** The most characters of an actor or correlation id recorded; longer ones are cut. */
const MAX_TEXT = 255;

/**
 * The statement that states the current stamp to the transaction just begun (transaction-local
 * settings the log's triggers read), or undefined outside any stamped work. Literals, not
 * parameters: it is sent with the `begin` as one simple query.
 */
function stampStatement(stamp: ChangeStamp): string {
  const set = (name: string, value: string) =>
    `set_config('assetql.${name}', ${pg.escapeLiteral(value)}, true)`;
  const [kind, actor, correlationId, change, key] = stampValues(stamp);
  return `select ${[
    set('actor_kind', kind),
    set('actor', actor),
    set('correlation_id', correlationId),
    set('change_kind', change),
    set('actor_key', key),
  ].join(', ')}`;
}

function stampValues(stamp: ChangeStamp): [string, string, string, string, string] {
  const text = (value: string | null | undefined) => (value ?? '').replaceAll('\0', '').slice(0, MAX_TEXT);
  return [
    text(stamp.actorKind),
    text(stamp.actor),
    text(stamp.correlationId),
    text(stamp.kind),
    text(stamp.actorKind === 'API_KEY' ? stamp.apiKeyId : null),
  ];
}

/**
 * The same settings as parameters, as a statement that answers no row (so that it adds nothing
 * to the answer of the statement it is sent before) and cannot fail.
 */
const STAMP_SQL =
  "select where concat(set_config('assetql.actor_kind', $1, true), set_config('assetql.actor', $2, true), " +
  "set_config('assetql.correlation_id', $3, true), set_config('assetql.change_kind', $4, true), " +
  "set_config('assetql.actor_key', $5, true)) is null";

/** What opens a transaction, sent as a simple query: `begin`, `start transaction …`. */
const BEGIN = /^\s*(begin|start\s+transaction)\b/i;
/** What may write a logged table by itself. */
const WRITING = /^\s*(insert|update|delete|merge|with)\b/i;

/**
 * The `pg` client that carries the current stamp to the database with the statements of stamped
 * work, whichever code sends them (Kysely, a COPY's transaction, raw SQL), at no extra round trip:
 *
 * - a `begin` goes out as `begin; select set_config(…)`, one simple query: the transaction is
 *   stamped from its start;
 * - a writing statement outside any transaction goes out behind the stamp's own statement: in one
 *   simple query when it has no parameters (it may hold several statements), else in the
 *   same pipeline (Parse, Bind, Execute of each, then one Sync): both run in the pipeline's one
 *   implicit transaction, so the stamp holds for that statement alone, and the row locks it takes
 *   are released at its own commit, as for any statement alone (a transaction of `begin`, stamp,
 *   statement and `commit` held them across a round trip to this process).
 *
 * Outside stamped work, and for statements inside a transaction (stamped at its `begin`),
 * nothing is added.
 */
export function stampingClient(): typeof pg.Client {
  return class StampingClient extends pg.Client {
    // biome-ignore lint/suspicious/noExplicitAny: pg's query is overloaded many ways
    override query(...args: any[]): any {
      const [config, values, callback] = args;
      const stamp = current.getStore();
      // Passed on as given: pg, and what instruments it, read the arguments by their number.
      if (!stamp || (typeof config === 'object' && typeof config.submit === 'function'))
        return Reflect.apply(super.query, this, args);
      const query: pg.QueryConfig & { callback?: unknown } =
        typeof config === 'string' ? { text: config } : { ...config };
      const done = typeof values === 'function' ? values : (callback ?? query.callback);
      delete query.callback;
      if (Array.isArray(values)) query.values = values;
      const params = query.values ?? [];
      let sent: pg.Submittable & { promise: Promise<pg.QueryResult> };
      if (BEGIN.test(query.text) && params.length === 0) {
        sent = answered(new pg.Query({ ...query, text: `${query.text}\n;${stampStatement(stamp)}` }), (r) =>
          Array.isArray(r) ? r[0]! : r,
        );
      } else if (WRITING.test(query.text) && !inTransaction(this) && params.length === 0 && !query.name) {
        // Without parameters, as pg sends it: a simple query, which may hold several statements,
        // with the stamp's statement first; one implicit transaction all the same.
        sent = answered(new pg.Query({ ...query, text: `${stampStatement(stamp)};\n${query.text}` }), (r) => {
          const own = (r as pg.QueryResult[]).slice(1);
          return (own.length === 1 ? own[0] : own) as pg.QueryResult;
        });
      } else if (WRITING.test(query.text) && !inTransaction(this)) {
        sent = answered(new StampedQuery(query, stampValues(stamp)));
      } else return Reflect.apply(super.query, this, args);
      super.query(sent);
      if (typeof done !== 'function') return sent.promise;
      sent.promise.then(
        (r) => done(null, r),
        (e) => done(e),
      );
      return undefined;
    }
  };
}

/**
 * Whether `client`'s last answer left a transaction open. A client not connected yet runs its first
 * statement outside any.
 */
function inTransaction(client: pg.Client): boolean {
  const status = client.getTransactionStatus();
  return status === 'T' || status === 'E';
}

/**
 * A statement sent behind {@link STAMP_SQL} in one pipeline. `prepare` and `handleCommandComplete`
 * are pg's Query's own protocol steps (the ones pg-cursor overrides too).
 */
class StampedQuery extends pg.Query {
  readonly #stamp: string[];
  #stampAnswered = false;

  constructor(query: pg.QueryConfig, stamp: string[]) {
    // Extended protocol even without parameters: a simple query cannot share the pipeline.
    super({ ...query, queryMode: 'extended' } as pg.QueryConfig);
    this.#stamp = stamp;
  }

  prepare(connection: PgConnection): void {
    connection.parse({ text: STAMP_SQL, name: '', types: [] });
    connection.bind({ portal: '', statement: '', values: this.#stamp, binary: false });
    connection.execute({ portal: '', rows: 0 });
    (pg.Query.prototype as unknown as { prepare(c: PgConnection): void }).prepare.call(this, connection);
  }

  handleCommandComplete(message: unknown, connection: PgConnection): void {
    // The first command to complete is the stamp's (it answers no row, so nothing else of it arrived).
    if (!this.#stampAnswered) {
      this.#stampAnswered = true;
      return;
    }
    (
      pg.Query.prototype as unknown as { handleCommandComplete(m: unknown, c: PgConnection): void }
    ).handleCommandComplete.call(this, message, connection);
  }
}

/** What of pg's connection the pipeline writes with. */
interface PgConnection {
  parse(message: { text: string; name: string; types: number[] }): void;
  bind(message: { portal: string; statement: string; values: unknown[]; binary: boolean }): void;
  execute(message: { portal: string; rows: number }): void;
}

/** `query` with its answer (or error) as a promise, through pg's callback. */
function answered<Q extends pg.Query>(
  query: Q,
  map: (r: pg.QueryResult | pg.QueryResult[]) => pg.QueryResult = (r) => r as pg.QueryResult,
): Q & { promise: Promise<pg.QueryResult> } {
  const q = query as Q & {
    promise: Promise<pg.QueryResult>;
    callback?: (e: Error | null, r?: unknown) => void;
  };
  q.promise = new Promise((resolve, reject) => {
    q.callback = (e, r) => (e ? reject(e) : resolve(map(r as pg.QueryResult)));
  });
  return q;
}

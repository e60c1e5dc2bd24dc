import { randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import pg from 'pg';

/**
 * Statements prepared by name on each PostgreSQL connection, as PostGraphile, pgx and JDBC's
 * driver do: a statement text this process has sent before is parsed and analysed once per
 * connection, not for every request, and PostgreSQL may keep a generic plan for it after five
 * runs (`plan_cache_mode`). What the requests repeat (a page, a filtered page, a rename) then
 * costs PostgreSQL only its execution (docs/performance.md "Statements prepared by name").
 *
 * Bounded: only a `select`, `insert`, `update`, `delete` or `with` text with parameters, of at most
 * {@link MAX_TEXT} characters, that the process has sent at least twice is named (one-off texts
 * never take a slot); each connection keeps at most `perConnection` of them and {@link MAX_CHARS}
 * characters of text, and forgets the one used least recently to make room. Names are never
 * reused, so no statement meets another's text, nor another process's.
 *
 * A named statement that fails for any reason is forgotten (its Parse may have failed, its
 * parameters' types may be out of date after a migration) and prepared anew when it comes back.
 * One PostgreSQL refuses to run as prepared (its result columns changed under it, or the name is
 * gone: `DISCARD ALL` by a pooler) did not run, and is sent again unnamed when it ran alone outside
 * a transaction. Forgotten names are deallocated before the connection's next statement outside a
 * transaction, never inside one. The connection is used one statement at a time, as pg-pool and
 * Kysely use it (pg deprecates queueing several). Only for PostgreSQL reached by URL: not through a
 * transaction-mode pooler, whose connections are not the session's (turn it off there,
 * `ASSETQL_DB_PREPARED_STATEMENTS=0`).
 */
export function preparingClient(perConnection: number, Base: typeof pg.Client = pg.Client): typeof pg.Client {
  return class PreparingClient extends Base {
    /** Text → name, least recently used first. */
    readonly #named = new Map<string, string>();
    /** The characters of the texts in {@link #named}. */
    #chars = 0;
    /** Names forgotten here, to deallocate on the server before this connection's next statement run outside a transaction. */
    #stale: string[] = [];

    // biome-ignore lint/suspicious/noExplicitAny: pg's query is overloaded many ways
    override query(config: any, values?: any, callback?: any): any {
      if (typeof config !== 'string') {
        // A query object (a cursor, a stream) is pg's to run as it likes.
        if (typeof config.submit === 'function') return super.query(config, values, callback);
        return this.#sent(config, values, callback);
      }
      const done = typeof values === 'function' ? values : callback;
      const params: unknown = typeof values === 'function' ? undefined : values;
      // No transaction open and nothing running or waiting here: a statement sent now runs alone.
      const idle = this.getTransactionStatus() === 'I' && alone(this);
      // Without values pg sends the text as a simple query, which may hold several statements.
      const named = Array.isArray(params) && params.length > 0 && this.#worthNaming(config);
      const deallocate = idle && this.#stale.length > 0;
      if (!named && !deallocate) return this.#sent(config, values, callback);
      const run = (async () => {
        if (deallocate) await this.#deallocate();
        return named ? this.#run(config, params as unknown[], idle) : this.#sent(config, params);
      })();
      if (typeof done !== 'function') return run;
      // pg-pool's own query passes a callback.
      run.then(
        (r) => done(null, r),
        (e) => done(e),
      );
      return undefined;
    }

    #worthNaming(text: string): boolean {
      return (
        perConnection > 0 &&
        text.length <= MAX_TEXT &&
        PLANNABLE.test(text) &&
        (this.#named.has(text) || (this.#stale.length < MAX_STALE && seenBefore(text)))
      );
    }

    /**
     * Sends a statement through pg's callback form, its answer awaited on a promise of ours. pg's
     * own promise (the form without a callback) left every statement's rows alive past the next
     * young-generation collection, to be promoted and collected only by a full one: a page of 100
     * wells had about 20 kB of its rows promoted, in a plain loop of `client.query` (without the
     * callback, 14–20 kB a statement; with it, 0.3 kB), and the collector's work grew with them
     * (docs/performance.md, "Rows that outlived their statement").
     */
    // biome-ignore lint/suspicious/noExplicitAny: pg's query is overloaded many ways
    #sent(config: any, values?: any, callback?: any): any {
      if (typeof values === 'function' || typeof callback === 'function')
        return super.query(config, values, callback);
      return this.#answered(config, values);
    }

    /**
     * A failed statement's error is made where pg reads the socket, so its stack leads there and no
     * further. As pg's promise form does, it is taken again where the caller awaits it: the
     * stack then leads back through the awaiting functions (the repository, the resolver) that sent
     * the statement, which a log line of an unexpected database error needs.
     */
    // biome-ignore lint/suspicious/noExplicitAny: pg's query is overloaded many ways
    async #answered(config: any, values: any): Promise<pg.QueryResult> {
      try {
        return await new Promise<pg.QueryResult>((resolve, reject) => {
          const answered = (e: Error | null, result: pg.QueryResult) => (e ? reject(e) : resolve(result));
          if (values === undefined) super.query(config, answered);
          else super.query(config, values, answered);
        });
      } catch (e) {
        if (e instanceof Error) Error.captureStackTrace(e);
        throw e;
      }
    }

    async #run(text: string, values: unknown[], idle: boolean): Promise<pg.QueryResult> {
      const name = this.#nameOf(text);
      try {
        return await this.#sent({ name, text, values });
      } catch (e) {
        // Whatever failed, the name is not trusted again: its Parse may have failed, pg may have
        // closed it (a value it could not send), its parameters' types may be out of date (a
        // column changed by a migration); the next run prepares the text anew.
        if (this.#named.get(text) === name) this.#forget(text, name);
        // Refused as prepared, it did not run: alone and outside a transaction, it runs as sent.
        if (stale(e) && idle && alone(this, true)) return this.#sent(text, values);
        throw e;
      }
    }

    #nameOf(text: string): string {
      const had = this.#named.get(text);
      if (had !== undefined) {
        this.#named.delete(text);
        this.#named.set(text, had);
        return had;
      }
      while (
        this.#named.size > 0 &&
        (this.#named.size >= perConnection || this.#chars + text.length > MAX_CHARS)
      ) {
        const [oldText, oldName] = this.#named.entries().next().value as [string, string];
        this.#forget(oldText, oldName);
      }
      const name = `aq_${PROCESS}_${(nextName++).toString(36)}`;
      this.#named.set(text, name);
      this.#chars += text.length;
      return name;
    }

    /**
     * Forgets `text`'s `name` here, and deallocates it on the server later: never inside a
     * transaction, where a DEALLOCATE of a name the server does not hold (its Parse failed) would
     * abort the caller's transaction.
     */
    #forget(text: string, name: string): void {
      this.#named.delete(text);
      this.#chars -= text.length;
      this.#stale.push(name);
      // pg's own record of the name, which is never used again.
      const records = (this as unknown as { connection: { parsedStatements?: Record<string, string> } })
        .connection;
      delete records.parsedStatements?.[name];
    }

    /** Deallocates the forgotten names, one after another; a name the server does not hold is no error here. */
    async #deallocate(): Promise<void> {
      for (const name of this.#stale.splice(0)) await this.#sent(`deallocate ${name}`).catch(() => {});
    }
  };
}

/**
 * Whether nothing else is running or waiting on `client` (pg's own state): a statement sent now
 * runs next, in the transaction state it was last told. `afterError`: called on a statement's
 * error, which pg reports before the connection is ready again.
 */
function alone(client: pg.Client, afterError = false): boolean {
  const c = client as unknown as { readyForQuery?: boolean; _queryQueue?: unknown[] };
  return (afterError || c.readyForQuery === true) && (c._queryQueue?.length ?? 0) === 0;
}

/** Longer texts are not named (a filter with a long list of values, for one). */
export const MAX_TEXT = 4_096;

/**
 * The characters of the texts one connection keeps prepared, at most: PostgreSQL holds each
 * statement's parse tree and plan, about 75 bytes for a byte of text for a filtered page with a
 * generic plan (600 KB for 8 KB), so at most about 10 MB per connection.
 */
export const MAX_CHARS = 131_072;

/** Names waiting to be deallocated on one connection at most; past it, no new text is named there. */
const MAX_STALE = 32;

const PLANNABLE = /^\s*(select|insert|update|delete|with)\b/i;

/**
 * Whether PostgreSQL would not run a named statement as prepared: 0A000 "cached plan must not
 * change result type" from the plan cache's revalidation (a migration changed a table it reads;
 * told by its routine, since 0A000 says only "feature not supported" and messages are translated),
 * or 26000 "prepared statement does not exist" (the session was reset under the pool).
 */
function stale(e: unknown): boolean {
  const { code, routine } = e as { code?: string; routine?: string };
  return code === '26000' || (code === '0A000' && routine === 'RevalidateCachedQuery');
}

let nextName = 0;
/**
 * Names differ between processes too: a session pooler that hands one process a server connection
 * another left without `DISCARD ALL` (PgBouncer's `server_reset_query` unset) meets no name taken.
 */
const PROCESS = randomBytes(4).toString('hex');

/**
 * Texts sent once in this process, the 500 most recent, and texts sent twice or more, the 500 used
 * most recently: at most 4 MB of text kept, however many different statements a client causes.
 */
const SEEN = 500;
const onceSeen = new LRUCache<string, true>({ max: SEEN });
const seenTwice = new LRUCache<string, true>({ max: SEEN });

function seenBefore(text: string): boolean {
  if (seenTwice.get(text)) return true;
  if (onceSeen.get(text)) {
    onceSeen.delete(text);
    seenTwice.set(text, true);
    return true;
  }
  onceSeen.set(text, true);
  return false;
}

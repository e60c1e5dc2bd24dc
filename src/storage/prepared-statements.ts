import { randomBytes } from 'node:crypto';
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
 * never take a slot); each connection keeps at most `perConnection` of them and deallocates the
 * one used least recently to make room. Names are never reused, so a statement queued before its
 * name was deallocated cannot meet another statement's text, nor another process's.
 *
 * A named statement PostgreSQL refuses to run as prepared (its result columns changed under it,
 * or the name is gone: `DISCARD ALL` by a pooler) is deallocated here, and sent again unnamed
 * when no transaction is open (it did not run); inside a transaction the error stands, as any
 * error would. Only for PostgreSQL reached by URL: not through a transaction-mode pooler, whose
 * connections are not the session's (turn it off there, `ASSETQL_DB_PREPARED_STATEMENTS=0`).
 */
export function preparingClient(perConnection: number): typeof pg.Client {
  return class PreparingClient extends pg.Client {
    /** Text → name, least recently used first. */
    readonly #named = new Map<string, string>();
    /** Names to deallocate once no failed transaction is open (it refuses every command but its end). */
    #stale: string[] = [];

    // biome-ignore lint/suspicious/noExplicitAny: pg's query is overloaded many ways
    override query(config: any, values?: any, callback?: any): any {
      if (this.#stale.length > 0 && this.getTransactionStatus() !== 'E') this.#deallocate();
      if (
        typeof config !== 'string' ||
        // Without values pg sends the text as a simple query, which may hold several statements.
        !Array.isArray(values) ||
        values.length === 0 ||
        !this.#worthNaming(config)
      )
        return super.query(config, values, callback);
      const run = this.#run(config, values);
      if (typeof callback !== 'function') return run;
      // pg-pool's own query passes a callback.
      run.then(
        (r) => callback(null, r),
        (e) => callback(e),
      );
      return undefined;
    }

    #worthNaming(text: string): boolean {
      return (
        perConnection > 0 &&
        text.length <= MAX_TEXT &&
        PLANNABLE.test(text) &&
        (this.#named.has(text) || seenBefore(text))
      );
    }

    async #run(text: string, values: unknown[]): Promise<pg.QueryResult> {
      const idle = this.getTransactionStatus() === 'I';
      const name = this.#nameOf(text);
      try {
        return await super.query({ name, text, values });
      } catch (e) {
        if (!stale(e) || this.#named.get(text) !== name) throw e;
        this.#forget(text, name);
        // It did not run; outside a transaction it can be sent again as it is.
        if (!idle) throw e;
        return super.query(text, values);
      }
    }

    #nameOf(text: string): string {
      const had = this.#named.get(text);
      if (had !== undefined) {
        this.#named.delete(text);
        this.#named.set(text, had);
        return had;
      }
      if (this.#named.size >= perConnection) {
        const [oldText, oldName] = this.#named.entries().next().value as [string, string];
        this.#forget(oldText, oldName);
      }
      const name = `aq_${PROCESS}_${(nextName++).toString(36)}`;
      this.#named.set(text, name);
      return name;
    }

    /** Forgets `text`'s `name` on this connection, and deallocates it as soon as it can. */
    #forget(text: string, name: string): void {
      this.#named.delete(text);
      this.#stale.push(name);
      if (this.getTransactionStatus() !== 'E') this.#deallocate();
    }

    /** Deallocates the stale names, queued behind what already uses them. */
    #deallocate(): void {
      const names = this.#stale;
      this.#stale = [];
      for (const name of names)
        super.query(`deallocate ${name}`, (e: Error | null) => {
          // In a transaction that failed since (its statements run ahead of this one): again later.
          if ((e as { code?: string } | null)?.code === '25P02') this.#stale.push(name);
          // Else its text is no longer held for a name that is never used again (pg's own record).
          else
            delete (this as unknown as { connection: { parsedStatements: Record<string, string> } })
              .connection.parsedStatements?.[name];
        });
    }
  };
}

/** Statements each connection keeps prepared unless configured otherwise. */
export const DEFAULT_PREPARED_STATEMENTS = 100;

/** Longer texts are not named (a filter with a long list of values, for one). */
export const MAX_TEXT = 8_192;

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
 * most recently: at most 8 MB of text kept, however many different statements a client causes.
 */
const onceSeen = new Set<string>();
const seenTwice = new Set<string>();
const SEEN = 500;

function seenBefore(text: string): boolean {
  if (seenTwice.delete(text)) {
    seenTwice.add(text);
    return true;
  }
  if (onceSeen.delete(text)) {
    if (seenTwice.size >= SEEN) seenTwice.delete(seenTwice.values().next().value as string);
    seenTwice.add(text);
    return true;
  }
  if (onceSeen.size >= SEEN) onceSeen.delete(onceSeen.values().next().value as string);
  onceSeen.add(text);
  return false;
}

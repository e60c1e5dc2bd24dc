import type {
  CompiledQuery,
  DatabaseConnection,
  Dialect,
  Driver,
  OperationNode,
  QueryCompiler,
  QueryResult,
  RootOperationNode,
  TransactionSettings,
} from 'kysely';

/** What one statement wrote: the watched tables, and whether it only inserted rows. */
interface Written {
  tables: string[];
  insertOnly: boolean;
}

/**
 * Tells this process when one of its own statements has changed a table it watches, whichever
 * code ran it (a builder query or raw SQL through the same `db`): right after the statement, or,
 * for a statement in a transaction, once the transaction commits (never for one rolled back), so
 * that what is told is what other connections can read. Other processes' changes are not seen
 * here: what must hear of those listens for the database's notices (change-notices.ts). Errs on
 * the side of telling: a raw statement that names a watched table and a writing keyword counts
 * as a change. Installed around the dialect's driver ({@link TableWrites.dialect}).
 */
export class TableWrites {
  readonly #watchers = new Map<string, Set<Watcher>>();

  /**
   * Calls `changed` after each statement of this process that writes `table`; returns the undo.
   * With `inserts: false`, a plain insert (no `on conflict … do update`) is not told: for what
   * only a change to existing rows can make stale.
   */
  watch(tables: readonly string[], changed: () => void, options: { inserts?: boolean } = {}): () => void {
    const watcher: Watcher = { changed, inserts: options.inserts ?? true };
    for (const t of tables) {
      let set = this.#watchers.get(t);
      if (!set) {
        set = new Set();
        this.#watchers.set(t, set);
      }
      set.add(watcher);
    }
    return () => {
      for (const t of tables) this.#watchers.get(t)?.delete(watcher);
    };
  }

  /** `inner` with this process's statements watched. */
  dialect(inner: Dialect): Dialect {
    return {
      createAdapter: () => inner.createAdapter(),
      createIntrospector: (db) => inner.createIntrospector(db),
      createQueryCompiler: () => inner.createQueryCompiler(),
      createDriver: () => new WatchedDriver(inner.createDriver(), this),
    };
  }

  /** What `node` writes of the watched tables, if anything. */
  written(node: RootOperationNode): Written | undefined {
    if (this.#watchers.size === 0) return undefined;
    const tables = this.#written(node).filter((t) => this.#watchers.get(t)?.size);
    if (tables.length === 0) return undefined;
    const n = node as OperationNode & { onConflict?: { updates?: unknown } };
    return { tables, insertOnly: n.kind === 'InsertQueryNode' && !n.onConflict?.updates };
  }

  /** Calls each watcher of what was written, once. */
  tell(writes: readonly Written[]): void {
    const called = new Set<() => void>();
    for (const written of writes)
      for (const t of written.tables)
        for (const { changed, inserts } of this.#watchers.get(t) ?? [])
          if (!called.has(changed) && (inserts || !written.insertOnly)) {
            called.add(changed);
            changed();
          }
  }

  #written(node: RootOperationNode): string[] {
    const n = node as OperationNode & Record<string, unknown>;
    switch (n.kind) {
      case 'InsertQueryNode':
        return names([n.into]);
      case 'UpdateQueryNode':
        return names([n.table]);
      case 'DeleteQueryNode':
        return names(((n.from as { froms?: unknown[] } | undefined)?.froms ?? []) as unknown[]);
      case 'RawNode': {
        const text = (n.sqlFragments as readonly string[]).join(' ');
        if (!/\b(insert|update|delete|truncate|merge|alter|drop)\b/i.test(text)) return [];
        return [...this.#watchers.keys()].filter((t) => new RegExp(`\\b${t}\\b`, 'i').test(text));
      }
      default:
        return [];
    }
  }
}

/** A connection whose statements are told, or held until its transaction commits. */
class WatchedConnection implements DatabaseConnection {
  readonly inner: DatabaseConnection;
  readonly #writes: TableWrites;
  /** The writes of the open transaction, if one is open. */
  held: Written[] | undefined;

  constructor(inner: DatabaseConnection, writes: TableWrites) {
    this.inner = inner;
    this.#writes = writes;
    if (inner.cancelQuery) this.cancelQuery = (p) => inner.cancelQuery!(p);
    if (inner.killSession) this.killSession = (p) => inner.killSession!(p);
    if (inner.collectSessionInfo) this.collectSessionInfo = () => inner.collectSessionInfo!();
  }

  cancelQuery?: DatabaseConnection['cancelQuery'];
  killSession?: DatabaseConnection['killSession'];
  collectSessionInfo?: DatabaseConnection['collectSessionInfo'];

  async executeQuery<R>(
    query: CompiledQuery,
    options?: Parameters<DatabaseConnection['executeQuery']>[1],
  ): Promise<QueryResult<R>> {
    const result = await this.inner.executeQuery<R>(query, options);
    // An update or delete that matched no row changed nothing.
    if (result.numAffectedRows !== 0n) this.#note(query);
    return result;
  }

  async *streamQuery<R>(
    query: CompiledQuery,
    chunkSize: number,
    options?: Parameters<DatabaseConnection['streamQuery']>[2],
  ): AsyncIterableIterator<QueryResult<R>> {
    yield* this.inner.streamQuery<R>(query, chunkSize, options);
    this.#note(query);
  }

  #note(query: CompiledQuery): void {
    const written = this.#writes.written(query.query);
    if (!written) return;
    if (this.held) this.held.push(written);
    else this.#writes.tell([written]);
  }
}

/** The dialect's driver, handing out {@link WatchedConnection}s and telling at commit. */
class WatchedDriver implements Driver {
  readonly #inner: Driver;
  readonly #writes: TableWrites;
  readonly #wrapped = new WeakMap<DatabaseConnection, WatchedConnection>();

  constructor(inner: Driver, writes: TableWrites) {
    this.#inner = inner;
    this.#writes = writes;
  }

  init(options?: Parameters<Driver['init']>[0]): Promise<void> {
    return this.#inner.init(options);
  }

  async acquireConnection(options?: Parameters<Driver['acquireConnection']>[0]): Promise<DatabaseConnection> {
    const inner = await this.#inner.acquireConnection(options);
    let wrapped = this.#wrapped.get(inner);
    if (!wrapped) {
      wrapped = new WatchedConnection(inner, this.#writes);
      this.#wrapped.set(inner, wrapped);
    }
    return wrapped;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    const c = connection as WatchedConnection;
    await this.#inner.beginTransaction(c.inner, settings);
    c.held = [];
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as WatchedConnection;
    const held = c.held ?? [];
    c.held = undefined;
    await this.#inner.commitTransaction(c.inner);
    if (held.length) this.#writes.tell(held);
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as WatchedConnection;
    c.held = undefined;
    await this.#inner.rollbackTransaction(c.inner);
  }

  savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    return this.#inner.savepoint!((connection as WatchedConnection).inner, name, compile);
  }

  // Writes undone to a savepoint are still told at commit: telling too much is safe.
  rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    return this.#inner.rollbackToSavepoint!((connection as WatchedConnection).inner, name, compile);
  }

  releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']) {
    return this.#inner.releaseSavepoint!((connection as WatchedConnection).inner, name, compile);
  }

  releaseConnection(
    connection: DatabaseConnection,
    options?: Parameters<Driver['releaseConnection']>[1],
  ): Promise<void> {
    const c = connection as WatchedConnection;
    c.held = undefined;
    return this.#inner.releaseConnection(c.inner, options);
  }

  destroy(options?: Parameters<Driver['destroy']>[0]): Promise<void> {
    return this.#inner.destroy(options);
  }
}

interface Watcher {
  changed: () => void;
  inserts: boolean;
}

/** The table names of TableNodes, or of aliased ones. */
function names(nodes: unknown[]): string[] {
  const out: string[] = [];
  for (let node of nodes as (
    | { kind?: string; node?: unknown; table?: { identifier?: { name?: string } } }
    | undefined
  )[]) {
    if (node?.kind === 'AliasNode') node = node.node as typeof node;
    const name = node?.kind === 'TableNode' ? node.table?.identifier?.name : undefined;
    if (name) out.push(name);
  }
  return out;
}

import type {
  KyselyPlugin,
  OperationNode,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';

type QueryId = PluginTransformQueryArgs['queryId'];

/**
 * Tells this process when one of its own statements has changed a table it watches, right after
 * the statement, whichever code ran it (a builder query or raw SQL through the same `db`). Other
 * processes' changes are not seen here: what must hear of those listens for the database's
 * notices (profiles/cache.ts). Errs on the side of telling: a raw statement that names a watched
 * table and a writing keyword counts as a change.
 */
export class TableWrites implements KyselyPlugin {
  readonly #watchers = new Map<string, Set<Watcher>>();
  readonly #pending = new WeakMap<QueryId, { tables: string[]; insertOnly: boolean }>();

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

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    if (this.#watchers.size > 0) {
      const written = this.#written(args.node).filter((t) => this.#watchers.get(t)?.size);
      if (written.length) {
        const n = args.node as OperationNode & { onConflict?: { updates?: unknown } };
        const insertOnly = n.kind === 'InsertQueryNode' && !n.onConflict?.updates;
        this.#pending.set(args.queryId, { tables: written, insertOnly });
      }
    }
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const written = this.#pending.get(args.queryId);
    if (written) {
      this.#pending.delete(args.queryId);
      const called = new Set<() => void>();
      for (const t of written.tables)
        for (const { changed, inserts } of this.#watchers.get(t) ?? [])
          if (!called.has(changed) && (inserts || !written.insertOnly)) {
            called.add(changed);
            changed();
          }
    }
    return args.result;
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

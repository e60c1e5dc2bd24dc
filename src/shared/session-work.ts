import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * A piece of work on behalf of one session (a subgraph's answer to one operation), as the
 * database's read routing sees it (storage/replicas.ts): whether its reads may go to a replica,
 * where they go once chosen, and whether it wrote.
 */
export interface SessionWork {
  /** The session's `sessions.id_hash`, in hex; null for an anonymous caller. */
  readonly session: string | null;
  readonly replicaReads: boolean;
  /** Where its reads go, chosen by the router at its first read (the router's own type). */
  target?: Promise<unknown>;
  /** What sent one of its writes: it records the session's last write once the work is done. */
  wrote?: WriteRecorder;
}

/** The work under way, for the router under Kysely. */
export const sessionWork = new AsyncLocalStorage<SessionWork>();

/** What records a session's last write on its primary (storage/replicas.ts, the router). */
export interface WriteRecorder {
  recordWrite(session: string): Promise<void>;
}

/**
 * Routers open in this process (storage/replicas.ts): without one, {@link forSession} costs
 * nothing. Each records the writes of work that wrote around it (the raw pool's statements: an
 * upsert, an import, a COPY), which its driver does not see.
 */
export const replicaRouting = { routers: new Set<WriteRecorder>() };

/**
 * Runs `work` for `session`. With `replicaReads` (a query, never a mutation or a subscription) its
 * reads outside a transaction may be answered by a read replica that has replayed the session's
 * last write; everything else goes to the primary. When it wrote, where the primary's WAL then
 * stood is recorded as the session's last write (its sessions row, which every process reads)
 * before this returns, so that the client's next read, by any process, sees it. `writes` (a
 * mutation) records it in any case: a write sent on the raw pool, not through the router's
 * driver, is not seen as one.
 */
export async function forSession<T>(
  session: string | null,
  replicaReads: boolean,
  work: () => Promise<T>,
  options: { writes?: boolean } = {},
): Promise<T> {
  if (replicaRouting.routers.size === 0) return work();
  const scope: SessionWork = { session, replicaReads };
  try {
    return await sessionWork.run(scope, work);
  } finally {
    if (session && scope.wrote) await scope.wrote.recordWrite(session);
    else if (session && options.writes) for (const r of replicaRouting.routers) await r.recordWrite(session);
  }
}

/** Runs `work`'s reads on the primary: for what is kept beyond the request (a cache's load). */
export function onPrimary<T>(work: () => T): T {
  return sessionWork.getStore()?.replicaReads ? sessionWork.exit(work) : work();
}

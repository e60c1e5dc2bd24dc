import { AsyncLocalStorage } from 'node:async_hooks';
import pg from 'pg';

/**
 * Who makes the changes of a piece of work, and why: what the change log's entries of every
 * transaction begun within it record (migrations/20261128T0100_change_log.ts). Never a secret:
 * a username, an API key's owner, or a named system actor such as `assetql import`.
 */
export interface ChangeStamp {
  actorKind: 'USER' | 'API_KEY' | 'SYSTEM';
  actor: string;
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
 * parameters: it is sent as one simple query.
 */
export function stampStatement(): string | undefined {
  const stamp = current.getStore();
  if (!stamp) return undefined;
  const set = (name: string, value: string | null | undefined) =>
    `set_config('assetql.${name}', ${pg.escapeLiteral((value ?? '').replaceAll('\0', '').slice(0, MAX_TEXT))}, true)`;
  return `select ${[
    set('actor_kind', stamp.actorKind),
    set('actor', stamp.actor),
    set('correlation_id', stamp.correlationId),
    set('change_kind', stamp.kind),
  ].join(', ')}`;
}

/** Begins a transaction on a pooled client, stamped as {@link stampStatement} says. */
export async function beginStamped(client: pg.PoolClient): Promise<void> {
  await client.query('begin');
  const stamp = stampStatement();
  if (stamp) await client.query(stamp);
}

import { badCursor, decodeCursor, encodeCursor } from '../../shared/cursors.ts';

/** A change's place in the log: its transaction's id and its sequence number, as decimal text. */
export interface Position {
  tx: string;
  seq: string;
}

/** At most a 64-bit unsigned number: what PostgreSQL's xid8 and bigint hold. */
const NUMBER = /^[0-9]{1,19}$/;

export function encodePosition(p: Position): string {
  return encodeCursor([p.tx, p.seq]);
}

/** The position a cursor names; a cursor of another list, or made up, is BAD_USER_INPUT. */
export function decodePosition(cursor: string): Position {
  const [tx, seq] = decodeCursor(cursor, 2);
  if (
    typeof tx !== 'string' ||
    typeof seq !== 'string' ||
    !NUMBER.test(tx) ||
    !NUMBER.test(seq) ||
    BigInt(tx) > 0x7fff_ffff_ffff_ffffn ||
    BigInt(seq) > 0x7fff_ffff_ffff_ffffn
  )
    throw badCursor();
  return { tx, seq };
}

/**
 * What a reader could see at one moment: PostgreSQL's `pg_snapshot`. Transactions below `xmin`
 * had ended, those from `xmax` on had not begun, and those between had ended unless in `running`.
 */
export interface Snapshot {
  xmin: bigint;
  xmax: bigint;
  running: ReadonlySet<bigint>;
}

/** A `pg_snapshot` as PostgreSQL writes it: `xmin:xmax:xip,…`. */
export function parseSnapshot(text: string): Snapshot {
  const [xmin, xmax, running] = text.split(':');
  if (!xmin || !xmax || running === undefined) throw new Error(`not a snapshot: ${text}`);
  return {
    xmin: BigInt(xmin),
    xmax: BigInt(xmax),
    running: new Set(running ? running.split(',').map(BigInt) : []),
  };
}

/**
 * Whether the change at `p` had committed for a reader with `snapshot` (PostgreSQL's
 * `pg_visible_in_snapshot`): it came before what that reader is owed. A stream opened without a
 * cursor and a webhook each keep the snapshot of their start and skip what it saw, which may lie
 * after their position: the log's end as a resuming reader reads it stops before any transaction
 * still running, and changes committed after that one began lie beyond it.
 */
export function seenIn(snapshot: Snapshot, p: Position): boolean {
  const tx = BigInt(p.tx);
  return tx < snapshot.xmin || (tx < snapshot.xmax && !snapshot.running.has(tx));
}

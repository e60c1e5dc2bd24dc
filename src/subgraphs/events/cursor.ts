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

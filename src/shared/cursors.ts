import { GraphQLError } from 'graphql';

/**
 * Opaque keyset cursors: base64url of a JSON array of the sort-key values of a row.
 * Opaque so that clients never build them, and so that the sort key can change.
 */
export function encodeCursor(key: readonly unknown[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** Decodes a cursor made by encodeCursor, checking it has `arity` string or number parts. */
export function decodeCursor(cursor: string, arity: number): (string | number)[] {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw badCursor();
  }
  if (
    !Array.isArray(key) ||
    key.length !== arity ||
    !key.every((k) => typeof k === 'string' || typeof k === 'number')
  ) {
    throw badCursor();
  }
  return key;
}

function badCursor() {
  return new GraphQLError('The cursor is not valid for this list.', {
    extensions: { code: 'BAD_USER_INPUT' },
  });
}

/**
 * Checks a page-size argument. Absent gives `fallback`; out of range is a clear error,
 * never a silent clamp (clients must learn the limit).
 */
export function pageSize(
  first: number | null | undefined,
  fallback: number,
  max: number,
  arg = 'first',
): number {
  if (first === null || first === undefined) return fallback;
  if (!Number.isInteger(first) || first < 0 || first > max) {
    throw new GraphQLError(`\`${arg}\` must be an integer from 0 to ${max}.`, {
      extensions: { code: 'BAD_USER_INPUT', argument: arg, maximum: max },
    });
  }
  return first;
}

export interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

export interface Connection<T> {
  edges: { cursor: string; node: T }[];
  pageInfo: PageInfo;
}

/**
 * Builds a forward connection from `rows`, fetched with `limit + 1` so that the extra row
 * tells whether another page exists without a count.
 */
export function forwardConnection<T>(
  rows: T[],
  limit: number,
  keyOf: (row: T) => readonly unknown[],
  hadCursor: boolean,
): Connection<T> {
  const page = rows.slice(0, limit);
  const edges = page.map((node) => ({ cursor: encodeCursor(keyOf(node)), node }));
  return {
    edges,
    pageInfo: {
      hasNextPage: rows.length > limit,
      hasPreviousPage: hadCursor,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}

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
  } catch (e) {
    if (e instanceof SyntaxError) throw badCursor();
    throw e;
  }
  if (
    !Array.isArray(key) ||
    key.length !== arity ||
    // A NUL, which PostgreSQL's text cannot hold, would fail the statement as the server's fault.
    !key.every((k) => (typeof k === 'string' && !k.includes('\u0000')) || typeof k === 'number')
  ) {
    throw badCursor();
  }
  return key;
}

/** The refusal of a cursor that is not one of the list's. */
export function badCursor() {
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
  edges: { readonly cursor: string; readonly node: T }[];
  pageInfo: PageInfo;
}

/**
 * An edge whose cursor is encoded only when read: most pages are read without the cursor of
 * every edge (a page of 1,000 would encode 1,000 for the two of `pageInfo`).
 */
class Edge<T> {
  readonly node: T;
  private readonly keyOf: (row: T) => readonly unknown[];
  constructor(node: T, keyOf: (row: T) => readonly unknown[]) {
    this.node = node;
    this.keyOf = keyOf;
  }
  get cursor(): string {
    return encodeCursor(this.keyOf(this.node));
  }
}

/** The edges of a page, in its order. */
export function edgesOf<T>(
  page: readonly T[],
  keyOf: (row: T) => readonly unknown[],
): Connection<T>['edges'] {
  return page.map((node) => new Edge(node, keyOf));
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
  const edges = edgesOf(rows.slice(0, limit), keyOf);
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

import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor, forwardConnection } from './cursors.ts';

describe('forwardConnection', () => {
  const rows = Array.from({ length: 6 }, (_, i) => ({ id: `w-${i}` }));

  it('pages rows fetched with one extra, each edge with the cursor of its key', () => {
    const page = forwardConnection(rows, 5, (r) => [r.id], true);
    expect(page.edges.map((e) => e.node.id)).toEqual(['w-0', 'w-1', 'w-2', 'w-3', 'w-4']);
    expect(page.edges.map((e) => decodeCursor(e.cursor, 1)[0])).toEqual(['w-0', 'w-1', 'w-2', 'w-3', 'w-4']);
    expect(page.pageInfo).toEqual({
      hasNextPage: true,
      hasPreviousPage: true,
      startCursor: page.edges[0]!.cursor,
      endCursor: page.edges[4]!.cursor,
    });
    expect(forwardConnection(rows.slice(0, 2), 5, (r) => [r.id], false).pageInfo.hasNextPage).toBe(false);
  });

  it("encodes an edge's cursor only when it is read", () => {
    const keyed: string[] = [];
    const page = forwardConnection(
      rows,
      5,
      (r) => {
        keyed.push(r.id);
        return [r.id];
      },
      false,
    );
    // pageInfo's two cursors, not the five edges'.
    expect(keyed).toEqual(['w-0', 'w-4']);
    expect(decodeCursor(page.edges[2]!.cursor, 1)).toEqual(['w-2']);
    expect(keyed).toEqual(['w-0', 'w-4', 'w-2']);
  });
});

describe('decodeCursor', () => {
  it("refuses as the client's error what the database could not compare", () => {
    expect(decodeCursor(encodeCursor(['w-1']), 1)).toEqual(['w-1']);
    for (const bad of [
      encodeCursor(['w\u0000']),
      encodeCursor([true]),
      encodeCursor(['a', 'b']),
      'not base64 json',
    ])
      expect(() => decodeCursor(bad, 1)).toThrow(/not valid/);
  });
});

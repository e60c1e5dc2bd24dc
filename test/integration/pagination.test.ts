import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoApp, type TestApp } from '../helpers/app.ts';

/**
 * Keyset pagination while another client writes: every asset that existed before paging
 * began is seen exactly once, whatever is inserted meanwhile, forwards and backwards; an
 * asset inserted during paging is seen at most once.
 */
let t: TestApp;
let demo: Record<string, string>;

const UPSERT = `mutation($input: UpsertAssetsInput!) { upsertAssets(input: $input) { errors { type message } } }`;
const PAGE = `query($first: Int, $after: String, $last: Int, $before: String) {
  assets(profile: "well") { all(first: $first, after: $after, last: $last, before: $before) {
    edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }`;

async function upsert(ids: string[]) {
  const r = await t.graphql<any>(
    UPSERT,
    {
      input: {
        profile: 'well',
        assets: ids.map((id) => ({ id, properties: { name: `Well ${id}`, status: 'drilling' } })),
      },
    },
    demo,
  );
  expect(r.body.data.upsertAssets.errors).toEqual([]);
}

/** A deterministic generator, so a failure can be replayed. */
function lcg(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const id = (n: number) => `P-${String(n).padStart(6, '0')}`;

beforeAll(async () => {
  ({ app: t, demo } = await startDemoApp());
  // Even numbers exist before paging; odd numbers are inserted while paging.
  for (let start = 0; start < 3000; start += 1000)
    await upsert(Array.from({ length: 500 }, (_, i) => id(start + 2 * i)));
});
afterAll(() => t.close());

async function existing(): Promise<string[]> {
  const ids: string[] = [];
  let after: string | null = null;
  for (;;) {
    const r: { body: any } = await t.graphql<any>(PAGE, { first: 1000, after }, demo);
    const conn = r.body.data.assets.all;
    ids.push(...conn.edges.map((e: any) => e.node.id));
    if (!conn.pageInfo.hasNextPage) return ids;
    after = conn.pageInfo.endCursor;
  }
}

describe('keyset pagination under concurrent inserts', () => {
  for (const direction of ['forwards', 'backwards'] as const) {
    it(`sees every existing asset exactly once, paging ${direction}`, async () => {
      const before = await existing();
      const random = lcg(direction === 'forwards' ? 7 : 11);
      const inserted = new Set<string>();
      let writing = true;
      const writer = (async () => {
        while (writing) {
          const batch = Array.from({ length: 20 }, () => id(2 * Math.floor(random() * 1500) + 1)).filter(
            (x) => !inserted.has(x),
          );
          for (const x of batch) inserted.add(x);
          if (batch.length) await upsert([...new Set(batch)]);
        }
      })();
      const seen: string[] = [];
      try {
        let cursor: string | null = null;
        for (let pages = 0; pages < 200; pages++) {
          const vars: Record<string, unknown> =
            direction === 'forwards' ? { first: 50, after: cursor } : { last: 50, before: cursor };
          const r: { body: any } = await t.graphql<any>(PAGE, vars, demo);
          expect(r.body.errors).toBeUndefined();
          const conn: any = r.body.data.assets.all;
          const ids: string[] = conn.edges.map((e: any) => e.node.id);
          // Each page is in ascending id order, whichever way we page.
          expect([...ids].sort()).toEqual(ids);
          if (direction === 'forwards') {
            seen.push(...ids);
            if (!conn.pageInfo.hasNextPage) break;
            cursor = conn.pageInfo.endCursor;
          } else {
            seen.unshift(...ids);
            if (!conn.pageInfo.hasPreviousPage) break;
            cursor = conn.pageInfo.startCursor;
          }
        }
      } finally {
        writing = false;
        await writer;
      }
      expect(inserted.size).toBeGreaterThan(0);
      // No duplicates, order kept, and nothing that existed before is missing.
      expect(new Set(seen).size).toBe(seen.length);
      expect([...seen].sort()).toEqual(seen);
      const seenSet = new Set(seen);
      expect(before.filter((x) => !seenSet.has(x))).toEqual([]);
      // Anything else seen was inserted meanwhile.
      const beforeSet = new Set(before);
      expect(seen.filter((x) => !beforeSet.has(x) && !inserted.has(x))).toEqual([]);
    });
  }
});

/**
 * `Assets.mapViewport`'s cluster cache (src/subgraphs/assets/map/cached-clusters.ts): wide
 * viewports are counted in part from per-sub-cell sums held until the group's change log moves.
 * Every answer is checked against the same viewport counted by the single statement (the same
 * request with a filter the cache never serves: `modifiedAfter` long ago, which every asset
 * passes), and the cache is checked to have answered.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { clusterCacheOf, DEFAULT_LIMITS } from '../../src/subgraphs/assets/map/cell-cache.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let mine: Record<string, string>;
let theirs: Record<string, string>;
const postgres = Boolean(process.env.DATABASE_URL);

/** A deterministic stream of numbers in [0, 1). */
function random(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

function points(seed: number, n: number) {
  const r = random(seed);
  return Array.from({ length: n }, (_, i) => ({
    id: `P-${String(i).padStart(4, '0')}`,
    kind: i % 3 === 0 ? 'pump' : 'well',
    geometry: { type: 'Point', coordinates: [-120 + r() * 20, 45 + r() * 15] } as object,
  }));
}

const extras = [
  // A polygon far larger than the viewports, its centre outside them.
  {
    id: 'A-2',
    kind: 'lease',
    geometry: {
      type: 'Polygon',
      coordinates: [
        [
          [-140, 30],
          [-109, 30],
          [-109, 53],
          [-140, 53],
          [-140, 30],
        ],
      ],
    },
  },
  {
    id: 'L-1',
    kind: 'pipe',
    geometry: {
      type: 'LineString',
      coordinates: [
        [-119, 46],
        [-111, 52],
      ],
    },
  },
];

const VIEWPORT = `query($bbox: [Float!]!, $zoom: Int!, $filter: AssetFilter, $limit: Int) {
  assets(profile: "plot") { mapViewport(bbox: $bbox, zoom: $zoom, filter: $filter, limit: $limit) {
    count clustered gridLevel clusters { key count centroid bbox } } } }`;
const LONG_AGO = { modifiedAfter: '2000-01-01T00:00:00Z' };

async function ask(headers: Record<string, string>, variables: Record<string, unknown>) {
  const r = await t.graphql<any>(VIEWPORT, { limit: 50, ...variables }, headers);
  expect(r.body.errors).toBeUndefined();
  return r.body.data.assets.mapViewport;
}

/** The answer, and the same viewport counted by the single statement: equal, but for a centroid's last bits. */
async function expectAsCounted(
  headers: Record<string, string>,
  variables: { bbox: number[]; zoom: number; filter?: object; limit?: number },
) {
  const answer = await ask(headers, variables);
  const filter = variables.filter ? { and: [variables.filter, LONG_AGO] } : LONG_AGO;
  const counted = await ask(headers, { ...variables, filter });
  expect(answer.clustered, 'a viewport of more than `limit`').toBe(true);
  expect({ ...answer, clusters: null }).toEqual({ ...counted, clusters: null });
  expect(answer.clusters.map((c: any) => [c.key, c.count, c.bbox])).toEqual(
    counted.clusters.map((c: any) => [c.key, c.count, c.bbox]),
  );
  answer.clusters.forEach((c: any, i: number) => {
    expect(c.centroid[0]).toBeCloseTo(counted.clusters[i].centroid[0], 9);
    expect(c.centroid[1]).toBeCloseTo(counted.clusters[i].centroid[1], 9);
  });
  return answer;
}

const cache = () => clusterCacheOf(t.database.db);
const V = [-118.3, 47.2, -101.9, 57.8];
/** V panned east, as a map's arrow key moves it. */
const pans = [0, 0.7, 1.4, 0.7, 0, -0.7].map((d) => [V[0]! + d, V[1]!, V[2]! + d, V[3]!]);

async function insert(group: string, rows: { id: string; kind: string; geometry: object }[]) {
  await sql`insert into assets (user_group, profile, id, properties, geometry, display_name)
    select ${group}, 'plot', r.id, jsonb_build_object('kind', r.kind), r.geometry, r.kind
    from unnest(${rows.map((a) => a.id)}::text[], ${rows.map((a) => a.kind)}::text[],
      ${rows.map((a) => JSON.stringify(a.geometry))}::jsonb[]) as r(id, kind, geometry)`.execute(
    t.database.db,
  );
}

beforeAll(async () => {
  t = await startTestApp();
  for (const group of ['cache-a', 'cache-b'])
    await sql`insert into asset_profiles (user_group, profile, title, owner_username, definition)
      values (${group}, 'plot', 'Plots', 'mapper', ${JSON.stringify({
        displayNameProperty: 'kind',
        properties: [{ name: 'kind', type: 'STRING' }],
      })}::jsonb)`.execute(t.database.db);
  await insert('cache-a', [...points(7, 1500), ...extras]);
  await insert('cache-b', points(99, 700));
  mine = { 'x-svc-sessionid': await t.sessionFor('mapper', 'cache-a') };
  theirs = { 'x-svc-sessionid': await t.sessionFor('other', 'cache-b') };
}, 60_000);
afterAll(() => t?.close());
beforeEach(() => {
  cache().clear();
  // Every viewport of this file's few assets is wide enough.
  Object.assign(cache().limits, DEFAULT_LIMITS, { wideFrom: 1 });
});

describe('the cluster cache of mapViewport', () => {
  it('answers a pan as the single statement counts it, from the cache after the first viewport', async () => {
    const stats = cache().stats;
    const [hits, builds] = [stats.hits, stats.builds];
    for (const bbox of pans) await expectAsCounted(mine, { bbox, zoom: 5 });
    // The first counts its own sub-cells, the rest are served from them.
    expect(stats.builds - builds).toBe(1);
    expect(stats.hits - hits).toBe(pans.length - 1);
    expect(cache().entries).toBe(1);
    // Panned more than half away: the region around it is counted, three times as wide.
    const away = (d: number) => [V[0]! + d, V[1]!, V[2]! + d, V[3]!];
    await expectAsCounted(mine, { bbox: away(9), zoom: 5 });
    expect(stats.builds - builds).toBe(2);
    for (const d of [9, 4, 0, -4]) await expectAsCounted(mine, { bbox: away(d), zoom: 5 });
    expect(stats.builds - builds).toBe(2);
    // Deeper, with a filter of its own: another key.
    for (const bbox of pans.slice(0, 3))
      await expectAsCounted(mine, { bbox, zoom: 6, filter: { property: { name: 'kind', equals: 'pump' } } });
    expect(cache().entries).toBe(2);
  });

  it('counts a key of few assets as before, until a viewport of it holds more', async () => {
    const { stats } = cache();
    const builds = stats.builds;
    cache().limits.wideFrom = 200;
    const sparse = [-122, 43, -115, 50]; // a corner of the data
    const dense = [-112, 48, -105, 55];
    const levels = new Set<number>();
    for (let i = 0; i < 3; i++) {
      const a = await expectAsCounted(mine, { bbox: sparse, zoom: 7, limit: 5 });
      expect(a.count).toBeLessThan(200);
      levels.add(a.gridLevel);
    }
    expect([stats.builds - builds, cache().entries]).toEqual([1, 0]);
    // The same level where the data is dense: counted as before once, then by the cache.
    for (let i = 0; i < 3; i++) {
      const a = await expectAsCounted(mine, { bbox: dense, zoom: 7, limit: 5 });
      expect(a.count).toBeGreaterThan(200);
      levels.add(a.gridLevel);
    }
    expect(levels.size).toBe(1);
    expect([stats.builds - builds, cache().entries]).toEqual([2, 1]);
  });

  it('answers a write in the group at once: an asset moved, added or deleted', async () => {
    for (let i = 0; i < 3; i++)
      await expectAsCounted(mine, { bbox: V, zoom: 5, filter: { isDeleted: false } });
    const { stats } = cache();
    const [hits, stale] = [stats.hits, stats.stale];
    const before = await ask(mine, { bbox: V, zoom: 5, filter: { isDeleted: false } });
    expect(stats.hits - hits).toBe(1);
    // One well inside moved across the viewport, and one added.
    const inside = points(7, 1500).find(({ geometry }) => {
      const [lon, lat] = (geometry as { coordinates: number[] }).coordinates as [number, number];
      return lon > -115 && lon < -112 && lat > 49 && lat < 52;
    })!;
    const r = await t.graphql<any>(
      `mutation($input: UpsertAssetsInput!) { upsertAssets(input: $input) { errors { message } } }`,
      {
        input: {
          profile: 'plot',
          assets: [
            {
              id: inside.id,
              properties: { kind: 'well' },
              geometry: { type: 'Point', coordinates: [-104.2, 55.3] },
            },
            {
              id: 'N-1',
              properties: { kind: 'well' },
              geometry: { type: 'Point', coordinates: [-110.1, 50.1] },
            },
          ],
        },
      },
      mine,
    );
    expect(r.body.errors ?? r.body.data.upsertAssets.errors).toEqual([]);
    const after = await expectAsCounted(mine, { bbox: V, zoom: 5, filter: { isDeleted: false } });
    expect(stats.stale - stale).toBe(1);
    expect(after.count).toBe(before.count + 1);
    const cell = (a: any, lon: number, lat: number) =>
      a.clusters.find(
        (c: any) => c.bbox[0] <= lon && c.bbox[2] >= lon && c.bbox[1] <= lat && c.bbox[3] >= lat,
      )?.count ?? 0;
    expect(cell(after, -104.2, 55.3)).toBeGreaterThan(0);
    expect(after.clusters).not.toEqual(before.clusters);
    // Served again until the next write: a soft delete leaves the unfiltered count and not this one.
    await expectAsCounted(mine, { bbox: V, zoom: 5, filter: { isDeleted: false } });
    const gone = await t.graphql<any>(
      `mutation { deleteAssets(input: { profile: "plot", ids: ["N-1"] }) { deleted errors { message } } }`,
      {},
      mine,
    );
    expect(gone.body.data.deleteAssets).toEqual({ deleted: 1, errors: [] });
    const deleted = await expectAsCounted(mine, { bbox: V, zoom: 5, filter: { isDeleted: false } });
    expect(deleted.count).toBe(before.count);
    expect(stats.stale - stale).toBe(2);
  });

  it("never shows a group another's assets, whatever it holds for them", async () => {
    let theirCount = 0;
    for (let i = 0; i < 3; i++) {
      const a = await expectAsCounted(mine, { bbox: V, zoom: 5 });
      const b = await expectAsCounted(theirs, { bbox: V, zoom: 5 });
      expect(b.count).toBeLessThan(a.count);
      theirCount = b.count;
    }
    expect(cache().entries).toBe(2);
    // A write of theirs is theirs: their answer moves, ours is still served.
    await insert('cache-b', [
      { id: 'X-1', kind: 'well', geometry: { type: 'Point', coordinates: [-110, 52] } },
    ]);
    const hits = cache().stats.hits;
    await expectAsCounted(mine, { bbox: V, zoom: 5 });
    expect(cache().stats.hits - hits).toBe(1);
    const b = await expectAsCounted(theirs, { bbox: V, zoom: 5 });
    expect(b.count).toBe(theirCount + 1);
  });

  it('stays within its bounds, and counts a key too large to hold as before', async () => {
    Object.assign(cache().limits, { entries: 2, cells: 400 });
    for (const zoom of [3, 4, 5, 6])
      for (let i = 0; i < 2; i++) {
        await expectAsCounted(mine, { bbox: pans[i]!, zoom });
        expect(cache().entries).toBeLessThanOrEqual(2);
        expect(cache().cells).toBeLessThanOrEqual(400);
      }
    expect(cache().entries).toBeGreaterThan(0);
    cache().clear();
    // A region of more cells than the cache may hold is not even counted: no grid is fetched to
    // be thrown away (a wide viewport at a close zoom), and the answer is the statement's own.
    Object.assign(cache().limits, { cells: 3 });
    const builds = cache().stats.builds;
    for (let i = 0; i < 4; i++) await expectAsCounted(mine, { bbox: V, zoom: 5 });
    expect(cache().entries).toBe(0);
    expect(cache().stats.builds - builds).toBe(0);
  });

  it('is not used for a filter on what the change log does not follow', async () => {
    for (const filter of [LONG_AGO, { search: 'well' }, { not: { modifiedBefore: '2000-01-01T00:00:00Z' } }])
      for (let i = 0; i < 3; i++) await ask(mine, { bbox: V, zoom: 5, filter });
    expect(cache().entries).toBe(0);
  });

  it.runIf(postgres)(
    'sees a write committed after the counting by a transaction begun before it (PostgreSQL)',
    async () => {
      const filter = { isDeleted: false };
      await ask(mine, { bbox: V, zoom: 5, filter });
      // A transaction moves P-0002 and stays open; a later one writes and commits first, so the
      // newest entry of the log is not the open one's.
      const open = await t.database.pool.connect();
      try {
        await open.query('begin');
        await open.query(
          `update assets set geometry = '{"type": "Point", "coordinates": [-105.5, 49.5]}'
           where user_group = 'cache-a' and profile = 'plot' and id = 'P-0002'`,
        );
        await insert('cache-a', [
          { id: 'X-2', kind: 'well', geometry: { type: 'Point', coordinates: [-115, 48] } },
        ]);
        const held = await expectAsCounted(mine, { bbox: V, zoom: 5, filter });
        expect(cache().entries).toBe(1);
        await open.query('commit');
        const hits = cache().stats.hits;
        const moved = await expectAsCounted(mine, { bbox: V, zoom: 5, filter });
        expect(cache().stats.hits - hits).toBe(0);
        expect(moved.clusters).not.toEqual(held.clusters);
      } finally {
        open.release();
      }
    },
  );
});

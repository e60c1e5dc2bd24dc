/**
 * `Assets.mapViewport` (docs/schema.md §6): a viewport's assets one by one when few, else counted
 * per grid cell by the database. Every answer is checked against a reference computed here in
 * plain TypeScript from the stored geometry: which assets meet the viewport, the cell each counts
 * in (the centre of its box moved into the viewport, on the Web Mercator grid), each cell's count,
 * centroid and box; with the filter applied, in the caller's group only, and bad arguments
 * refused before anything runs.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let mine: Record<string, string>;
let theirs: Record<string, string>;

type Geometry = { type: string; coordinates: unknown };
interface Stored {
  id: string;
  kind: string;
  geometry: Geometry | null;
}
const stored: Record<string, Stored[]> = { 'map-a': [], 'map-b': [] };

/** A deterministic stream of numbers in [0, 1). */
function random(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

function fill(group: string, seed: number, points: number): void {
  const r = random(seed);
  const list = stored[group]!;
  for (let i = 0; i < points; i++)
    list.push({
      id: `P-${String(i).padStart(4, '0')}`,
      kind: i % 3 === 0 ? 'pump' : 'well',
      geometry: { type: 'Point', coordinates: [-120 + r() * 20, 45 + r() * 15] },
    });
  // Lines and polygons: counted by the centre of their box.
  list.push(
    {
      id: 'L-1',
      kind: 'pipe',
      geometry: {
        type: 'LineString',
        coordinates: [
          [-119, 46],
          [-117, 47],
          [-116, 49],
        ],
      },
    },
    {
      id: 'L-2',
      kind: 'pipe',
      geometry: {
        type: 'MultiLineString',
        coordinates: [
          [
            [-105, 58],
            [-104, 59],
          ],
          [
            [-103, 57],
            [-102.5, 57.5],
          ],
        ],
      },
    },
    {
      id: 'A-1',
      kind: 'lease',
      geometry: {
        type: 'Polygon',
        coordinates: [
          [
            [-112, 50],
            [-110, 50],
            [-110, 52],
            [-112, 52],
            [-112, 50],
          ],
        ],
      },
    },
    // Far larger than the viewports below, its centre well outside them.
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
    { id: 'N-1', kind: 'well', geometry: null },
  );
}

/** The box of a geometry's vertices: [minLon, minLat, maxLon, maxLat]. */
function boxOf(g: Geometry): [number, number, number, number] {
  const b: [number, number, number, number] = [Infinity, Infinity, -Infinity, -Infinity];
  const visit = (c: unknown): void => {
    if (!Array.isArray(c)) return;
    if (typeof c[0] === 'number') {
      b[0] = Math.min(b[0], c[0]);
      b[1] = Math.min(b[1], c[1]);
      b[2] = Math.max(b[2], c[0]);
      b[3] = Math.max(b[3], c[1]);
    } else for (const x of c) visit(x);
  };
  visit(g.coordinates);
  return b;
}

type Bbox = [number, number, number, number];
const meets = (a: Bbox, v: Bbox) => a[0] <= v[2] && a[2] >= v[0] && a[1] <= v[3] && a[3] >= v[1];

/** The assets of `group` a viewport holds, in order of id. */
function held(group: string, v: Bbox, kind?: string): (Stored & { box: Bbox })[] {
  return stored[group]!.filter((a) => a.geometry && (!kind || a.kind === kind))
    .map((a) => ({ ...a, box: boxOf(a.geometry!) }))
    .filter((a) => meets(a.box, v))
    .sort((a, b) => (a.id < b.id ? -1 : 1));
}

/** The latitude of the boundary above row `row` of a grid `n` cells high. */
const rowLatitude = (row: number, n: number) =>
  (Math.atan(Math.sinh(Math.PI * (1 - (2 * row) / n))) * 180) / Math.PI;

/**
 * The reference clusters: each asset in the Web Mercator cell of its box's centre moved into the
 * viewport; a cell's centroid the mean of its assets' centres, kept within the cell's part of the
 * viewport.
 */
function reference(group: string, v: Bbox, level: number, kind?: string) {
  const n = 2 ** level;
  const cells = new Map<
    string,
    { x: number; y: number; count: number; lon: number; lat: number; bbox: Bbox }
  >();
  for (const a of held(group, v, kind)) {
    const cx = (a.box[0] + a.box[2]) / 2;
    const cy = (a.box[1] + a.box[3]) / 2;
    const lon = Math.min(Math.max(cx, v[0]), v[2]);
    const lat = Math.min(Math.max(cy, v[1]), v[3]);
    const phi = (lat * Math.PI) / 180;
    const x = Math.min(n - 1, Math.floor(((lon + 180) / 360) * n));
    const y = Math.min(
      n - 1,
      Math.floor(((1 - Math.log(Math.tan(phi) + 1 / Math.cos(phi)) / Math.PI) / 2) * n),
    );
    const key = `${level}/${x}/${y}`;
    const c = cells.get(key) ?? {
      x,
      y,
      count: 0,
      lon: 0,
      lat: 0,
      bbox: [Infinity, Infinity, -Infinity, -Infinity],
    };
    c.count++;
    c.lon += cx;
    c.lat += cy;
    c.bbox = [
      Math.min(c.bbox[0], a.box[0]),
      Math.min(c.bbox[1], a.box[1]),
      Math.max(c.bbox[2], a.box[2]),
      Math.max(c.bbox[3], a.box[3]),
    ];
    cells.set(key, c);
  }
  const clamp = (value: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, value));
  return new Map(
    [...cells].map(([k, c]) => {
      const west = Math.max((c.x / n) * 360 - 180, v[0]);
      const east = Math.min(((c.x + 1) / n) * 360 - 180, v[2]);
      const south = Math.max(rowLatitude(c.y + 1, n), v[1]);
      const north = Math.min(rowLatitude(c.y, n), v[3]);
      return [
        k,
        { ...c, lon: clamp(c.lon / c.count, west, east), lat: clamp(c.lat / c.count, south, north) },
      ];
    }),
  );
}

const VIEWPORT = `query($profile: ID!, $bbox: [Float!]!, $zoom: Int!, $filter: AssetFilter, $limit: Int) {
  assets(profile: $profile) { mapViewport(bbox: $bbox, zoom: $zoom, filter: $filter, limit: $limit) {
    bbox zoom count clustered gridLevel
    features { id geometry { type bbox } }
    clusters { key count centroid bbox }
  } } }`;

async function viewport(headers: Record<string, string>, variables: Record<string, unknown>) {
  const r = await t.graphql<any>(VIEWPORT, { profile: 'plot', ...variables }, headers);
  expect(r.body.errors).toBeUndefined();
  return r.body.data.assets.mapViewport;
}

function expectClusters(answer: any, group: string, v: Bbox, kind?: string) {
  const expected = reference(group, v, answer.gridLevel, kind);
  expect(answer.clustered).toBe(true);
  expect(answer.features).toEqual([]);
  expect(answer.clusters.map((c: any) => c.key).sort()).toEqual([...expected.keys()].sort());
  for (const c of answer.clusters) {
    const e = expected.get(c.key)!;
    expect(c.count, c.key).toBe(e.count);
    expect(c.centroid[0]).toBeCloseTo(e.lon, 9);
    expect(c.centroid[1]).toBeCloseTo(e.lat, 9);
    expect(c.bbox).toEqual(e.bbox);
  }
  expect(answer.count).toBe(held(group, v, kind).length);
}

beforeAll(async () => {
  t = await startTestApp();
  fill('map-a', 7, 900);
  fill('map-b', 99, 400);
  for (const group of ['map-a', 'map-b']) {
    await sql`insert into asset_profiles (user_group, profile, title, owner_username, definition)
      values (${group}, 'plot', 'Plots', 'mapper', ${JSON.stringify({
        displayNameProperty: 'kind',
        properties: [{ name: 'kind', type: 'STRING' }],
      })}::jsonb)`.execute(t.database.db);
    const rows = stored[group]!;
    await sql`insert into assets (user_group, profile, id, properties, geometry, display_name)
      select ${group}, 'plot', r.id, jsonb_build_object('kind', r.kind), r.geometry, r.kind
      from unnest(${rows.map((a) => a.id)}::text[], ${rows.map((a) => a.kind)}::text[],
        ${rows.map((a) => (a.geometry ? JSON.stringify(a.geometry) : null))}::jsonb[]) as r(id, kind, geometry)`.execute(
      t.database.db,
    );
  }
  mine = { 'x-svc-sessionid': await t.sessionFor('mapper', 'map-a') };
  theirs = { 'x-svc-sessionid': await t.sessionFor('other', 'map-b') };
}, 60_000);
afterAll(() => t?.close());

describe('mapViewport', () => {
  it('answers the assets themselves, in order of id, when the viewport holds at most `limit`', async () => {
    const v: Bbox = [-112.5, 49.5, -109.5, 52.5];
    const answer = await viewport(mine, { bbox: v, zoom: 8, limit: 200 });
    const expected = held('map-a', v);
    expect(expected.length).toBeGreaterThan(10);
    expect(expected.length).toBeLessThan(200);
    expect(answer).toMatchObject({
      bbox: v,
      zoom: 8,
      count: expected.length,
      clustered: false,
      gridLevel: null,
    });
    expect(answer.clusters).toEqual([]);
    expect(answer.features.map((f: any) => f.id)).toEqual(expected.map((a) => a.id));
    // A polygon and the large one reaching in from outside are there with their boxes.
    expect(answer.features.find((f: any) => f.id === 'A-1').geometry).toEqual({
      type: 'Polygon',
      bbox: [-112, 50, -110, 52],
    });
    expect(answer.features.map((f: any) => f.id)).toContain('A-2');
  });

  it('counts per grid cell in the database when the viewport holds more, as the reference does', async () => {
    const v: Bbox = [-121, 44, -99, 61];
    const answer = await viewport(mine, { bbox: v, zoom: 5, limit: 500 });
    expect(answer.gridLevel).toBe(7);
    expect(held('map-a', v).length).toBeGreaterThan(500);
    expect(answer.count).toBe(904); // every asset with geometry: 900 points, 2 lines, 2 polygons
    expectClusters(answer, 'map-a', v);
  });

  it('counts lines and polygons by the centre of their box, moved into the viewport', async () => {
    // The large polygon A-2 (centre -124.5, 41.5) reaches into this viewport from the south-west.
    const v: Bbox = [-118, 46, -108, 56];
    const answer = await viewport(mine, { bbox: v, zoom: 6, limit: 20 });
    expect(answer.gridLevel).toBeLessThan(8);
    expectClusters(answer, 'map-a', v);
    const corner = answer.clusters.filter(
      (c: any) => c.bbox[0] === -140 && c.bbox[1] === 30 && c.bbox[2] === -109 && c.bbox[3] === 53,
    );
    expect(corner).toHaveLength(1);
    expect(corner[0].centroid[0]).toBeGreaterThanOrEqual(v[0]);
    expect(corner[0].centroid[1]).toBeGreaterThanOrEqual(v[1]);
  });

  it('never answers more than `limit` clusters: the grid gets coarser', async () => {
    for (const limit of [1, 4, 30, 2000]) {
      const v: Bbox = [-180, -85, 180, 85];
      const answer = await viewport(mine, { bbox: v, zoom: 22, limit });
      expect(answer.clusters.length).toBeLessThanOrEqual(limit);
      if (answer.clustered) expectClusters(answer, 'map-a', v);
      else expect(answer.features).toHaveLength(904);
    }
  });

  it('applies the filter, in both forms of the answer', async () => {
    const filter = { property: { name: 'kind', equals: 'pump' } };
    const v: Bbox = [-121, 44, -99, 61];
    const clustered = await viewport(mine, { bbox: v, zoom: 5, filter, limit: 100 });
    expectClusters(clustered, 'map-a', v, 'pump');
    expect(clustered.count).toBe(300);
    const few = await viewport(mine, {
      bbox: v,
      zoom: 5,
      filter: { property: { name: 'kind', equals: 'pipe' } },
    });
    expect(few.features.map((f: any) => f.id)).toEqual(['L-1', 'L-2']);
    const bad = await t.graphql<any>(
      VIEWPORT,
      { profile: 'plot', bbox: v, zoom: 5, filter: { property: { name: 'nope', equals: 1 } } },
      mine,
    );
    expect(bad.body.errors?.[0]?.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      type: 'INVALID_FILTER',
    });
  });

  it("shows each group only its own assets, and another group's profile not at all", async () => {
    const v: Bbox = [-121, 44, -99, 61];
    const a = await viewport(mine, { bbox: v, zoom: 5 });
    const b = await viewport(theirs, { bbox: v, zoom: 5, limit: 50 });
    expect(a.count).toBe(904);
    expect(b.count).toBe(404);
    expectClusters(b, 'map-b', v);
    const none = await t.graphql<any>(
      '{ assets(profile: "nowhere") { mapViewport(bbox: [0, 0, 1, 1], zoom: 1) { count } } }',
      {},
      mine,
    );
    expect(none.body).toEqual({ data: { assets: null } });
    const anonymous = await t.graphql<any>(VIEWPORT, { profile: 'plot', bbox: v, zoom: 5 });
    expect(anonymous.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('refuses a bad viewport with a clear error, before reading anything', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ bbox: [-200, 0, 10, 10], zoom: 3 }, 'bbox'],
      [{ bbox: [10, 0, -10, 10], zoom: 3 }, 'bbox'],
      [{ bbox: [0, 0, 10], zoom: 3 }, 'bbox'],
      [{ bbox: [0, -95, 10, 10], zoom: 3 }, 'bbox'],
      [{ bbox: [0, 0, 10, 10], zoom: 23 }, 'zoom'],
      [{ bbox: [0, 0, 10, 10], zoom: -1 }, 'zoom'],
      [{ bbox: [0, 0, 10, 10], zoom: 3, limit: 0 }, 'limit'],
      [{ bbox: [0, 0, 10, 10], zoom: 3, limit: 2001 }, 'limit'],
    ];
    for (const [variables, argument] of cases) {
      const r = await t.graphql<any>(VIEWPORT, { profile: 'plot', ...variables }, mine);
      expect(r.body.errors?.[0]?.extensions, JSON.stringify(variables)).toMatchObject({
        code: 'BAD_USER_INPUT',
        argument,
      });
      expect(r.body.data).toEqual({ assets: null });
    }
    const message = (
      await t.graphql<any>(VIEWPORT, { profile: 'plot', bbox: [10, 0, -10, 10], zoom: 3 }, mine)
    ).body.errors?.[0]?.message;
    expect(message).toMatch(/`bbox` must be \[minLongitude, minLatitude, maxLongitude, maxLatitude\]/);
    // A number JSON cannot carry, written in the document: refused as GraphQL refuses any non-finite Float.
    const infinite = await t.graphql<any>(
      '{ assets(profile: "plot") { mapViewport(bbox: [1e999, 0, 1, 1], zoom: 3) { count } } }',
      {},
      mine,
    );
    expect(infinite.body.errors?.length).toBeGreaterThan(0);
  });

  it('answers at most 10 viewports in one request', async () => {
    const aliases = Array.from(
      { length: 11 },
      (_, i) => `v${i}: mapViewport(bbox: [-121, 44, -99, 61], zoom: ${i % 6}, limit: 10) { count }`,
    ).join('\n');
    const r = await t.graphql<any>(`{ assets(profile: "plot") { ${aliases} } }`, {}, mine);
    expect(r.body.errors).toHaveLength(1);
    expect(r.body.errors?.[0]?.message).toMatch(/at most 10 map viewports/);
  });
});

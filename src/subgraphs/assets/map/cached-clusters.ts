import { createHash } from 'node:crypto';
import { type Kysely, type RawBuilder, sql } from 'kysely';
import type { Tables } from '../../../storage/tables.ts';
import {
  addTo,
  type CachedGrid,
  type ClusterCache,
  clusterCacheOf,
  type Span,
  SUB_LEVELS,
  subCells,
  sumWithin,
} from './cell-cache.ts';
import { type Grid, gridOf, latitudeOfRow, mercatorX, mercatorY, type Viewport } from './grid.ts';
import {
  CENTRES,
  type CellSums,
  type Cluster,
  clustersInViewport,
  hashGroups,
  inViewport,
  SUMS,
  toClusters,
} from './viewport.ts';

/**
 * The clusters of a viewport (viewport.ts, `clustersInViewport`), the same answer, counted in
 * two parts. A pan of a map asks one wide viewport after another, each statement reading the
 * whole of it (100,000 wells: 150-160 ms on PGlite) for counts that a write seldom moves.
 *
 * - The *inner* part: the sub-cells (grid level + SUB_LEVELS) wholly inside the viewport and
 *   within the cached region. Every asset whose box's centre lies in one meets the viewport and
 *   counts in that sub-cell's cell, so their sums are read from the cache (cell-cache.ts): the
 *   sums per sub-cell of a region, counted by one statement and held until the group's change
 *   log moves.
 * - The *edge*: every other asset of the viewport, counted by the viewport's own statement
 *   narrowed to the strips between the inner part and the viewport's sides, under the same GiST
 *   index: an asset whose centre is outside the inner part has its box meet one of them.
 *
 * Counts and boxes are those of the single statement; a centroid may differ in its last bits,
 * the sums being added in another order.
 *
 * A key (group, profile, filter, level) is first counted over the viewport's own sub-cells, as
 * many assets as its single statement reads; when a later viewport of it lies less than half
 * within the held region (the map was panned away), over a region three times the viewport's
 * width and height around it. A key whose region held fewer than `wideFrom` assets is counted
 * as it always was, until one of its viewports holds more.
 */
export async function cachedClusters(
  db: Kysely<Tables>,
  group: string,
  profile: string,
  v: Viewport,
  level: number,
  where?: RawBuilder<boolean>,
): Promise<Cluster[]> {
  const cache = clusterCacheOf(db);
  // The filter by its statement: the same text and values select the same assets. Hashed, so that
  // a filter of many values (ids) is not held in full beside every grid and mark.
  const compiled = where?.compile(db);
  const key = createHash('sha256')
    .update(JSON.stringify([group, profile, level, compiled?.sql ?? null, compiled?.parameters ?? []]))
    .digest('base64');
  const grid = gridOf(v, level);
  const inner = innerSpan(v, grid);
  const mark = cache.markOf(key);
  if (!inner || mark) {
    const clusters = await clustersInViewport(db, group, profile, v, level, where);
    const count = clusters.reduce((sum, c) => sum + c.count, 0);
    if (inner && mark === 'narrow' && count >= cache.limits.wideFrom) cache.unmark(key);
    return clusters;
  }
  // One snapshot for the check of the held sums, their counting and the edge's.
  const answered = await db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      await hashGroups(trx);
      const held = await current(trx, cache, key, group);
      const part = held && overlap(inner, held.region);
      let sums = held;
      if (!sums || !part || 2 * area(part) < area(inner)) {
        const panned = Boolean(held);
        const region = regionOf(v, inner, level, panned);
        // More cells than the cache may hold are neither counted nor kept: a viewport so wide
        // (at its zoom) is answered as it always was, without fetching a grid to throw away.
        if (area(region) > cache.limits.cells) return undefined;
        sums = await counted(trx, group, profile, level, region, where);
        cache.stats.builds++;
        // Too few to be worth holding, or too many: a mark says so, and the key is counted as before.
        if (total(sums) >= cache.limits.wideFrom) cache.set(key, sums);
        else {
          cache.delete(key);
          cache.mark(key, 'narrow');
        }
      } else cache.stats.hits++;
      const within = sums === held && part ? part : inner;
      const cells = new Map<string, CellSums & { x: number; y: number }>();
      sumWithin(sums, within, cells);
      for (const r of await edge(trx, group, profile, v, grid, within, where))
        addTo(cells, grid.x0 + r.bx, grid.y1 - r.by, r);
      return toClusters(cells.values(), v, level);
    });
  return answered ?? clustersInViewport(db, group, profile, v, level, where);
}

const area = (s: Span) => (s.x1 - s.x0) * (s.y1 - s.y0);

/** The part of `a` within `b`, if any. */
function overlap(a: Span, b: Span): Span | undefined {
  const s = {
    x0: Math.max(a.x0, b.x0),
    x1: Math.min(a.x1, b.x1),
    y0: Math.max(a.y0, b.y0),
    y1: Math.min(a.y1, b.y1),
  };
  return s.x0 < s.x1 && s.y0 < s.y1 ? s : undefined;
}

function total(grid: CachedGrid): number {
  let n = 0;
  for (const c of grid.cells.count) n += c;
  return n;
}

/** Whether a filter reads only what the change log follows (not `modified_at` or the derived display name). */
export function cacheableFilter(filter: unknown): boolean {
  if (filter === null || typeof filter !== 'object') return true;
  for (const [name, value] of Object.entries(filter)) {
    if (value == null) continue;
    if (name === 'modifiedAfter' || name === 'modifiedBefore' || name === 'search') return false;
    if (!cacheableFilter(value)) return false;
  }
  return true;
}

/** The held grid of `key`, if no change of the group was committed since it was counted. */
async function current(
  trx: Kysely<Tables>,
  cache: ClusterCache,
  key: string,
  group: string,
): Promise<CachedGrid | undefined> {
  const held = cache.get(key);
  if (!held) return undefined;
  // The entries the held snapshot could not see but this one does: changes committed since. An
  // entry older than the held snapshot's xmin was committed before it; pruning (which moves the
  // group's horizon) could only have taken newer ones after the held grid outlived the retention.
  const { rows } = await sql<{ moved: boolean }>`
    select exists (
        select 1 from changes
        where user_group = ${group} and tx >= ${held.xmin}::xid8
          and not pg_visible_in_snapshot(tx, ${held.snapshot}::pg_snapshot))
      or exists (select 1 from change_horizons where user_group = ${group} and tx >= ${held.xmin}::xid8) as moved`.execute(
    trx,
  );
  if (rows[0]?.moved) {
    cache.stats.stale++;
    cache.delete(key);
    return undefined;
  }
  return held;
}

/** Columns of grid level `level` + SUB_LEVELS, west to east: the longitude of each edge. */
const lonEdge = (x: number, sub: number) => (x / 2 ** sub) * 360 - 180;

/**
 * The sub-cells wholly inside the viewport, within its grid's cells; none when no sub-cell is.
 * A sub-cell's edges are its grid's own where they meet (the same numbers: the row and column
 * are scaled by a power of two), so an asset is in the same cell by either.
 */
export function innerSpan(v: Viewport, grid: Grid): Span | undefined {
  const sub = grid.level + SUB_LEVELS;
  const n = 2 ** sub;
  // Clear of the viewport's sides by more than the rounding of its grid's Mercator cells.
  const margin = 1e-9;
  const [west, east] = [v.minLon + margin, v.maxLon - margin];
  const [south, north] = [v.minLat + margin, v.maxLat - margin];
  const within = (value: number) => Math.min(n, Math.max(0, value));
  let x0 = within(Math.ceil(mercatorX(west) * n));
  while (x0 < n && lonEdge(x0, sub) < west) x0++;
  let x1 = within(Math.floor(mercatorX(east) * n));
  while (x1 > 0 && lonEdge(x1, sub) > east) x1--;
  let y0 = within(Math.ceil(mercatorY(north) * n));
  while (y0 < n && latitudeOfRow(y0, sub) > north) y0++;
  let y1 = within(Math.floor(mercatorY(south) * n));
  while (y1 > 0 && latitudeOfRow(y1, sub) < south) y1--;
  const inside =
    lonEdge(x0, sub) >= west &&
    lonEdge(x1, sub) <= east &&
    latitudeOfRow(y0, sub) <= north &&
    latitudeOfRow(y1, sub) >= south &&
    x0 >= grid.x0 << SUB_LEVELS &&
    x1 <= (grid.x1 + 1) << SUB_LEVELS &&
    y0 >= grid.y0 << SUB_LEVELS &&
    y1 <= (grid.y1 + 1) << SUB_LEVELS;
  return x0 < x1 && y0 < y1 && inside ? { x0, x1, y0, y1 } : undefined;
}

/**
 * The region counted for viewport `v`: the sub-cells it meets, or, when the map was `panned` off
 * the region held, those of a region three times as wide and high around it; within the world.
 */
function regionOf(v: Viewport, inner: Span, level: number, panned: boolean): Span {
  const n = 2 ** (level + SUB_LEVELS);
  const at = (value: number) => Math.min(n, Math.max(0, value));
  const x0 = Math.min(inner.x0, at(Math.floor(mercatorX(v.minLon) * n)));
  const x1 = Math.max(inner.x1, at(Math.floor(mercatorX(v.maxLon) * n) + 1));
  const y0 = Math.min(inner.y0, at(Math.floor(mercatorY(v.maxLat) * n)));
  const y1 = Math.max(inner.y1, at(Math.floor(mercatorY(v.minLat) * n) + 1));
  const [w, h] = panned ? [x1 - x0, y1 - y0] : [0, 0];
  return { x0: at(x0 - w), x1: at(x1 + w), y0: at(y0 - h), y1: at(y1 + h) };
}

/** The longitudes and latitudes (south to north) of the edges of `span`'s sub-cells, and its box. */
function edgesOf(span: Span, sub: number) {
  const lon: number[] = [];
  for (let x = span.x0; x <= span.x1; x++) lon.push(lonEdge(x, sub));
  const lat: number[] = [];
  for (let y = span.y1; y >= span.y0; y--) lat.push(latitudeOfRow(y, sub));
  return { lon, lat, west: lon[0]!, east: lon.at(-1)!, south: lat[0]!, north: lat.at(-1)! };
}

const box = (west: number, south: number, east: number, north: number) =>
  sql`box(point(${west}::float8, ${south}::float8), point(${east}::float8, ${north}::float8))`;

/**
 * The sums per sub-cell of every asset of the profile (and filter) whose centre lies in
 * `region`, and the snapshot they were read in.
 */
async function counted(
  trx: Kysely<Tables>,
  group: string,
  profile: string,
  level: number,
  region: Span,
  where?: RawBuilder<boolean>,
): Promise<CachedGrid> {
  const e = edgesOf(region, level + SUB_LEVELS);
  const { rows: at } = await sql<{ snapshot: string; xmin: string }>`
    select pg_current_snapshot()::text as snapshot, pg_snapshot_xmin(pg_current_snapshot())::text as xmin`.execute(
    trx,
  );
  // A centre outside the region falls into bucket 0 or past the last edge, and is left out
  // here: filtering on the centre in the statement cost a third more than the counting.
  const { rows } = await sql<CellSums & { bx: number; by: number }>`
    select width_bucket(c.lon, ${e.lon}::float8[]) as bx, width_bucket(c.lat, ${e.lat}::float8[]) as by, ${SUMS}
    from (
      select ${CENTRES} from assets a
      where a.user_group = ${group} and a.profile = ${profile} and a.geometry_box && ${box(e.west, e.south, e.east, e.north)}
        ${where ? sql`and ${where}` : sql``}
    ) c
    group by 1, 2`.execute(trx);
  const inside = rows.filter((r) => r.bx > 0 && r.bx < e.lon.length && r.by > 0 && r.by < e.lat.length);
  return {
    level,
    region,
    snapshot: at[0]!.snapshot,
    xmin: at[0]!.xmin,
    cells: subCells(inside.map((r) => ({ ...r, x: region.x0 + r.bx - 1, y: region.y1 - r.by }))),
  };
}

/**
 * The viewport's statement for the assets whose centre is not in `inner`: those of the strips
 * between it and the viewport's sides, per cell of the viewport's grid as `clustersInViewport`
 * places them.
 */
async function edge(
  trx: Kysely<Tables>,
  group: string,
  profile: string,
  v: Viewport,
  grid: Grid,
  inner: Span,
  where?: RawBuilder<boolean>,
): Promise<(CellSums & { bx: number; by: number })[]> {
  const sub = grid.level + SUB_LEVELS;
  const i = {
    west: lonEdge(inner.x0, sub),
    east: lonEdge(inner.x1, sub),
    south: latitudeOfRow(inner.y1, sub),
    north: latitudeOfRow(inner.y0, sub),
  };
  const strips = [
    box(v.minLon, v.minLat, i.west, v.maxLat),
    box(i.east, v.minLat, v.maxLon, v.maxLat),
    box(v.minLon, v.minLat, v.maxLon, i.south),
    box(v.minLon, i.north, v.maxLon, v.maxLat),
  ].map((s) => sql`a.geometry_box && ${s}`);
  const { rows } = await sql<CellSums & { bx: number; by: number }>`
    select width_bucket(c.lon, ${grid.lonEdges}::float8[]) as bx, width_bucket(c.lat, ${grid.latEdges}::float8[]) as by,
      ${SUMS}
    from (
      select ${CENTRES} ${inViewport(group, profile, v, where)} and (${sql.join(strips, sql` or `)})
    ) c
    where not (c.lon >= ${i.west}::float8 and c.lon < ${i.east}::float8 and c.lat >= ${i.south}::float8 and c.lat < ${i.north}::float8)
    group by 1, 2`.execute(trx);
  return rows;
}

import type { CellSums } from './viewport.ts';

/**
 * The cluster cache of `Assets.mapViewport` (cached-clusters.ts): per group, profile, filter and
 * grid level, the sums of the assets of a region counted per sub-cell, a grid SUB_LEVELS finer
 * than the clusters' one, as of one database snapshot. Bounded in entries and in sub-cells held
 * (least recently used first out), one cache per database.
 */

/** Sub-cells per cell: 2^SUB_LEVELS across and down. */
export const SUB_LEVELS = 3;

/** Columns [x0, x1) and rows [y0, y1) (from the north) of a grid. */
export interface Span {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

/** The sub-cells of a region that hold assets, column by column of arrays. */
export interface SubCells {
  x: Int32Array;
  y: Int32Array;
  count: Int32Array;
  /** Per sub-cell: sum_lon, sum_lat, min_lon, min_lat, max_lon, max_lat. */
  sums: Float64Array;
}

export interface CachedGrid {
  /** The grid of the clusters; the sub-cells are of grid level + SUB_LEVELS. */
  level: number;
  /** The sub-cells counted: every asset whose centre lies in them. */
  region: Span;
  /** `pg_current_snapshot()` of the counting statement, and its xmin. */
  snapshot: string;
  xmin: string;
  cells: SubCells;
}

export interface CacheLimits {
  /** The most grids held. */
  entries: number;
  /** The most sub-cells held, all grids together. */
  cells: number;
  /** The most keys remembered as counted without the cache. */
  marks: number;
  /** A region of fewer assets is not held (its key is marked narrow until a viewport holds more). */
  wideFrom: number;
}

export const DEFAULT_LIMITS: CacheLimits = { entries: 32, cells: 200_000, marks: 256, wideFrom: 5_000 };

/** Why a key is counted without the cache: its region held too few assets, or too many. */
export type Mark = 'narrow' | 'too-large';

export class ClusterCache {
  readonly limits: CacheLimits;
  /** How often a held grid answered, a grid was counted, and one held was found out of date. */
  readonly stats = { hits: 0, builds: 0, stale: 0 };
  // Maps keep insertion order: re-inserting on use makes the first key the least recently used.
  readonly #grids = new Map<string, CachedGrid>();
  readonly #marks = new Map<string, Mark>();
  #cells = 0;

  constructor(limits: Partial<CacheLimits> = {}) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
  }

  get entries(): number {
    return this.#grids.size;
  }

  get cells(): number {
    return this.#cells;
  }

  get(key: string): CachedGrid | undefined {
    const grid = this.#grids.get(key);
    if (grid) {
      this.#grids.delete(key);
      this.#grids.set(key, grid);
    }
    return grid;
  }

  /** Holds `grid` under `key`, dropping the least recently used beyond the limits; false (and
   * the key marked too large) when the grid alone is more than the cache may hold. */
  set(key: string, grid: CachedGrid): boolean {
    this.delete(key);
    const size = grid.cells.x.length;
    if (size > this.limits.cells) {
      this.mark(key, 'too-large');
      return false;
    }
    this.#grids.set(key, grid);
    this.#cells += size;
    for (const [k, g] of this.#grids) {
      if (this.#grids.size <= this.limits.entries && this.#cells <= this.limits.cells) break;
      this.#grids.delete(k);
      this.#cells -= g.cells.x.length;
    }
    return true;
  }

  delete(key: string): void {
    const grid = this.#grids.get(key);
    if (!grid) return;
    this.#grids.delete(key);
    this.#cells -= grid.cells.x.length;
  }

  markOf(key: string): Mark | undefined {
    return this.#marks.get(key);
  }

  unmark(key: string): void {
    this.#marks.delete(key);
  }

  mark(key: string, mark: Mark): void {
    this.#marks.delete(key);
    this.#marks.set(key, mark);
    for (const k of this.#marks.keys()) {
      if (this.#marks.size <= this.limits.marks) break;
      this.#marks.delete(k);
    }
  }

  clear(): void {
    this.#grids.clear();
    this.#marks.clear();
    this.#cells = 0;
  }
}

const caches = new WeakMap<object, ClusterCache>();

/** The cache of database `db` (its Kysely instance): each database has its own. */
export function clusterCacheOf(db: object): ClusterCache {
  let cache = caches.get(db);
  if (!cache) {
    cache = new ClusterCache();
    caches.set(db, cache);
  }
  return cache;
}

/** Rows of a counting statement per sub-cell, into arrays. */
export function subCells(rows: readonly (CellSums & { x: number; y: number })[]): SubCells {
  const n = rows.length;
  const cells: SubCells = {
    x: new Int32Array(n),
    y: new Int32Array(n),
    count: new Int32Array(n),
    sums: new Float64Array(n * 6),
  };
  rows.forEach((r, i) => {
    cells.x[i] = r.x;
    cells.y[i] = r.y;
    cells.count[i] = r.count;
    cells.sums.set([r.sum_lon, r.sum_lat, r.min_lon, r.min_lat, r.max_lon, r.max_lat], i * 6);
  });
  return cells;
}

/**
 * The sums of the sub-cells of `grid` within `span`, per cell of the clusters' grid (the cell
 * of a sub-cell is its column and row shifted right by SUB_LEVELS), into `into` by `x`, `y`.
 */
export function sumWithin(
  grid: CachedGrid,
  span: Span,
  into: Map<string, CellSums & { x: number; y: number }>,
): void {
  const { x, y, count, sums } = grid.cells;
  for (let i = 0; i < x.length; i++) {
    const sx = x[i]!;
    const sy = y[i]!;
    if (sx < span.x0 || sx >= span.x1 || sy < span.y0 || sy >= span.y1) continue;
    addTo(into, sx >> SUB_LEVELS, sy >> SUB_LEVELS, {
      count: count[i]!,
      sum_lon: sums[i * 6]!,
      sum_lat: sums[i * 6 + 1]!,
      min_lon: sums[i * 6 + 2]!,
      min_lat: sums[i * 6 + 3]!,
      max_lon: sums[i * 6 + 4]!,
      max_lat: sums[i * 6 + 5]!,
    });
  }
}

/** Adds the sums `s` of part of cell (`x`, `y`) to that cell's in `into`. */
export function addTo(
  into: Map<string, CellSums & { x: number; y: number }>,
  x: number,
  y: number,
  s: CellSums,
): void {
  const key = `${x}/${y}`;
  const c = into.get(key);
  if (!c) {
    into.set(key, { ...s, x, y });
    return;
  }
  c.count += s.count;
  c.sum_lon += s.sum_lon;
  c.sum_lat += s.sum_lat;
  c.min_lon = Math.min(c.min_lon, s.min_lon);
  c.min_lat = Math.min(c.min_lat, s.min_lat);
  c.max_lon = Math.max(c.max_lon, s.max_lon);
  c.max_lat = Math.max(c.max_lat, s.max_lat);
}

import { GraphQLError } from 'graphql';

/**
 * The viewport of `Assets.mapViewport` (docs/schema.md §6) and the grid its clusters are counted
 * on. The grid is the one web maps tile the world by, Web Mercator (EPSG:3857): at level `l` the
 * world is 2^l cells across and 2^l down, cell (0, 0) at the north-west corner, latitudes beyond
 * ±MAX_LATITUDE in the first or last row. A zoom level `z` is the map's own (the world 256·2^z
 * pixels across), and its grid is level z + 2: cells of 64 pixels on the screen.
 */

/** The largest zoom a viewport may have: that of the most detailed web maps. */
export const MAX_ZOOM = 22;
/** The most features or clusters one viewport answers; `limit` defaults to DEFAULT_LIMIT. */
export const MAX_LIMIT = 2000;
export const DEFAULT_LIMIT = 1000;
/** Grid level = zoom + this: 2^6 = 64-pixel cells on 256-pixel tiles. */
export const CELL_LEVELS_PER_ZOOM = 2;
/** The latitude where Web Mercator's square world ends. */
export const MAX_LATITUDE = 85.0511287798066;

export interface Viewport {
  minLon: number;
  minLat: number;
  maxLon: number;
  maxLat: number;
  zoom: number;
  limit: number;
}

function refuse(argument: string, message: string): never {
  throw new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT', argument } });
}

/**
 * The arguments checked: `bbox` four finite numbers `[minLon, minLat, maxLon, maxLat]`, within
 * longitudes −180…180 and latitudes −90…90, each minimum at most its maximum (a viewport across
 * the antimeridian is asked as two); `zoom` an integer 0…MAX_ZOOM; `limit` 1…MAX_LIMIT. Anything
 * else is a BAD_USER_INPUT error naming the argument.
 */
export function checkViewport(
  bbox: readonly number[],
  zoom: number,
  limit: number | null | undefined,
): Viewport {
  const bboxRule =
    '`bbox` must be [minLongitude, minLatitude, maxLongitude, maxLatitude]: four numbers, longitudes from -180 to 180, latitudes from -90 to 90, each minimum at most its maximum (ask a viewport across the antimeridian as two).';
  if (bbox.length !== 4 || !bbox.every((v) => typeof v === 'number' && Number.isFinite(v)))
    refuse('bbox', bboxRule);
  const [minLon, minLat, maxLon, maxLat] = bbox as [number, number, number, number];
  const lon = (v: number) => v >= -180 && v <= 180;
  const lat = (v: number) => v >= -90 && v <= 90;
  if (!lon(minLon) || !lon(maxLon) || !lat(minLat) || !lat(maxLat) || minLon > maxLon || minLat > maxLat)
    refuse('bbox', bboxRule);
  if (!Number.isInteger(zoom) || zoom < 0 || zoom > MAX_ZOOM)
    refuse('zoom', `\`zoom\` must be an integer from 0 to ${MAX_ZOOM}.`);
  const n = limit ?? DEFAULT_LIMIT;
  if (!Number.isInteger(n) || n < 1 || n > MAX_LIMIT)
    throw new GraphQLError(`\`limit\` must be an integer from 1 to ${MAX_LIMIT}.`, {
      extensions: { code: 'BAD_USER_INPUT', argument: 'limit', maximum: MAX_LIMIT },
    });
  return { minLon, minLat, maxLon, maxLat, zoom, limit: n };
}

/** Web Mercator x of a longitude, 0 (−180°) to 1 (180°). */
export function mercatorX(lon: number): number {
  return (lon + 180) / 360;
}

/** Web Mercator y of a latitude, 0 (north, MAX_LATITUDE) to 1 (south), clamped to the square world. */
export function mercatorY(lat: number): number {
  const phi = (Math.max(-MAX_LATITUDE, Math.min(MAX_LATITUDE, lat)) * Math.PI) / 180;
  return 0.5 - Math.log(Math.tan(Math.PI / 4 + phi / 2)) / (2 * Math.PI);
}

/** The cell of level `level` a position falls in: `[x, y]`, each 0…2^level − 1. */
export function cellOf(lon: number, lat: number, level: number): [number, number] {
  const n = 2 ** level;
  const at = (v: number) => Math.min(n - 1, Math.max(0, Math.floor(v * n)));
  return [at(mercatorX(lon)), at(mercatorY(lat))];
}

/** The latitude of the boundary above row `row` of `level` (row 0's is the world's north edge). */
export function latitudeOfRow(row: number, level: number): number {
  return (Math.atan(Math.sinh(Math.PI * (1 - (2 * row) / 2 ** level))) * 180) / Math.PI;
}

/** The box of cell (`x`, `y`) of `level`: `[west, south, east, north]`. */
export function cellBounds(x: number, y: number, level: number): [number, number, number, number] {
  const n = 2 ** level;
  return [
    (x / n) * 360 - 180,
    latitudeOfRow(y + 1, level),
    ((x + 1) / n) * 360 - 180,
    latitudeOfRow(y, level),
  ];
}

/** The cells of `level` a viewport spans: columns x0…x1 from the west, rows y0…y1 from the north. */
export interface Grid {
  level: number;
  x0: number;
  x1: number;
  y0: number;
  y1: number;
  /** The longitudes between its columns, west to east. */
  lonEdges: number[];
  /** The latitudes between its rows, south to north. */
  latEdges: number[];
}

export function gridOf(v: Viewport, level: number): Grid {
  const [x0, y0] = cellOf(v.minLon, v.maxLat, level);
  const [x1, y1] = cellOf(v.maxLon, v.minLat, level);
  const n = 2 ** level;
  const lonEdges: number[] = [];
  for (let x = x0 + 1; x <= x1; x++) lonEdges.push((x / n) * 360 - 180);
  const latEdges: number[] = [];
  for (let y = y1; y > y0; y--) latEdges.push(latitudeOfRow(y, level));
  return { level, x0, x1, y0, y1, lonEdges, latEdges };
}

/** How many cells of `level` the viewport's box spans (partly covered ones included). */
export function cellsSpanned(v: Viewport, level: number): number {
  const [x0, y0] = cellOf(v.minLon, v.maxLat, level);
  const [x1, y1] = cellOf(v.maxLon, v.minLat, level);
  return (x1 - x0 + 1) * (y1 - y0 + 1);
}

/**
 * The grid level a viewport is clustered on: zoom + CELL_LEVELS_PER_ZOOM, or coarser until the
 * viewport spans at most `limit` cells, so that no answer holds more than `limit` clusters (a
 * whole continent asked at zoom 20 is counted on cells as large as a screen would show it).
 */
export function gridLevel(v: Viewport): number {
  let level = v.zoom + CELL_LEVELS_PER_ZOOM;
  while (level > 0 && cellsSpanned(v, level) > v.limit) level--;
  return level;
}

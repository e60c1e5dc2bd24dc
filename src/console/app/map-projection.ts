// The map's geometry: Web Mercator (EPSG:3857) as web maps draw it, the world 256·2^zoom pixels
// across at zoom level `zoom`, and what the map asks the API for (`Assets.mapViewport`: a bbox in
// longitude and latitude, and the zoom level). Pure functions, so the tests can check them.

export const TILE = 256;
export const MIN_ZOOM = 0;
/** The API's largest zoom (docs/schema.md §6). */
export const MAX_ZOOM = 22;
/** The latitude where Web Mercator's square world ends. */
export const MAX_LATITUDE = 85.0511287798066;

/** Where the map looks: its centre and zoom level (a whole number, as the API takes it). */
export interface MapPosition {
  lon: number;
  lat: number;
  zoom: number;
}

export type Bbox = [minLon: number, minLat: number, maxLon: number, maxLat: number];

export const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/** The world's size in pixels at `zoom`. */
export const worldSize = (zoom: number) => TILE * 2 ** zoom;

/** A position's world pixel at `zoom`: x from the antimeridian eastwards, y from the north. */
export function project(lon: number, lat: number, zoom: number): [number, number] {
  const size = worldSize(zoom);
  const phi = (clamp(lat, -MAX_LATITUDE, MAX_LATITUDE) * Math.PI) / 180;
  const x = ((lon + 180) / 360) * size;
  const y = (0.5 - Math.log(Math.tan(Math.PI / 4 + phi / 2)) / (2 * Math.PI)) * size;
  return [x, y];
}

/** The longitude and latitude of a world pixel at `zoom`. */
export function unproject(x: number, y: number, zoom: number): [number, number] {
  const size = worldSize(zoom);
  const lon = (x / size) * 360 - 180;
  const lat = (Math.atan(Math.sinh(Math.PI * (1 - (2 * y) / size))) * 180) / Math.PI;
  return [lon, lat];
}

/**
 * The box a map of `width` × `height` pixels shows at `position`, cut to what the API takes:
 * longitudes −180…180 and latitudes within Web Mercator's world.
 */
export function viewportBbox(position: MapPosition, width: number, height: number): Bbox {
  const [cx, cy] = project(position.lon, position.lat, position.zoom);
  const [west, north] = unproject(cx - width / 2, cy - height / 2, position.zoom);
  const [east, south] = unproject(cx + width / 2, cy + height / 2, position.zoom);
  return [
    clamp(west, -180, 180),
    clamp(south, -MAX_LATITUDE, MAX_LATITUDE),
    clamp(east, -180, 180),
    clamp(north, -MAX_LATITUDE, MAX_LATITUDE),
  ];
}

/** The position `dx`, `dy` screen pixels away (a drag moves the map the other way). */
export function moved(position: MapPosition, dx: number, dy: number): MapPosition {
  const [x, y] = project(position.lon, position.lat, position.zoom);
  const size = worldSize(position.zoom);
  const [lon, lat] = unproject(x + dx, clamp(y + dy, 0, size), position.zoom);
  return { lon: clamp(lon, -180, 180), lat: clamp(lat, -MAX_LATITUDE, MAX_LATITUDE), zoom: position.zoom };
}

/**
 * Zoomed to `zoom` keeping the point at screen offset (`ox`, `oy`) from the centre where it is
 * (the mouse's place on a wheel turn; 0, 0 for the buttons and keys).
 */
export function zoomedAt(position: MapPosition, zoom: number, ox = 0, oy = 0): MapPosition {
  const z = clamp(Math.round(zoom), MIN_ZOOM, MAX_ZOOM);
  const [x, y] = project(position.lon, position.lat, position.zoom);
  const [lon, lat] = unproject(x + ox, y + oy, position.zoom);
  const [px, py] = project(lon, lat, z);
  const [clon, clat] = unproject(px - ox, py - oy, z);
  // moved() by nothing: kept within the world.
  return moved({ lon: clon, lat: clat, zoom: z }, 0, 0);
}

/** The position that shows all of `bbox` in `width` × `height` pixels, at most at `maxZoom`. */
export function fitted(bbox: Bbox, width: number, height: number, maxZoom = 16): MapPosition {
  const [x0, y1] = project(bbox[0], bbox[1], 0);
  const [x1, y0] = project(bbox[2], bbox[3], 0);
  const spanX = Math.max(x1 - x0, 1e-9);
  const spanY = Math.max(y1 - y0, 1e-9);
  // A margin of a tenth of the map on each side.
  const zoom = clamp(
    Math.floor(Math.log2(Math.min((width * 0.8) / spanX, (height * 0.8) / spanY))),
    MIN_ZOOM,
    maxZoom,
  );
  const [lon, lat] = unproject((x0 + x1) / 2, (y0 + y1) / 2, 0);
  return { lon, lat, zoom };
}

const GRATICULE_STEPS = [90, 45, 30, 20, 10, 5, 2, 1, 0.5, 0.25, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001];

/** The graticule's step in degrees for `zoom`: lines about 100 pixels apart or more. */
export function graticuleStep(zoom: number): number {
  const degreesPer100px = (100 / worldSize(zoom)) * 360;
  let step = GRATICULE_STEPS[0]!;
  for (const s of GRATICULE_STEPS) if (s >= degreesPer100px) step = s;
  return step;
}

/** The multiples of `step` from `from` to `to`. */
export function ticks(from: number, to: number, step: number): number[] {
  const out: number[] = [];
  for (let i = Math.ceil(from / step); i * step <= to + 1e-9; i++) out.push(Number((i * step).toFixed(6)));
  return out;
}

/** A position as the route keeps it, `zoom/lat/lon` (as OpenStreetMap's addresses do). */
export function formatPosition(p: MapPosition): string {
  const digits = clamp(Math.ceil(Math.log10(2 ** p.zoom)), 2, 6);
  return `${p.zoom}/${p.lat.toFixed(digits)}/${p.lon.toFixed(digits)}`;
}

/** A position read from the route, or null when it is not one. */
export function parsePosition(text: string | null): MapPosition | null {
  const m = /^(\d{1,2})\/(-?\d+(?:\.\d+)?)\/(-?\d+(?:\.\d+)?)$/.exec(text ?? '');
  if (!m) return null;
  const zoom = Number(m[1]);
  const lat = Number(m[2]);
  const lon = Number(m[3]);
  if (zoom > MAX_ZOOM || Math.abs(lat) > MAX_LATITUDE || Math.abs(lon) > 180) return null;
  return { lon, lat, zoom };
}

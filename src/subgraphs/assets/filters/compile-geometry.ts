import { sql } from 'kysely';
import { all, column, given, type Sql } from './sql.ts';
import type { AssetGeometryPredicateInput } from './types.ts';

/** The geometry predicates of a filter (compile.ts has the semantics): `bbox` and `near`. */

const EARTH_RADIUS_METERS = 6371008.8;

/**
 * Every vertex under a `coordinates` member (strict mode, so `.**` visits each item once and
 * a structural error inside a filter only drops that item).
 */
const VERTICES_PATH = sql.lit(
  'strict $.** ? (@.type() == "object" && exists(@.coordinates)).coordinates.** ? (@.type() == "array" && @[0].type() == "number" && @[1].type() == "number")',
);

/** `geometry_box` is asset_bbox(geometry), stored, under the GiST index assets_geometry_bbox. */
function boxOverlaps(alias: string, minLon: number, minLat: number, maxLon: number, maxLat: number): Sql {
  return sql`(${column(alias, 'geometry_box')} && box(point(${minLon}::float8, ${minLat}::float8), point(${maxLon}::float8, ${maxLat}::float8)))`;
}

/**
 * A box that holds every point within `meters` of (lon, lat) by the haversine distance, with
 * 1% to spare, or null when none is useful (near a pole, or across the antimeridian).
 * Latitude: d ≥ R·|Δφ|. Longitude: hav(d/R) ≥ cos φ₁ cos φ₂ hav(Δλ) ≥ cos²L hav(Δλ) for
 * latitudes within ±L, so |Δλ| ≤ 2·asin(sin(d/2R) / cos L).
 */
export function boxAround(lon: number, lat: number, meters: number): [number, number, number, number] | null {
  const angle = (meters * 1.01) / EARTH_RADIUS_METERS;
  const dLat = (angle * 180) / Math.PI;
  const L = Math.abs(lat) + dLat;
  if (L >= 89) return null;
  const s = Math.sin(angle / 2) / Math.cos((L * Math.PI) / 180);
  if (s >= 1) return null;
  const dLon = (2 * Math.asin(s) * 180) / Math.PI;
  if (lon - dLon < -180 || lon + dLon > 180) return null;
  return [lon - dLon, lat - dLat, lon + dLon, lat + dLat];
}

export function compileGeometry(g: AssetGeometryPredicateInput, alias: string): Sql {
  const parts: Sql[] = [];
  const v = sql.id(`${alias}_v`);
  const vertices = sql`jsonb_path_query(${column(alias, 'geometry')}, ${VERTICES_PATH}) as ${v}(p)`;
  if (given(g.bbox)) {
    const [minLon, minLat, maxLon, maxLat] = g.bbox;
    parts.push(boxOverlaps(alias, minLon!, minLat!, maxLon!, maxLat!));
    const lon = sql`(${v}.p ->> 0)::numeric`;
    const lat = sql`(${v}.p ->> 1)::numeric`;
    parts.push(
      sql`coalesce((select min(${lon}) <= ${maxLon}::numeric and max(${lon}) >= ${minLon}::numeric
        and min(${lat}) <= ${maxLat}::numeric and max(${lat}) >= ${minLat}::numeric from ${vertices}), false)`,
    );
  }
  if (given(g.near)) {
    const { longitude, latitude, distanceMeters } = g.near;
    const around = boxAround(longitude, latitude, distanceMeters);
    if (around) parts.push(boxOverlaps(alias, ...around));
    const lon = sql`radians((${v}.p ->> 0)::float8)`;
    const lat = sql`radians((${v}.p ->> 1)::float8)`;
    const lon0 = sql`radians(${longitude}::float8)`;
    const lat0 = sql`radians(${latitude}::float8)`;
    const h = sql`power(sin((${lat} - ${lat0}) / 2), 2) + cos(${lat0}) * cos(${lat}) * power(sin((${lon} - ${lon0}) / 2), 2)`;
    parts.push(
      sql`exists (select 1 from ${vertices}
        where 2 * ${EARTH_RADIUS_METERS}::float8 * asin(sqrt(least(1::float8, ${h}))) <= ${distanceMeters}::float8)`,
    );
  }
  return all(parts);
}

import { type Kysely, sql } from 'kysely';

// Geometry filters (`bbox`, `near`) test every vertex of an asset's GeoJSON; on their own they
// read every asset of the profile. asset_bbox() gives the box around the vertices (the same
// vertices the filter semantics name: arrays of two numbers under a `coordinates` member), and a
// GiST index on it lets a filter first keep only assets whose box overlaps the area asked for.
// Rounding to float8 is monotonic, so the box never drops an asset the exact test would keep.
export const VERTICES_JSONPATH =
  'strict $.** ? (@.type() == "object" && exists(@.coordinates)).coordinates.** ? (@.type() == "array" && @[0].type() == "number" && @[1].type() == "number")';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function asset_bbox(geometry jsonb) returns box
    language sql immutable parallel safe
    return (
      select box(point(min((v ->> 0)::float8), min((v ->> 1)::float8)),
                 point(max((v ->> 0)::float8), max((v ->> 1)::float8)))
      from jsonb_path_query(geometry, ${sql.lit(VERTICES_JSONPATH)}) as p(v)
    )`.execute(db);
  await sql`create index assets_geometry_bbox on assets using gist (asset_bbox(geometry))`.execute(db);
}

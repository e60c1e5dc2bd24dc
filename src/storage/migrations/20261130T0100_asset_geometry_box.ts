import { type Kysely, sql } from 'kysely';

// The map's viewport queries (`Assets.mapViewport`, docs/schema.md §6) read the box around every
// asset's vertices of a viewport, 100,000 of them for a profile seen whole, to count them per
// grid cell. asset_bbox() walks the GeoJSON with a JSON path each time it is called: kept in a
// stored column, it is computed once per write (only when the geometry changes, and not at all
// for an asset without geometry: the function is strict), and the GiST index the geometry
// filters use is built on the column instead of the expression, under the same name.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table assets add column geometry_box box generated always as (asset_bbox(geometry)) stored`.execute(
    db,
  );
  await sql`drop index assets_geometry_bbox`.execute(db);
  await sql`create index assets_geometry_bbox on assets using gist (geometry_box) where geometry_box is not null`.execute(
    db,
  );
}

import { type Kysely, sql } from 'kysely';

// Containment lookups on asset properties (relationships by property, equality filters):
// `properties @> '{"facilityId": "F-1"}'` uses this index; the tenant and profile columns
// then come from the heap, a small step after the index narrows to few rows.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index assets_properties on assets using gin (properties jsonb_path_ops)`.execute(db);
}

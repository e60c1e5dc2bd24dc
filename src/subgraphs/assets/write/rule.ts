/**
 * The one statement by which rows land in `assets`, whichever path they come by: a multi-row
 * INSERT, a chunk COPY'd into the import staging table, the merge of dataset layers, a
 * conversion, the demo seed.
 *
 * - A new asset is inserted with `modified_at = now()`.
 * - An existing asset whose row holds exactly what it has (properties, geometry, display name,
 *   deleted flag) is not written at all: no new row version, no index entries, `modified_at`
 *   kept. Re-importing the same values costs reads only (docs/performance.md, "Skip unchanged
 *   rows"), and it is what tells `updated` from `unchanged` in an import's summary.
 * - Otherwise properties, display name, deleted flag and lookup keys are replaced; the geometry
 *   is replaced when the row has one and kept when it has none; the observation is kept.
 *   `modified_at` moves when what the asset holds changed (properties, geometry, deleted flag),
 *   not for a display name recomputed alone, as a profile change recomputes it without moving
 *   `modified_at` (write/profile-change.ts).
 *
 * `xmax = 0` tells a row inserted from one updated by ON CONFLICT (a PostgreSQL idiom).
 */
export interface UpsertStatement {
  /** CTEs the rows read from, without the leading `with`. */
  with?: string;
  /**
   * A select of `id, properties, geometry, lookup, display_name, is_deleted`; `$1` is the
   * group and `$2` the profile.
   */
  rows: string;
  /**
   * A `text[]` parameter naming properties every row must hold (the merge checks required
   * properties in the database). A row lacking one is written even when unchanged, so that the
   * statement reports it in `missing` (up to 10 ids) and the caller can refuse the write.
   */
  required?: string;
  /** More columns of the statement's one answer row, read after the write (`expression as name`). */
  answer?: string;
}

/** What one upsert statement did: rows inserted, existing rows rewritten, incomplete rows. */
export interface UpsertCounts {
  inserted: number;
  changed: number;
  missing?: string[] | null;
}

export function upsertSql({ with: ctes, rows, required, answer }: UpsertStatement): string {
  const incomplete = required ? `or not (excluded.properties ?& ${required})` : '';
  return `with ${ctes ? `${ctes},` : ''}
    upserted as (
      insert into assets as a (user_group, profile, id, properties, geometry, lookup, display_name, is_deleted, modified_at)
      select $1, $2, r.id, r.properties, r.geometry, r.lookup, r.display_name, r.is_deleted, now()
      from (${rows}) r
      on conflict (user_group, profile, id) do update set
        properties = excluded.properties,
        geometry = coalesce(excluded.geometry, a.geometry),
        lookup = excluded.lookup,
        display_name = excluded.display_name,
        is_deleted = excluded.is_deleted,
        modified_at = case
          when (a.properties, a.geometry, a.is_deleted)
            is distinct from (excluded.properties, coalesce(excluded.geometry, a.geometry), excluded.is_deleted)
          then excluded.modified_at else a.modified_at end
      where (a.properties, a.geometry, a.display_name, a.is_deleted)
        is distinct from (excluded.properties, coalesce(excluded.geometry, a.geometry), excluded.display_name, excluded.is_deleted)
        ${incomplete}
      returning (xmax = 0) as inserted${required ? `, a.id, a.properties ?& ${required} as complete` : ''})
    select count(*) filter (where inserted)::int as inserted,
      count(*) filter (where not inserted)::int as changed${
        required
          ? `,
      (select array_agg(id) from (select id from upserted where not complete order by id limit 10) x) as missing`
          : ''
      }${answer ? `, ${answer}` : ''}
    from upserted`;
}

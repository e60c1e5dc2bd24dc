import DataLoader from 'dataloader';
import { type Kysely, sql } from 'kysely';
import type { Tables } from '../../storage/tables.ts';
import { type AssetColumns, type AssetRow, assetColumns, storedAsset } from './assets.repository.ts';
import type { EffectiveRelationship } from './profiles/definition.ts';

/** The most related assets a MANY relationship returns per asset (docs/schema.md). */
export const MAX_RELATED = 1000;

export interface RelatedKey {
  source: AssetRow;
  relationship: EffectiveRelationship;
  params: Record<string, unknown> | null;
}

/** The values a source asset offers for matching (JSON values, so types survive). */
export function sourceValues(key: RelatedKey): unknown[] {
  const { source, relationship: r, params } = key;
  const fromValue = (v: unknown): unknown[] =>
    v === undefined || v === null
      ? []
      : Array.isArray(v)
        ? v.filter((x) => x !== null && x !== undefined)
        : [v];
  switch (r.referenceType) {
    case 'ID':
      return [source.id];
    case 'PROPERTY':
      return r.referenceProperty ? fromValue(source.properties[r.referenceProperty]).slice(0, 1) : [];
    case 'PROPERTY_LIST':
      return r.referenceProperty ? fromValue(source.properties[r.referenceProperty]) : [];
    case 'PARAMETER':
      return r.referenceProperty && params ? fromValue(params[r.referenceProperty]) : [];
  }
}

const targetKey = (profile: string, r: EffectiveRelationship, value: unknown) =>
  `${profile}\u0000${r.lookupType}\u0000${r.lookupProperty ?? ''}\u0000${JSON.stringify(value)}`;

/**
 * Batches `related` for every asset of a request: one statement per (target profile, lookup)
 * pair, however many source assets ask. Each value finds at most MAX_RELATED targets, in id
 * order, through a lateral join that the primary key or the GIN index on lookup keys serves
 * (`lookup` holds the properties relationships find assets by: ./lookup.ts).
 */
export function createRelatedLoader(db: Kysely<Tables>, group: string) {
  return new DataLoader<RelatedKey, AssetRow[], string>(
    async (keys) => {
      const wanted = new Map<
        string,
        { profile: string; r: EffectiveRelationship; values: Map<string, unknown> }
      >();
      for (const k of keys) {
        const { relationship: r } = k;
        const lookupKey = `${r.profile}\u0000${r.lookupType}\u0000${r.lookupProperty ?? ''}`;
        let entry = wanted.get(lookupKey);
        if (!entry) {
          entry = { profile: r.profile, r, values: new Map() };
          wanted.set(lookupKey, entry);
        }
        for (const v of sourceValues(k)) entry.values.set(JSON.stringify(v), v);
      }
      const found = new Map<string, AssetRow[]>();
      await Promise.all(
        [...wanted.values()].map(async ({ profile, r, values }) => {
          if (values.size === 0) return;
          const list = [...values.values()];
          const rows = await lookup(db, group, profile, r, list);
          for (const { asset, value_index } of rows) {
            const k = targetKey(profile, r, list[value_index]);
            const bucket = found.get(k) ?? [];
            bucket.push(asset);
            found.set(k, bucket);
          }
        }),
      );
      return keys.map((k) => {
        const out = new Map<string, AssetRow>();
        for (const v of sourceValues(k)) {
          for (const row of found.get(targetKey(k.relationship.profile, k.relationship, v)) ?? [])
            out.set(row.id, row);
        }
        return [...out.values()]
          .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
          .slice(0, MAX_RELATED);
      });
    },
    {
      cacheKeyFn: (k) =>
        `${k.source.profile}\u0000${k.source.id}\u0000${k.relationship.relationship}\u0000${JSON.stringify(k.params ?? null)}`,
      maxBatchSize: 1000,
    },
  );
}

async function lookup(
  db: Kysely<Tables>,
  group: string,
  profile: string,
  r: EffectiveRelationship,
  values: unknown[],
): Promise<{ asset: AssetRow; value_index: number }[]> {
  const json = JSON.stringify(values);
  let match: ReturnType<typeof sql>;
  if (r.lookupType === 'ID') {
    match = sql`t.id = v.value #>> '{}'`;
  } else if (r.lookupType === 'PROPERTY' && r.lookupProperty) {
    match = sql`t.lookup @> jsonb_build_object(${r.lookupProperty}::text, v.value)`;
  } else if (r.lookupType === 'PROPERTY_LIST' && r.lookupProperty) {
    match = sql`t.lookup @> jsonb_build_object(${r.lookupProperty}::text, jsonb_build_array(v.value))`;
  } else {
    return [];
  }
  // No ORDER BY ... LIMIT inside the join: with one, the planner walks the primary key in id
  // order and tests every asset against each value; without, it probes the GIN index (or the
  // primary key) per value, and the cap applies afterwards.
  const { rows } = await sql<AssetColumns & { value_index: number }>`
    select * from (
      select ${assetColumns('t')}, (v.ord - 1)::int as value_index,
        row_number() over (partition by v.ord order by t.id) as rank
      from jsonb_array_elements(${json}::jsonb) with ordinality as v(value, ord)
      join assets t on t.user_group = ${group} and t.profile = ${profile} and ${match}
    ) matched
    where rank <= ${MAX_RELATED}
    order by value_index, id`.execute(db);
  return rows.map((row) => ({ asset: storedAsset(row), value_index: row.value_index }));
}

/** What `Asset.related` resolves to, before the union picks its member type. */
export type RelationshipOneView = {
  __typename: 'AssetRelationshipOne';
  asset: AssetRow | null;
  observation: Record<string, unknown> | null;
};
export type RelationshipManyView = {
  __typename: 'AssetRelationshipMany';
  assets: AssetRow[];
  observations: Record<string, unknown>[];
};

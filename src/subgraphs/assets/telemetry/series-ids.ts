import { textArray } from '../../../storage/array-literal.ts';
import type { Exec } from '../exec.ts';
import { DatasetWriteError } from '../write/types.ts';

/**
 * Series ids this process has looked up, per database, by group, profile and dataset, then asset
 * and key: a series row is never deleted.
 */
const seriesIds = new WeakMap<object, { scopes: Map<string, SeriesIds>; size: number }>();
const MAX_REMEMBERED = 200_000;

/** Series ids by asset, then key. */
export type SeriesIds = Map<string, Map<string, string>>;

function put(ids: SeriesIds, assetId: string, key: string, id: string): boolean {
  let keys = ids.get(assetId);
  if (!keys) {
    keys = new Map();
    ids.set(assetId, keys);
  }
  if (keys.has(key)) return false;
  keys.set(key, id);
  return true;
}

/**
 * The series id of each (asset, key) of `dataset`, made when missing: refused when an asset would
 * hold more than `keysPerAsset` keys in the dataset.
 */
export async function seriesOf(
  exec: Exec,
  cacheOwner: object,
  group: string,
  profile: string,
  dataset: string,
  pairs: readonly (readonly [string, string])[],
  keysPerAsset: number,
): Promise<SeriesIds> {
  let remembered = seriesIds.get(cacheOwner);
  if (!remembered) {
    remembered = { scopes: new Map(), size: 0 };
    seriesIds.set(cacheOwner, remembered);
  }
  const scope = `${group}\u0000${profile}\u0000${dataset}`;
  let cache = remembered.scopes.get(scope);
  if (!cache) {
    cache = new Map();
    remembered.scopes.set(scope, cache);
  }
  const found: SeriesIds = new Map();
  const missing: (readonly [string, string])[] = [];
  const asked: SeriesIds = new Map();
  for (const [id, key] of pairs) {
    const known = cache.get(id)?.get(key);
    if (known) put(found, id, key, known);
    else if (put(asked, id, key, '')) missing.push([id, key]);
  }
  if (missing.length === 0) return found;
  const ids = textArray(missing.map((m) => m[0]));
  const keys = textArray(missing.map((m) => m[1]));
  // Each key is a series: an asset's keys are bounded, as an asset model's properties are.
  const crowded = await exec<{ asset_id: string; n: number }>(
    `with t as (
       select distinct a, k from unnest($4::text[], $5::text[]) as t(a, k)
       where not exists (
         select 1 from observation_series s
         where s.user_group = $1 and s.profile = $2 and s.dataset = $3 and s.asset_id = a and s.property = k)),
     per as (select a, count(*) as fresh from t group by a)
     select per.a as asset_id, (per.fresh + c.n)::int as n from per
     cross join lateral (
       select count(*) as n from observation_series s
       where s.user_group = $1 and s.profile = $2 and s.dataset = $3 and s.asset_id = per.a) c
     where per.fresh + c.n > ${keysPerAsset}
     limit 10`,
    [group, profile, dataset, ids, keys],
  );
  if (crowded.length > 0)
    throw new DatasetWriteError(
      `at most ${keysPerAsset} keys an asset in dataset ${dataset}: ${crowded
        .map((c) => `${c.asset_id} would have ${c.n}`)
        .join(', ')}`,
    );
  // Made here, or by a concurrent writer (its insert waited for, then seen by the select).
  await exec(
    `insert into observation_series (user_group, profile, asset_id, dataset, property)
     select $1, $2, a, $3, k from unnest($4::text[], $5::text[]) as t(a, k) order by a, k
     on conflict do nothing`,
    [group, profile, dataset, ids, keys],
  );
  const rows = await exec<{ id: string; asset_id: string; property: string }>(
    `select s.id, s.asset_id, s.property from observation_series s
     join unnest($4::text[], $5::text[]) as t(a, k) on s.asset_id = t.a and s.property = t.k
     where s.user_group = $1 and s.profile = $2 and s.dataset = $3`,
    [group, profile, dataset, ids, keys],
  );
  if (remembered.size + rows.length > MAX_REMEMBERED) {
    cache.clear();
    remembered.scopes.clear();
    remembered.scopes.set(scope, cache);
    remembered.size = 0;
  }
  for (const r of rows) {
    put(found, r.asset_id, r.property, r.id);
    if (put(cache, r.asset_id, r.property, r.id)) remembered.size++;
  }
  return found;
}

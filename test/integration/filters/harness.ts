import { sql } from 'kysely';
import { afterAll, beforeAll, expect } from 'vitest';
import { kyselyExec } from '../../../src/subgraphs/assets/exec.ts';
import { compileFilter } from '../../../src/subgraphs/assets/filters/compile.ts';
import { type AssetRecord, evaluateFilter } from '../../../src/subgraphs/assets/filters/evaluate.ts';
import type { AssetFilterInput } from '../../../src/subgraphs/assets/filters/types.ts';
import { validateFilter } from '../../../src/subgraphs/assets/filters/validate.ts';
import { refreshLookups } from '../../../src/subgraphs/assets/lookup.ts';
import {
  type EffectiveProfile,
  effectiveProfile,
} from '../../../src/subgraphs/assets/profiles/definition.ts';
import { freshDatabase, type TestDatabase } from '../../helpers/database.ts';
import {
  asset,
  FACILITY_IDS,
  FIXTURES,
  facilityDocument,
  facilityProperties,
  G2_ONLY_FACILITIES,
  type NewAsset,
  rng,
  SEED,
  wellDocument,
  wellProperties,
} from './data.ts';
import type { Pools } from './random.ts';

// ------------------------------------------------------------------------------------------
// Harness

export let database: TestDatabase;
export const profilesByName = new Map<string, EffectiveProfile>();
export const lookup = (name: string) => profilesByName.get(name) ?? null;
export const rows = new Map<string, AssetRecord[]>();
export let pools: Pools;
export const stats = { filters: 0, nonTrivial: 0, matched: 0, candidates: 0 };

export const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function profile(name: string): EffectiveProfile {
  return profilesByName.get(name)!;
}

export async function sqlIds(profileName: string, filter: AssetFilterInput, alias = 'a'): Promise<string[]> {
  const where = compileFilter(filter, {
    profile: profile(profileName),
    profiles: lookup,
    group: 'g1',
    alias,
  });
  const { rows: result } = await sql<{ id: string }>`
    select ${sql.ref(`${alias}.id`)} as id from assets as ${sql.id(alias)}
    where ${sql.ref(`${alias}.user_group`)} = 'g1' and ${sql.ref(`${alias}.profile`)} = ${profileName} and ${where}
`.execute(database.db);
  return result.map((r) => r.id).sort(byCodeUnit);
}

export function referenceIds(profileName: string, filter: AssetFilterInput): string[] {
  const ctx = { profile: profile(profileName), profiles: lookup, assetsOf: (p: string) => rows.get(p) ?? [] };
  return (rows.get(profileName) ?? [])
    .filter((a) => evaluateFilter(filter, a, ctx))
    .map((a) => a.id)
    .sort(byCodeUnit);
}

/** Runs the filter both ways; fails with the seed, the filter and the difference. */
export async function agree(profileName: string, filter: AssetFilterInput, label: string): Promise<string[]> {
  const checked = validateFilter(filter, profile(profileName), lookup);
  if (!checked.ok)
    throw new Error(`${label}: the filter is invalid: ${checked.message}\n${JSON.stringify(filter)}`);
  const t0 = performance.now();
  const expected = referenceIds(profileName, filter);
  const t1 = performance.now();
  const actual = await sqlIds(profileName, filter);
  const t2 = performance.now();
  if (process.env.FILTER_TIMING && t2 - t0 > 100)
    console.log(
      `${label}: ref ${Math.round(t1 - t0)} ms, sql ${Math.round(t2 - t1)} ms: ${JSON.stringify(filter)}`,
    );
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    const onlySql = actual.filter((x) => !expected.includes(x));
    const onlyRef = expected.filter((x) => !actual.includes(x));
    const sample = [...onlySql, ...onlyRef]
      .slice(0, 3)
      .map((id) => rows.get(profileName)!.find((a) => a.id === id));
    throw new Error(
      `${label} (seed ${SEED}, profile ${profileName}): SQL and reference disagree\n` +
        `filter: ${JSON.stringify(filter)}\n` +
        `only in SQL (${onlySql.length}): ${onlySql.slice(0, 10).join(', ')}\n` +
        `only in reference (${onlyRef.length}): ${onlyRef.slice(0, 10).join(', ')}\n` +
        `rows: ${JSON.stringify(sample)}`,
    );
  }
  stats.filters += 1;
  stats.matched += actual.length;
  stats.candidates += rows.get(profileName)!.length;
  if (actual.length > 0 && actual.length < rows.get(profileName)!.length) stats.nonTrivial += 1;
  return actual;
}

/** The filters' database: profiles and assets of two groups, and the reference rows as stored. */
export function useFilterDatabase(): void {
  beforeAll(async () => {
    // What an earlier file of the same worker left (the files share this module's instance).
    profilesByName.clear();
    rows.clear();
    Object.assign(stats, { filters: 0, nonTrivial: 0, matched: 0, candidates: 0 });
    database = await freshDatabase();
    const db = database.db;
    const documents = { well: wellDocument, facility: facilityDocument };
    for (const group of ['g1', 'g2'])
      for (const [name, document] of Object.entries(documents))
        await db
          .insertInto('asset_profiles')
          .values({
            user_group: group,
            profile: name,
            title: name,
            owner_username: 'tester',
            definition: JSON.stringify(document),
          })
          .execute();

    const r = rng(SEED);
    const assets: NewAsset[] = [...FIXTURES];
    for (let i = 1; i <= 400; i++)
      assets.push(asset(r, 'g1', 'well', `W-${String(i).padStart(4, '0')}`, wellProperties(r)));
    // Facilities '1' and '5' would be reached if a number (facilityId 5, partnerIds [1, …]) were taken for a key.
    for (const id of [...FACILITY_IDS, '1', '5'])
      assets.push(asset(r, 'g1', 'facility', id, facilityProperties(r)));
    // Decoys: same ids and facilities only g2 has; a leak across groups changes results.
    for (let i = 1; i <= 40; i++)
      assets.push(asset(r, 'g2', 'well', `W-${String(i).padStart(4, '0')}`, wellProperties(r)));
    for (const id of [...FACILITY_IDS.slice(0, 10), ...G2_ONLY_FACILITIES])
      assets.push(asset(r, 'g2', 'facility', id, facilityProperties(r)));
    await db
      .insertInto('assets')
      .values(
        assets.map((a) => ({
          ...a,
          properties: JSON.stringify(a.properties),
          geometry: a.geometry === null ? null : JSON.stringify(a.geometry),
          modified_at: a.modified_at.toISOString(),
        })),
      )
      .execute();
    // The profiles' lookup names and the assets' lookup keys, as the profile service keeps them;
    // equalities on lookup properties (facilityId, name, partnerIds) are narrowed through them.
    for (const group of ['g1', 'g2']) await refreshLookups(kyselyExec(db), group);
    const stored = await db
      .selectFrom('asset_profiles')
      .select(['user_group', 'profile', 'title', 'owner_username', 'definition', 'lookup_names'])
      .where('user_group', '=', 'g1')
      .execute();
    for (const row of stored) profilesByName.set(row.profile, effectiveProfile(row, []));
    expect(profilesByName.get('well')!.lookupNames).toEqual(['facilityId', 'name', 'partnerIds']);

    // The reference sees the rows as stored (jsonb normalises), not as generated.
    const read = await db
      .selectFrom('assets')
      .select(['profile', 'id', 'properties', 'geometry', 'display_name', 'is_deleted', 'modified_at'])
      .where('user_group', '=', 'g1')
      .orderBy('id')
      .execute();
    for (const row of read) {
      const list = rows.get(row.profile) ?? [];
      list.push({ ...row, geometry: row.geometry ?? null });
      rows.set(row.profile, list);
    }

    const values = new Map<string, unknown[]>();
    const vertices: [number, number][] = [];
    for (const [p, list] of rows)
      for (const a of list) {
        for (const [k, v] of Object.entries(a.properties)) {
          const key = `${p}.${k}`;
          values.set(key, [...(values.get(key) ?? []), v]);
        }
        const walk = (c: unknown): void => {
          if (Array.isArray(c) && typeof c[0] === 'number' && typeof c[1] === 'number')
            vertices.push([c[0], c[1]]);
          else if (Array.isArray(c)) c.forEach(walk);
        };
        walk(a.geometry?.coordinates);
      }
    pools = {
      ids: new Map([...rows].map(([p, list]) => [p, list.map((a) => a.id)])),
      values,
      names: [...rows.values()].flat().map((a) => a.display_name),
      vertices,
      times: [...rows.values()].flat().map((a) => a.modified_at),
    };
  });

  afterAll(async () => {
    await database?.close();
    console.log(
      `filters: seed ${SEED}; ${stats.filters} filters agreed (${stats.nonTrivial} selected some but not all); ` +
        `${stats.matched} of ${stats.candidates} rows matched in total`,
    );
  });

  // ------------------------------------------------------------------------------------------
}

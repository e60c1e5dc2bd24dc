import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type TestDatabase } from '../../../../test/helpers/database.ts';
import { kyselyExec } from '../datasets/write.ts';
import { refreshLookups } from '../lookup.ts';
import { type EffectiveProfile, effectiveProfile, type ProfileDocument } from '../profiles/definition.ts';
import { compileFilter } from './compile.ts';
import { type AssetRecord, evaluateFilter } from './evaluate.ts';
import { type AssetFilterInput, FilterError } from './types.ts';
import { validateFilter } from './validate.ts';

// The SQL compiler and the reference evaluator must agree on every filter. The data and the
// random filters come from a seeded PRNG: FILTER_SEED=<n> replays a run; FILTER_TIMING=1
// logs every filter that takes over 100 ms.
const SEED = Number(process.env.FILTER_SEED ?? 20261122);
const RANDOM_FILTERS = 300;
const RANDOM_FACILITY_FILTERS = 60;

// ------------------------------------------------------------------------------------------
// PRNG (mulberry32)

interface Rng {
  next(): number;
  int(min: number, max: number): number;
  pick<T>(xs: readonly T[]): T;
  chance(p: number): boolean;
}

function rng(seed: number): Rng {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (xs) => xs[Math.floor(next() * xs.length)]!,
    chance: (p) => next() < p,
  };
}

// ------------------------------------------------------------------------------------------
// Profiles

const wellDocument: ProfileDocument = {
  displayNameProperty: 'name',
  properties: [
    { name: 'name', type: 'STRING' },
    { name: 'status', type: 'ENUM', enumValues: ['producing', 'shut-in', 'abandoned', 'drilling'] },
    { name: 'depth', type: 'NUMBER', unit: 'm', default: 1000 },
    { name: 'count', type: 'INTEGER' },
    { name: 'active', type: 'BOOLEAN' },
    { name: 'spud', type: 'DATE' },
    { name: 'tags', type: 'JSON' },
    { name: 'facilityId', type: 'STRING' },
    { name: 'partnerIds', type: 'JSON' },
  ],
  relationships: [
    {
      relationship: 'facility',
      type: 'ONE',
      profile: 'facility',
      referenceType: 'PROPERTY',
      referenceProperty: 'facilityId',
      lookupType: 'ID',
    },
    {
      relationship: 'partners',
      type: 'MANY',
      profile: 'facility',
      referenceType: 'PROPERTY_LIST',
      referenceProperty: 'partnerIds',
      lookupType: 'ID',
    },
    {
      relationship: 'siblings',
      type: 'MANY',
      profile: 'well',
      referenceType: 'PROPERTY',
      referenceProperty: 'facilityId',
      lookupType: 'PROPERTY',
      lookupProperty: 'facilityId',
    },
    {
      relationship: 'byUwi',
      type: 'MANY',
      profile: 'well',
      referenceType: 'PARAMETER',
      referenceProperty: 'uwi',
      lookupType: 'PROPERTY',
      lookupProperty: 'name',
      parameters: [{ name: 'uwi', type: 'STRING', required: true }],
    },
  ],
};

const facilityDocument: ProfileDocument = {
  displayNameProperty: 'name',
  properties: [
    { name: 'name', type: 'STRING' },
    { name: 'kind', type: 'ENUM', enumValues: ['plant', 'battery', 'compressor'], default: 'plant' },
    { name: 'capacity', type: 'NUMBER' },
    { name: 'region', type: 'STRING' },
  ],
  relationships: [
    {
      relationship: 'wells',
      type: 'MANY',
      profile: 'well',
      referenceType: 'ID',
      lookupType: 'PROPERTY',
      lookupProperty: 'facilityId',
    },
    {
      relationship: 'listedWells',
      type: 'MANY',
      profile: 'well',
      referenceType: 'ID',
      lookupType: 'PROPERTY_LIST',
      lookupProperty: 'partnerIds',
    },
  ],
};

// ------------------------------------------------------------------------------------------
// Data

interface NewAsset {
  user_group: string;
  profile: string;
  id: string;
  properties: Record<string, unknown>;
  geometry: Record<string, unknown> | null;
  display_name: string;
  is_deleted: boolean;
  modified_at: Date;
}

const NAME_WORDS = [
  'Red',
  'deer',
  'OIL',
  'Well',
  'pad',
  '100%',
  'a_b',
  'North',
  'SOUTH',
  'Ölfeld',
  'café',
  'x\\y',
  '%',
  '_',
  'Battery',
];
const STATUSES = ['producing', 'Producing', 'SHUT-IN', 'shut-in', 'abandoned', 'Drilling'];
const TAG_VALUES: unknown[] = [['a', 'b'], ['b'], [], ['a', 1], { k: 'a' }, 'a', 5, true, ['A'], [['a']]];
const FACILITY_IDS = Array.from({ length: 30 }, (_, i) => `F-${String(i + 1).padStart(2, '0')}`);
const G2_ONLY_FACILITIES = ['F-31', 'F-32', 'F-33'];
const T0 = Date.parse('2025-01-01T00:00:00Z');
const T1 = Date.parse('2026-12-31T00:00:00Z');

/** A value that is sometimes absent (undefined) or JSON null. */
function maybe(r: Rng, make: () => unknown, missing = 0.12, nulls = 0.05): unknown {
  const x = r.next();
  if (x < missing) return undefined;
  if (x < missing + nulls) return null;
  return make();
}

function coord(r: Rng): [number, number] {
  return [Math.round((-120 + r.next() * 10) * 1e5) / 1e5, Math.round((49 + r.next() * 7) * 1e5) / 1e5];
}

function geometry(r: Rng): Record<string, unknown> | null {
  const x = r.next();
  if (x < 0.12) return null;
  if (x < 0.55) return { type: 'Point', coordinates: coord(r) };
  if (x < 0.58) return { type: 'Point', coordinates: [...coord(r), 812.5] };
  if (x < 0.8)
    return { type: 'LineString', coordinates: Array.from({ length: r.int(2, 4) }, () => coord(r)) };
  if (x < 0.87) {
    const [lon, lat] = coord(r);
    const d = r.next() * 0.5;
    return {
      type: 'Polygon',
      coordinates: [
        [
          [lon, lat],
          [lon + d, lat],
          [lon + d, lat + d],
          [lon, lat],
        ],
      ],
    };
  }
  if (x < 0.92) return { type: 'MultiPoint', coordinates: [coord(r), coord(r)] };
  if (x < 0.96)
    return {
      type: 'GeometryCollection',
      geometries: [
        { type: 'Point', coordinates: coord(r) },
        { type: 'LineString', coordinates: [coord(r), coord(r)] },
      ],
    };
  if (x < 0.98) return { type: 'Point', coordinates: coord(r), bbox: [0, 0, 1, 1] };
  return { type: 'Point', coordinates: [] };
}

function compact(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

function wellProperties(r: Rng): Record<string, unknown> {
  return compact({
    name: maybe(r, () =>
      r.chance(0.04)
        ? 42
        : Array.from({ length: r.int(1, 3) }, () => r.pick(NAME_WORDS)).join(' ') +
          (r.chance(0.5) ? ` ${r.int(1, 99)}` : ''),
    ),
    status: maybe(r, () => r.pick(STATUSES)),
    depth: maybe(
      r,
      () => {
        const x = r.next();
        if (x < 0.06) return r.pick(['1500', 'deep', '1000']);
        if (x < 0.12) return 1000;
        if (x < 0.5) return r.int(500, 5000);
        return Math.round((500 + r.next() * 4500) * 100) / 100;
      },
      0.15,
    ),
    count: maybe(r, () => (r.chance(0.04) ? '7' : r.int(0, 20)), 0.15),
    active: maybe(r, () => (r.chance(0.04) ? 'true' : r.chance(0.5)), 0.15),
    spud: maybe(
      r,
      () =>
        `${r.int(2015, 2026)}-${String(r.int(1, 12)).padStart(2, '0')}-${String(r.int(1, 28)).padStart(2, '0')}`,
      0.15,
    ),
    tags: maybe(r, () => r.pick(TAG_VALUES), 0.2),
    facilityId: maybe(r, () => {
      const x = r.next();
      if (x < 0.08) return r.pick(G2_ONLY_FACILITIES);
      if (x < 0.12) return 'F-99';
      if (x < 0.15) return 5;
      return r.pick(FACILITY_IDS);
    }),
    partnerIds: maybe(
      r,
      () => {
        const x = r.next();
        if (x < 0.1) return r.pick(FACILITY_IDS);
        if (x < 0.15) return [1, r.pick(FACILITY_IDS)];
        return Array.from({ length: r.int(0, 3) }, () =>
          r.chance(0.1) ? r.pick(G2_ONLY_FACILITIES) : r.pick(FACILITY_IDS),
        );
      },
      0.3,
    ),
    legacy: r.chance(0.1) ? 'unused' : undefined,
  });
}

function facilityProperties(r: Rng): Record<string, unknown> {
  return compact({
    name: maybe(r, () => `${r.pick(['Red', 'deer', 'Plant', 'Gas'])} ${r.pick(['North', 'south', '10%'])}`),
    kind: maybe(r, () => r.pick(['plant', 'battery', 'Compressor'])),
    capacity: maybe(r, () => r.int(0, 100) * 10),
    region: maybe(r, () => r.pick(['AB', 'BC', 'sk'])),
  });
}

function asset(
  r: Rng,
  group: string,
  profile: string,
  id: string,
  properties: Record<string, unknown>,
): NewAsset {
  return {
    user_group: group,
    profile,
    id,
    properties,
    geometry: geometry(r),
    display_name: typeof properties.name === 'string' ? properties.name : id,
    is_deleted: r.chance(0.1),
    modified_at: new Date(T0 + Math.floor(r.next() * (T1 - T0))),
  };
}

/** Hand-made wells the hand-written cases assert on exactly. */
const FIXTURES: NewAsset[] = [
  {
    user_group: 'g1',
    profile: 'well',
    id: 'X-pct',
    properties: {
      name: 'Oil 100% pure_grade',
      status: 'Producing',
      depth: '1500',
      count: 3,
      active: true,
      spud: '2021-05-01',
      tags: ['a', 'b'],
      facilityId: 'F-01',
      partnerIds: ['F-02', 'F-31'],
    },
    geometry: { type: 'Point', coordinates: [-113.81, 52.27] },
    display_name: 'Oil 100% pure_grade',
    is_deleted: false,
    modified_at: new Date('2026-06-01T12:00:00.000Z'),
  },
  {
    user_group: 'g1',
    profile: 'well',
    id: 'X-like',
    properties: { name: 'Oil 100X pureXgrade', depth: 1500, count: 4, active: false, facilityId: 'F-31' },
    geometry: {
      type: 'LineString',
      coordinates: [
        [-100, 40],
        [-99, 41],
      ],
    },
    display_name: 'Oil 100X pureXgrade',
    is_deleted: true,
    modified_at: new Date('2026-06-01T12:00:00.001Z'),
  },
  {
    user_group: 'g1',
    profile: 'well',
    id: 'X-null',
    properties: { name: null, depth: null, count: null, active: null, tags: null, facilityId: null },
    geometry: null,
    display_name: 'X-null',
    is_deleted: false,
    modified_at: new Date('2025-01-01T00:00:00.000Z'),
  },
  {
    user_group: 'g1',
    profile: 'well',
    id: 'X-absent',
    properties: {},
    geometry: { type: 'Point', coordinates: [] },
    display_name: 'X-absent',
    is_deleted: false,
    modified_at: new Date('2025-01-01T00:00:00.000Z'),
  },
];

// ------------------------------------------------------------------------------------------
// Random filters

interface Pools {
  ids: Map<string, string[]>;
  values: Map<string, unknown[]>;
  names: string[];
  vertices: [number, number][];
  times: Date[];
}

function randomCase(r: Rng, s: string): string {
  return [...s]
    .map((c) => (r.chance(0.3) ? (r.chance(0.5) ? c.toUpperCase() : c.toLowerCase()) : c))
    .join('');
}

function substring(r: Rng, s: string): string {
  const a = r.int(0, s.length);
  return s.slice(a, r.int(a, Math.min(s.length, a + 6)));
}

function randomPredicate(r: Rng, profile: EffectiveProfile, pools: Pools): Record<string, unknown> {
  const def = r.pick(profile.properties);
  const seen = pools.values.get(`${profile.profile}.${def.name}`) ?? [];
  const name = def.name;
  switch (def.type) {
    case 'NUMBER':
    case 'INTEGER': {
      const nums = seen.filter((v): v is number => typeof v === 'number');
      if (typeof def.default === 'number') nums.push(def.default);
      const n = () => (nums.length && r.chance(0.7) ? r.pick(nums) : r.int(-10, 5000));
      const op = r.pick(['equals', 'notEquals', 'in', 'gt', 'gte', 'lt', 'lte', 'exists']);
      if (op === 'exists') return { name, exists: r.chance(0.5) };
      if (op === 'in') return { name, in: Array.from({ length: r.int(1, 4) }, n) };
      return { name, [op]: n() };
    }
    case 'STRING':
    case 'ENUM':
    case 'DATE':
    case 'DATE_TIME': {
      const strs = seen.filter((v): v is string => typeof v === 'string');
      if (typeof def.default === 'string') strs.push(def.default);
      if (strs.length === 0) strs.push('x');
      const s = () => {
        const base = r.pick(strs);
        return r.chance(0.3) ? randomCase(r, base) : r.chance(0.1) ? `${base}z` : base;
      };
      const op = r.pick([
        'equals',
        'notEquals',
        'in',
        'gt',
        'gte',
        'lt',
        'lte',
        'contains',
        'startsWith',
        'exists',
        'contains',
      ]);
      const ci = ['equals', 'notEquals', 'in', 'contains', 'startsWith'].includes(op) && r.chance(0.5);
      const extra = ci ? { caseInsensitive: true } : r.chance(0.1) ? { caseInsensitive: false } : {};
      if (op === 'exists') return { name, exists: r.chance(0.5) };
      if (op === 'in') return { name, in: Array.from({ length: r.int(1, 4) }, s), ...extra };
      if (op === 'contains') {
        const v = r.chance(0.2) ? r.pick(['%', '_', '\\', '100%', 'a_b', '']) : substring(r, s());
        return { name, contains: v, ...extra };
      }
      if (op === 'startsWith') return { name, startsWith: s().slice(0, r.int(0, 5)), ...extra };
      if (op === 'gt' || op === 'gte' || op === 'lt' || op === 'lte')
        return { name, [op]: r.chance(0.5) ? s() : s().slice(0, r.int(1, 4)) };
      return { name, [op]: s(), ...extra };
    }
    case 'BOOLEAN': {
      const op = r.pick(['equals', 'notEquals', 'in', 'exists']);
      if (op === 'in') return { name, in: r.pick([[true], [false], [true, false]]) };
      return { name, [op]: r.chance(0.5) };
    }
    case 'JSON': {
      const json = seen.filter((v) => v !== null);
      const v = () => (json.length && r.chance(0.8) ? r.pick(json) : r.pick(['a', 3, { k: 'b' }, ['x']]));
      const op = r.pick(['equals', 'notEquals', 'in', 'contains', 'exists']);
      if (op === 'exists') return { name, exists: r.chance(0.5) };
      if (op === 'in') return { name, in: Array.from({ length: r.int(1, 3) }, v) };
      if (op === 'contains') return { name, contains: r.pick(['a', 'b', 'A', 'F-02', 'F-31', '1']) };
      return { name, [op]: v() };
    }
  }
}

function randomGeometry(r: Rng, pools: Pools): Record<string, unknown> {
  const [lon, lat] = r.chance(0.8) ? r.pick(pools.vertices) : coord(r);
  const box = () => {
    if (r.chance(0.1)) return [lon, lat, lon, lat];
    const w = r.next() * 3;
    const h = r.next() * 3;
    return [
      Math.max(-180, lon - w * r.next()),
      Math.max(-90, lat - h * r.next()),
      Math.min(180, lon + w * r.next()),
      Math.min(90, lat + h * r.next()),
    ];
  };
  const near = () => ({
    longitude: lon + (r.chance(0.2) ? 0 : (r.next() - 0.5) * 0.5),
    latitude: lat + (r.chance(0.2) ? 0 : (r.next() - 0.5) * 0.5),
    distanceMeters: r.chance(0.1) ? 0 : Math.round(r.next() * 60000),
  });
  const x = r.next();
  if (x < 0.45) return { bbox: box() };
  if (x < 0.9) return { near: near() };
  return { bbox: box(), near: near() };
}

function randomFilter(
  r: Rng,
  profile: EffectiveProfile,
  profiles: (name: string) => EffectiveProfile | null,
  pools: Pools,
  depth: number,
): AssetFilterInput {
  const f: Record<string, unknown> = {};
  const fields = r.chance(0.05) ? 0 : r.int(1, 2);
  const nested = depth < 3;
  for (let i = 0; i < fields; i++) {
    const kind = r.pick([
      'and',
      'or',
      'not',
      'ids',
      'property',
      'property',
      'property',
      'property',
      'modifiedAfter',
      'modifiedBefore',
      'search',
      'isDeleted',
      'geometry',
      'related',
      'related',
    ]);
    switch (kind) {
      case 'and':
      case 'or':
        if (nested)
          f[kind] = Array.from({ length: r.int(0, 3) }, () =>
            randomFilter(r, profile, profiles, pools, depth + 1),
          );
        break;
      case 'not':
        if (nested) f.not = randomFilter(r, profile, profiles, pools, depth + 1);
        break;
      case 'ids': {
        const ids = pools.ids.get(profile.profile)!;
        f.ids = r.chance(0.05) ? [] : [...Array.from({ length: r.int(1, 40) }, () => r.pick(ids)), 'nope'];
        break;
      }
      case 'property':
        f.property = randomPredicate(r, profile, pools);
        break;
      case 'modifiedAfter':
      case 'modifiedBefore': {
        const t = r.chance(0.3) ? r.pick(pools.times) : new Date(T0 + Math.floor(r.next() * (T1 - T0)));
        f[kind] = r.chance(0.5) ? t : t.toISOString();
        break;
      }
      case 'search': {
        const name = r.pick(pools.names);
        const words = name.split(/\s+/).filter(Boolean);
        const chosen = Array.from({ length: r.int(1, 2) }, () => {
          const w = r.pick(words.length ? words : ['x']);
          return r.chance(0.3) ? substring(r, w) : randomCase(r, w);
        });
        f.search = r.chance(0.1) ? r.pick(['%', '_', '  ', '\\']) : chosen.join(r.pick([' ', '  ', '\t']));
        break;
      }
      case 'isDeleted':
        f.isDeleted = r.chance(0.5);
        break;
      case 'geometry':
        f.geometry = randomGeometry(r, pools);
        break;
      case 'related': {
        if (!nested) break;
        const rels = profile.relationships.filter(
          (x) => x.referenceType !== 'PARAMETER' && x.lookupType !== 'PARAMETER',
        );
        const rel = r.pick(rels);
        const target = profiles(rel.profile)!;
        const sub = () => (r.chance(0.25) ? {} : randomFilter(r, target, profiles, pools, depth + 1));
        const x = r.next();
        f.related =
          x < 0.55
            ? { relationship: rel.relationship, some: sub() }
            : x < 0.9
              ? { relationship: rel.relationship, none: sub() }
              : { relationship: rel.relationship, some: sub(), none: sub() };
        break;
      }
    }
  }
  return f as AssetFilterInput;
}

// ------------------------------------------------------------------------------------------
// Harness

let database: TestDatabase;
const profilesByName = new Map<string, EffectiveProfile>();
const lookup = (name: string) => profilesByName.get(name) ?? null;
const rows = new Map<string, AssetRecord[]>();
let pools: Pools;
const stats = { filters: 0, nonTrivial: 0, matched: 0, candidates: 0 };

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function profile(name: string): EffectiveProfile {
  return profilesByName.get(name)!;
}

async function sqlIds(profileName: string, filter: AssetFilterInput, alias = 'a'): Promise<string[]> {
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

function referenceIds(profileName: string, filter: AssetFilterInput): string[] {
  const ctx = { profile: profile(profileName), profiles: lookup, assetsOf: (p: string) => rows.get(p) ?? [] };
  return (rows.get(profileName) ?? [])
    .filter((a) => evaluateFilter(filter, a, ctx))
    .map((a) => a.id)
    .sort(byCodeUnit);
}

/** Runs the filter both ways; fails with the seed, the filter and the difference. */
async function agree(profileName: string, filter: AssetFilterInput, label: string): Promise<string[]> {
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

beforeAll(async () => {
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
// Tests

describe('hand-written filters (SQL = reference, and the expected fixtures)', () => {
  const X = ['X-absent', 'X-like', 'X-null', 'X-pct'];
  /** Runs the filter (restricted to the fixtures) both ways and returns the fixtures matched. */
  const fixtures = async (filter: AssetFilterInput, label: string, profileName = 'well') => {
    await agree(profileName, filter, label);
    return agree(profileName, { ids: X, and: [filter] }, label);
  };
  const cases: [string, AssetFilterInput, string[]][] = [
    ['empty filter', {}, X],
    ['and []', { and: [] }, X],
    ['or []', { or: [] }, []],
    ['not {}', { not: {} }, []],
    ['ids', { ids: ['X-pct', 'W-0001', 'nope'] }, ['X-pct']],
    ['ids []', { ids: [] }, []],
    ['equals STRING', { property: { name: 'name', equals: 'Oil 100% pure_grade' } }, ['X-pct']],
    [
      'equals caseInsensitive',
      { property: { name: 'name', equals: 'oil 100% PURE_GRADE', caseInsensitive: true } },
      ['X-pct'],
    ],
    ['equals case-sensitive misses', { property: { name: 'name', equals: 'oil 100% pure_grade' } }, []],
    [
      'notEquals (missing is true)',
      { property: { name: 'name', notEquals: 'Oil 100% pure_grade' } },
      ['X-absent', 'X-like', 'X-null'],
    ],
    ['equals NUMBER default', { property: { name: 'depth', equals: 1000 } }, ['X-absent', 'X-null']],
    ['equals NUMBER string is no number', { property: { name: 'depth', equals: 1500 } }, ['X-like']],
    ['gt NUMBER guard', { property: { name: 'depth', gt: 1200 } }, ['X-like']],
    ['gte NUMBER', { property: { name: 'depth', gte: 1000 } }, ['X-absent', 'X-like', 'X-null']],
    ['lt NUMBER', { property: { name: 'depth', lt: 1000 } }, []],
    ['lte NUMBER', { property: { name: 'depth', lte: 1000 } }, ['X-absent', 'X-null']],
    ['in INTEGER', { property: { name: 'count', in: [3, 5] } }, ['X-pct']],
    ['notEquals INTEGER', { property: { name: 'count', notEquals: 3 } }, ['X-absent', 'X-like', 'X-null']],
    [
      'not equals INTEGER',
      { not: { property: { name: 'count', equals: 3 } } },
      ['X-absent', 'X-like', 'X-null'],
    ],
    ['exists default', { property: { name: 'depth', exists: true } }, X],
    ['exists false', { property: { name: 'count', exists: false } }, ['X-absent', 'X-null']],
    ['BOOLEAN equals', { property: { name: 'active', equals: false } }, ['X-like']],
    ['BOOLEAN in', { property: { name: 'active', in: [true, false] } }, ['X-like', 'X-pct']],
    [
      'ENUM in caseInsensitive',
      { property: { name: 'status', in: ['PRODUCING'], caseInsensitive: true } },
      ['X-pct'],
    ],
    ['DATE gt', { property: { name: 'spud', gt: '2021-04-30' } }, ['X-pct']],
    ['DATE lt', { property: { name: 'spud', lt: '2021-05-01' } }, []],
    ['DATE lte', { property: { name: 'spud', lte: '2021-05-01' } }, ['X-pct']],
    ['contains escapes % and _', { property: { name: 'name', contains: '100%_p' } }, []],
    ['contains escapes % and _ (hit)', { property: { name: 'name', contains: '100% p' } }, ['X-pct']],
    ['contains _ literally', { property: { name: 'name', contains: '_' } }, ['X-pct']],
    [
      'contains caseInsensitive',
      { property: { name: 'name', contains: 'PURE', caseInsensitive: true } },
      ['X-like', 'X-pct'],
    ],
    ['startsWith', { property: { name: 'name', startsWith: 'Oil 100%' } }, ['X-pct']],
    [
      'startsWith caseInsensitive',
      { property: { name: 'name', startsWith: 'oil', caseInsensitive: true } },
      ['X-like', 'X-pct'],
    ],
    ['JSON equals (order matters in arrays)', { property: { name: 'tags', equals: ['a', 'b'] } }, ['X-pct']],
    ['JSON equals other order', { property: { name: 'tags', equals: ['b', 'a'] } }, []],
    ['JSON contains element', { property: { name: 'tags', contains: 'b' } }, ['X-pct']],
    ['JSON in', { property: { name: 'tags', in: [['a', 'b'], 'x'] } }, ['X-pct']],
    ['modifiedAfter is strict', { modifiedAfter: '2026-06-01T12:00:00.000Z' }, ['X-like']],
    [
      'modifiedBefore is strict',
      { modifiedBefore: new Date('2026-06-01T12:00:00.001Z') },
      ['X-absent', 'X-null', 'X-pct'],
    ],
    ['isDeleted', { isDeleted: true }, ['X-like']],
    ['search words, any case, any order', { search: ' GRADE\toil ' }, ['X-like', 'X-pct']],
    ['search escapes %', { search: '100%' }, ['X-pct']],
    ['search blank', { search: '   ' }, X],
    ['bbox', { geometry: { bbox: [-114, 52, -113, 53] } }, ['X-pct']],
    ["bbox within the vertices' box", { geometry: { bbox: [-99.8, 40.2, -99.5, 40.4] } }, ['X-like']],
    ['bbox touching a vertex', { geometry: { bbox: [-99, 41, -98, 42] } }, ['X-like']],
    ['bbox touching the other vertex', { geometry: { bbox: [-101, 39, -100, 40] } }, ['X-like']],
    ['bbox of a point', { geometry: { bbox: [-113.81, 52.27, -113.81, 52.27] } }, ['X-pct']],
    ['bbox missing a point', { geometry: { bbox: [-113.8, 52.27, -113.7, 52.3] } }, []],
    ['near', { geometry: { near: { longitude: -113.8, latitude: 52.27, distanceMeters: 700 } } }, ['X-pct']],
    ['near too far', { geometry: { near: { longitude: -113.8, latitude: 52.27, distanceMeters: 600 } } }, []],
    [
      'near a vertex, distance 0',
      { geometry: { near: { longitude: -99, latitude: 41, distanceMeters: 0 } } },
      ['X-like'],
    ],
    ['related some {} (same group only)', { related: { relationship: 'facility', some: {} } }, ['X-pct']],
    [
      'related none {}',
      { related: { relationship: 'facility', none: {} } },
      ['X-absent', 'X-like', 'X-null'],
    ],
    ['related PROPERTY_LIST', { related: { relationship: 'partners', some: { ids: ['F-02'] } } }, ['X-pct']],
    [
      'related PROPERTY_LIST ignores g2',
      { related: { relationship: 'partners', some: { ids: ['F-31'] } } },
      [],
    ],
    [
      'related PROPERTY → PROPERTY',
      { related: { relationship: 'siblings', some: { ids: ['X-pct'] } } },
      ['X-pct'],
    ],
  ];
  it.each(cases)('%s', async (label, filter, expected) => {
    expect(await fixtures(filter, label)).toEqual(expected);
  });

  it('related from the target side (ID → PROPERTY and ID → PROPERTY_LIST)', async () => {
    const f01 = await agree(
      'facility',
      { related: { relationship: 'wells', some: { ids: ['X-pct'] } } },
      'wells',
    );
    expect(f01).toEqual(['F-01']);
    const listed = await agree(
      'facility',
      { related: { relationship: 'listedWells', some: { ids: ['X-pct'] } } },
      'listedWells',
    );
    expect(listed).toEqual(['F-02']);
    const kindDefault = await agree(
      'facility',
      { property: { name: 'kind', equals: 'plant' } },
      'kind default',
    );
    expect(kindDefault.length).toBeGreaterThan(0);
    await agree('facility', { related: { relationship: 'wells', none: {} } }, 'no wells');
    await agree(
      'facility',
      {
        related: {
          relationship: 'wells',
          some: { related: { relationship: 'siblings', none: { isDeleted: true } } },
        },
      },
      'nested related',
    );
  });

  it('uses any table alias and binds every value', async () => {
    const filter: AssetFilterInput = {
      or: [
        { property: { name: 'name', equals: "'; drop table assets; --" } },
        { search: "o'brien" },
        { property: { name: 'depth', gt: 1200 } },
        {
          related: {
            relationship: 'facility',
            some: { property: { name: 'region', contains: "x' or '1'='1" } },
          },
        },
      ],
    };
    expect(await sqlIds('well', filter, 'w')).toEqual(await sqlIds('well', filter));
    const compiled = compileFilter(filter, {
      profile: profile('well'),
      profiles: lookup,
      group: "g'1",
    }).compile(database.db);
    expect(compiled.sql).not.toContain('drop table');
    expect(compiled.sql).not.toContain("o'brien");
    expect(compiled.sql).not.toContain("g'1");
    expect(compiled.parameters).toContain("'; drop table assets; --");
    expect(compiled.parameters).toContain("g'1");
  });
});

describe('random filter trees', () => {
  it(`${RANDOM_FILTERS} well filters and ${RANDOM_FACILITY_FILTERS} facility filters agree with the reference`, async () => {
    const r = rng(SEED ^ 0x5eed);
    for (let i = 0; i < RANDOM_FILTERS + RANDOM_FACILITY_FILTERS; i++) {
      const p = profile(i < RANDOM_FILTERS ? 'well' : 'facility');
      const filter = randomFilter(r, p, lookup, pools, 1);
      await agree(p.profile, filter, `random filter #${i}`);
    }
    // The random filters must not be vacuous: most select some rows but not all.
    expect(stats.nonTrivial).toBeGreaterThan((RANDOM_FILTERS + RANDOM_FACILITY_FILTERS) / 3);
  });
});

describe('validateFilter', () => {
  const invalid: [AssetFilterInput, string][] = [
    [
      { property: { name: 'nope', equals: 1 } },
      'filter.property.name: unknown property "nope" on profile "well"',
    ],
    [
      { and: [{}, { property: { name: 'nope', exists: true } }] },
      'filter.and[1].property.name: unknown property "nope"',
    ],
    [
      { property: { name: 'active', gt: true } },
      'filter.property.gt: does not apply to BOOLEAN property "active"',
    ],
    [
      { property: { name: 'depth', contains: '1' } },
      'filter.property.contains: does not apply to NUMBER property',
    ],
    [{ property: { name: 'tags', startsWith: 'a' } }, 'filter.property.startsWith: does not apply to JSON'],
    [
      { property: { name: 'depth', gt: 1, lt: 5 } },
      'filter.property: takes exactly one comparison operator, got gt, lt',
    ],
    [{ property: { name: 'depth' } }, 'filter.property: needs one comparison operator'],
    [
      { property: { name: 'depth', caseInsensitive: true } } as AssetFilterInput,
      'filter.property: needs one',
    ],
    [{ property: { name: 'status', in: [] } }, 'filter.property.in: must not be empty'],
    [{ property: { name: 'depth', equals: '5' } }, 'filter.property.equals: must be a number'],
    [{ property: { name: 'count', in: [1, 'x'] } }, 'filter.property.in[1]: must be a number'],
    [{ property: { name: 'status', equals: 3 } }, 'filter.property.equals: must be a string'],
    [{ property: { name: 'active', equals: 'true' } }, 'filter.property.equals: must be true or false'],
    [
      { property: { name: 'depth', equals: 5, caseInsensitive: true } },
      'filter.property.caseInsensitive: applies only',
    ],
    [
      { property: { name: 'name', gt: 'a', caseInsensitive: true } },
      'filter.property.caseInsensitive: applies only',
    ],
    [{ geometry: { bbox: [1, 2, 3] } }, 'filter.geometry.bbox: must be 4 numbers'],
    [
      { geometry: { bbox: [10, 0, 5, 1] } },
      'filter.geometry.bbox: minLongitude must not exceed maxLongitude',
    ],
    [{ geometry: { bbox: [0, 10, 5, 1] } }, 'filter.geometry.bbox: minLatitude must not exceed maxLatitude'],
    [{ geometry: { bbox: [-200, 0, 5, 1] } }, 'filter.geometry.bbox: longitudes must lie in [-180, 180]'],
    [{ geometry: { bbox: [0, 0, 5, 95] } }, 'filter.geometry.bbox: latitudes must lie in [-90, 90]'],
    [
      { geometry: { near: { longitude: 0, latitude: 0, distanceMeters: -1 } } },
      'filter.geometry.near.distanceMeters: must not be negative',
    ],
    [
      { geometry: { near: { longitude: 0, latitude: 91, distanceMeters: 1 } } },
      'filter.geometry.near.latitude',
    ],
    [{ geometry: {} }, 'filter.geometry: needs bbox or near'],
    [
      { related: { relationship: 'nope', some: {} } },
      'filter.related.relationship: unknown relationship "nope"',
    ],
    [
      { related: { relationship: 'byUwi', some: {} } },
      'filter.related.relationship: relationship "byUwi" takes a PARAMETER and is not usable in filters',
    ],
    [{ related: { relationship: 'facility' } }, 'filter.related: needs some or none'],
    [
      {
        or: [{ related: { relationship: 'facility', some: { property: { name: 'depth', exists: true } } } }],
      },
      'filter.or[0].related.some.property.name: unknown property "depth" on profile "facility"',
    ],
    [{ modifiedAfter: 'yesterday' }, 'filter.modifiedAfter: must be an ISO 8601 date-time'],
    [{ foo: 1 } as unknown as AssetFilterInput, 'filter.foo: is not an AssetFilter field'],
    [
      { not: { property: { name: 'depth', equal: 1 } } } as unknown as AssetFilterInput,
      'filter.not.property.equal: is not',
    ],
  ];
  it.each(invalid)('rejects %j', (filter, message) => {
    const result = validateFilter(filter, profile('well'), lookup);
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.message).toContain(message);
    expect(() => compileFilter(filter, { profile: profile('well'), profiles: lookup, group: 'g1' })).toThrow(
      FilterError,
    );
  });

  const nest = (levels: number): AssetFilterInput => (levels === 0 ? {} : { not: nest(levels - 1) });
  it('limits nesting to 8 levels', () => {
    expect(validateFilter(nest(7), profile('well'), lookup)).toEqual({ ok: true });
    expect(validateFilter(nest(8), profile('well'), lookup)).toEqual({
      ok: false,
      message: `filter${'.not'.repeat(8)}: filters may nest at most 8 levels deep`,
    });
    const related = {
      related: { relationship: 'facility', some: { related: { relationship: 'wells', some: nest(7) } } },
    };
    expect(validateFilter(related, profile('well'), lookup).ok).toBe(false);
  });

  it('limits a filter to 200 nodes', () => {
    const wide = (n: number): AssetFilterInput => ({ or: Array.from({ length: n }, () => ({})) });
    expect(validateFilter(wide(198), profile('well'), lookup)).toEqual({ ok: true });
    const result = validateFilter(wide(199), profile('well'), lookup);
    expect(result).toEqual({ ok: false, message: 'filter.or[198]: the filter has more than 200 nodes' });
  });

  it('accepts the examples of docs/schema.md §5', () => {
    const examples: [string, AssetFilterInput][] = [
      [
        'well',
        {
          isDeleted: false,
          and: [
            { property: { name: 'status', equals: 'producing' } },
            { property: { name: 'depth', gt: 2000 } },
          ],
        },
      ],
      [
        'facility',
        { geometry: { bbox: [-114.5, 51.5, -113.0, 53.0] }, related: { relationship: 'wells', none: {} } },
      ],
      [
        'well',
        {
          or: [
            { ids: ['W-100-1-1', 'W-100-1-2'] },
            {
              geometry: { near: { longitude: -113.81, latitude: 52.27, distanceMeters: 5000 } },
              modifiedAfter: '2026-11-01T00:00:00Z',
              not: { property: { name: 'status', in: ['SHUT-IN', 'ABANDONED'], caseInsensitive: true } },
            },
          ],
        },
      ],
    ];
    for (const [p, filter] of examples)
      expect(validateFilter(filter, profile(p), lookup)).toEqual({ ok: true });
  });

  it('treats null fields as absent', () => {
    expect(validateFilter(null, profile('well'), lookup)).toEqual({ ok: true });
    expect(
      validateFilter(
        { and: null, property: { name: 'depth', equals: null, gt: 3 } },
        profile('well'),
        lookup,
      ),
    ).toEqual({ ok: true });
  });
});

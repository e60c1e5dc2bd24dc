// The SQL compiler and the reference evaluator must agree on every filter: the data here and the
// random filters of random.ts come from a seeded PRNG.
import type { ProfileDocument } from '../../../src/subgraphs/assets/profiles/definition.ts';

// The SQL compiler and the reference evaluator must agree on every filter. The data and the
// random filters come from a seeded PRNG: FILTER_SEED=<n> replays a run; FILTER_TIMING=1
// logs every filter that takes over 100 ms.
export const SEED = Number(process.env.FILTER_SEED ?? 20261122);
export const RANDOM_FILTERS = 300;
export const RANDOM_FACILITY_FILTERS = 60;

// ------------------------------------------------------------------------------------------
// PRNG (mulberry32)

export interface Rng {
  next(): number;
  int(min: number, max: number): number;
  pick<T>(xs: readonly T[]): T;
  chance(p: number): boolean;
}

export function rng(seed: number): Rng {
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

export const wellDocument: ProfileDocument = {
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

export const facilityDocument: ProfileDocument = {
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

export interface NewAsset {
  user_group: string;
  profile: string;
  id: string;
  properties: Record<string, unknown>;
  geometry: Record<string, unknown> | null;
  display_name: string;
  is_deleted: boolean;
  modified_at: Date;
}

export const NAME_WORDS = [
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
  'say "hi"',
  'line\nbreak',
  '%',
  '_',
  'Battery',
];
export const STATUSES = ['producing', 'Producing', 'SHUT-IN', 'shut-in', 'abandoned', 'Drilling'];
export const TAG_VALUES: unknown[] = [
  ['a', 'b'],
  ['b'],
  [],
  ['a', 1],
  { k: 'a' },
  'a',
  5,
  true,
  ['A'],
  [['a']],
];
export const FACILITY_IDS = Array.from({ length: 30 }, (_, i) => `F-${String(i + 1).padStart(2, '0')}`);
export const G2_ONLY_FACILITIES = ['F-31', 'F-32', 'F-33'];
export const T0 = Date.parse('2025-01-01T00:00:00Z');
export const T1 = Date.parse('2026-12-31T00:00:00Z');

/** A value that is sometimes absent (undefined) or JSON null. */
export function maybe(r: Rng, make: () => unknown, missing = 0.12, nulls = 0.05): unknown {
  const x = r.next();
  if (x < missing) return undefined;
  if (x < missing + nulls) return null;
  return make();
}

export function coord(r: Rng): [number, number] {
  return [Math.round((-120 + r.next() * 10) * 1e5) / 1e5, Math.round((49 + r.next() * 7) * 1e5) / 1e5];
}

export function geometry(r: Rng): Record<string, unknown> | null {
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

export function compact(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

export function wellProperties(r: Rng): Record<string, unknown> {
  return compact({
    name: maybe(r, () =>
      r.chance(0.04)
        ? 42
        : Array.from({ length: r.int(1, 3) }, () => r.pick(NAME_WORDS)).join(' ') +
          (r.chance(0.5) ? ` ${r.int(1, 99)}` : ''),
    ),
    status: maybe(r, () => (r.chance(0.05) ? [r.pick(STATUSES)] : r.pick(STATUSES))),
    depth: maybe(
      r,
      () => {
        const x = r.next();
        if (x < 0.06) return r.pick(['1500', 'deep', '1000']);
        // An array or an object is incomparable too (a lax jsonpath would look inside).
        if (x < 0.08) return r.pick([[2000], [1000, 4000], { depth: 3000 }]);
        if (x < 0.12) return 1000;
        if (x < 0.5) return r.int(500, 5000);
        return Math.round((500 + r.next() * 4500) * 100) / 100;
      },
      0.15,
    ),
    count: maybe(r, () => (r.chance(0.04) ? '7' : r.chance(0.04) ? [r.int(0, 20)] : r.int(0, 20)), 0.15),
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

export function facilityProperties(r: Rng): Record<string, unknown> {
  return compact({
    name: maybe(r, () => `${r.pick(['Red', 'deer', 'Plant', 'Gas'])} ${r.pick(['North', 'south', '10%'])}`),
    kind: maybe(r, () => r.pick(['plant', 'battery', 'Compressor'])),
    capacity: maybe(r, () => r.int(0, 100) * 10),
    region: maybe(r, () => r.pick(['AB', 'BC', 'sk'])),
  });
}

export function asset(
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
export const FIXTURES: NewAsset[] = [
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

import type { AssetFilterInput } from '../../../src/subgraphs/assets/filters/types.ts';
import type { EffectiveProfile } from '../../../src/subgraphs/assets/profiles/definition.ts';
import { coord, type Rng, T0, T1 } from './data.ts';

export interface Pools {
  ids: Map<string, string[]>;
  values: Map<string, unknown[]>;
  names: string[];
  vertices: [number, number][];
  times: Date[];
}

export function randomCase(r: Rng, s: string): string {
  return [...s]
    .map((c) => (r.chance(0.3) ? (r.chance(0.5) ? c.toUpperCase() : c.toLowerCase()) : c))
    .join('');
}

export function substring(r: Rng, s: string): string {
  const a = r.int(0, s.length);
  return s.slice(a, r.int(a, Math.min(s.length, a + 6)));
}

export function randomPredicate(r: Rng, profile: EffectiveProfile, pools: Pools): Record<string, unknown> {
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

export function randomGeometry(r: Rng, pools: Pools): Record<string, unknown> {
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

export function randomFilter(
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

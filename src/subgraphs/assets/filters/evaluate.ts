/**
 * A reference evaluator for AssetFilter, in plain TypeScript, written from the semantics in
 * the header of compile.ts (not from its SQL). Tests compare it with the compiled SQL; it can
 * also filter assets already in memory. It expects a filter that `validateFilter` accepted.
 */
import type { EffectiveProfile, RelationshipDefinition } from '../profiles/definition.ts';
import type {
  AssetFilterInput,
  AssetGeometryPredicateInput,
  AssetPropertyPredicateInput,
  AssetRelatedPredicateInput,
  ProfileLookup,
} from './types.ts';

/** The columns of an `assets` row that filters read. */
export interface AssetRecord {
  id: string;
  properties: Record<string, unknown>;
  geometry: Record<string, unknown> | null;
  display_name: string;
  is_deleted: boolean;
  modified_at: Date;
}

export interface EvaluateContext {
  profile: EffectiveProfile;
  profiles: ProfileLookup;
  /** The assets of a profile in the same group as the asset evaluated. */
  assetsOf: (profile: string) => readonly AssetRecord[];
}

const EARTH_RADIUS = 6371008.8;

export function evaluateFilter(
  filter: AssetFilterInput | null | undefined,
  asset: AssetRecord,
  ctx: EvaluateContext,
): boolean {
  if (filter === null || filter === undefined) return true;
  return matches(filter, asset, ctx.profile, ctx);
}

const isSet = <T>(v: T | null | undefined): v is T => v !== null && v !== undefined;

function matches(
  f: AssetFilterInput,
  asset: AssetRecord,
  profile: EffectiveProfile,
  ctx: EvaluateContext,
): boolean {
  if (isSet(f.and) && !f.and.every((g) => matches(g, asset, profile, ctx))) return false;
  if (isSet(f.or) && !f.or.some((g) => matches(g, asset, profile, ctx))) return false;
  if (isSet(f.not) && matches(f.not, asset, profile, ctx)) return false;
  if (isSet(f.ids) && !f.ids.includes(asset.id)) return false;
  if (isSet(f.property) && !propertyHolds(f.property, asset, profile)) return false;
  if (isSet(f.modifiedAfter) && !(asset.modified_at.getTime() > new Date(f.modifiedAfter).getTime()))
    return false;
  if (isSet(f.modifiedBefore) && !(asset.modified_at.getTime() < new Date(f.modifiedBefore).getTime()))
    return false;
  if (isSet(f.search)) {
    const name = asciiLower(asset.display_name);
    for (const word of f.search.split(/\s+/)) if (word && !name.includes(asciiLower(word))) return false;
  }
  if (isSet(f.isDeleted) && asset.is_deleted !== f.isDeleted) return false;
  if (isSet(f.geometry) && !geometryHolds(f.geometry, asset.geometry)) return false;
  if (isSet(f.related) && !relatedHolds(f.related, asset, profile, ctx)) return false;
  return true;
}

// ------------------------------------------------------------------------------------------
// Properties

/** What `Asset.properties` shows for `name`: the stored value, else the default; undefined when neither. */
function shownValue(asset: AssetRecord, profile: EffectiveProfile, name: string): unknown {
  const stored = asset.properties[name];
  if (stored !== undefined && stored !== null) return stored;
  for (const def of profile.properties)
    if (def.name === name && def.default !== undefined && def.default !== null) return def.default;
  return undefined;
}

/** Only A-Z change: the case folding that is the same on every database server. */
function asciiLower(s: string): string {
  return s.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
}

/** Orders strings by Unicode code point (as UTF-8 bytes do). */
function codePointCompare(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i]!.codePointAt(0)! - y[i]!.codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

/** JSON equality: arrays in order, objects by key regardless of order. */
function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null) {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    return ka.every(
      (k) =>
        Object.hasOwn(b, k) &&
        jsonEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]),
    );
  }
  return false;
}

function propertyHolds(
  p: AssetPropertyPredicateInput,
  asset: AssetRecord,
  profile: EffectiveProfile,
): boolean {
  const def = profile.properties.find((d) => d.name === p.name);
  if (!def) throw new Error(`unknown property ${p.name}`);
  const value = shownValue(asset, profile, p.name);
  if (isSet(p.exists)) return (value !== undefined) === p.exists;

  switch (def.type) {
    case 'NUMBER':
    case 'INTEGER': {
      const n = typeof value === 'number' ? value : undefined;
      const eq = (x: unknown) => n !== undefined && n === x;
      if (isSet(p.equals)) return eq(p.equals);
      if (isSet(p.notEquals)) return !eq(p.notEquals);
      if (isSet(p.in)) return p.in.some(eq);
      if (n === undefined) return false;
      if (isSet(p.gt)) return n > (p.gt as number);
      if (isSet(p.gte)) return n >= (p.gte as number);
      if (isSet(p.lt)) return n < (p.lt as number);
      if (isSet(p.lte)) return n <= (p.lte as number);
      break;
    }
    case 'STRING':
    case 'ENUM':
    case 'DATE':
    case 'DATE_TIME': {
      const s = typeof value === 'string' ? value : undefined;
      const fold = p.caseInsensitive === true ? asciiLower : (x: string) => x;
      const eq = (x: unknown) => s !== undefined && fold(s) === fold(x as string);
      if (isSet(p.equals)) return eq(p.equals);
      if (isSet(p.notEquals)) return !eq(p.notEquals);
      if (isSet(p.in)) return p.in.some(eq);
      if (s === undefined) return false;
      if (isSet(p.gt)) return codePointCompare(s, p.gt as string) > 0;
      if (isSet(p.gte)) return codePointCompare(s, p.gte as string) >= 0;
      if (isSet(p.lt)) return codePointCompare(s, p.lt as string) < 0;
      if (isSet(p.lte)) return codePointCompare(s, p.lte as string) <= 0;
      if (isSet(p.contains)) return fold(s).includes(fold(p.contains));
      if (isSet(p.startsWith)) return fold(s).startsWith(fold(p.startsWith));
      break;
    }
    case 'BOOLEAN':
    case 'JSON': {
      const eq = (x: unknown) => value !== undefined && jsonEqual(value, x);
      if (isSet(p.equals)) return eq(p.equals);
      if (isSet(p.notEquals)) return !eq(p.notEquals);
      if (isSet(p.in)) return p.in.some(eq);
      if (isSet(p.contains)) return Array.isArray(value) && value.some((e) => e === p.contains);
      break;
    }
  }
  throw new Error(`no operator applies in ${JSON.stringify(p)}`);
}

// ------------------------------------------------------------------------------------------
// Geometry

/** Every array whose first two elements are numbers, anywhere under a `coordinates` member. */
function vertices(geometry: unknown): [number, number][] {
  const out: [number, number][] = [];
  const collect = (node: unknown): void => {
    if (Array.isArray(node)) {
      if (typeof node[0] === 'number' && typeof node[1] === 'number') out.push([node[0], node[1]]);
      for (const x of node) collect(x);
    } else if (typeof node === 'object' && node !== null) {
      for (const x of Object.values(node)) collect(x);
    }
  };
  const findCoordinates = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const x of node) findCoordinates(x);
    } else if (typeof node === 'object' && node !== null) {
      if (Object.hasOwn(node, 'coordinates')) collect((node as Record<string, unknown>).coordinates);
      for (const x of Object.values(node)) findCoordinates(x);
    }
  };
  findCoordinates(geometry);
  return out;
}

/** Great-circle distance in metres from (lon0, lat0) to (lon, lat). */
function haversine(lon0: number, lat0: number, lon: number, lat: number): number {
  const rad = (deg: number) => deg * (Math.PI / 180);
  const [l0, p0, l, p] = [rad(lon0), rad(lat0), rad(lon), rad(lat)];
  const h = Math.sin((p - p0) / 2) ** 2 + Math.cos(p0) * Math.cos(p) * Math.sin((l - l0) / 2) ** 2;
  return 2 * EARTH_RADIUS * Math.asin(Math.sqrt(Math.min(1, h)));
}

function geometryHolds(g: AssetGeometryPredicateInput, geometry: Record<string, unknown> | null): boolean {
  const points = geometry ? vertices(geometry) : [];
  if (points.length === 0) return false;
  if (isSet(g.bbox)) {
    const [minLon, minLat, maxLon, maxLat] = g.bbox as [number, number, number, number];
    const lons = points.map((p) => p[0]);
    const lats = points.map((p) => p[1]);
    const intersects =
      Math.min(...lons) <= maxLon &&
      Math.max(...lons) >= minLon &&
      Math.min(...lats) <= maxLat &&
      Math.max(...lats) >= minLat;
    if (!intersects) return false;
  }
  if (isSet(g.near)) {
    const { longitude, latitude, distanceMeters } = g.near;
    if (!points.some(([lon, lat]) => haversine(longitude, latitude, lon, lat) <= distanceMeters))
      return false;
  }
  return true;
}

// ------------------------------------------------------------------------------------------
// Relationships

/** Key strings of a value: itself if a string; for a list, its string elements. */
function keyStrings(value: unknown, list: boolean): string[] {
  if (!list) return typeof value === 'string' ? [value] : [];
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

function relatedAssets(
  rel: RelationshipDefinition,
  asset: AssetRecord,
  profile: EffectiveProfile,
  target: EffectiveProfile,
  ctx: EvaluateContext,
): AssetRecord[] {
  const keys = new Set(
    rel.referenceType === 'ID'
      ? [asset.id]
      : keyStrings(shownValue(asset, profile, rel.referenceProperty!), rel.referenceType === 'PROPERTY_LIST'),
  );
  return ctx.assetsOf(rel.profile).filter((b) => {
    const candidates =
      rel.lookupType === 'ID'
        ? [b.id]
        : keyStrings(shownValue(b, target, rel.lookupProperty!), rel.lookupType === 'PROPERTY_LIST');
    return candidates.some((k) => keys.has(k));
  });
}

function relatedHolds(
  r: AssetRelatedPredicateInput,
  asset: AssetRecord,
  profile: EffectiveProfile,
  ctx: EvaluateContext,
): boolean {
  const rel = profile.relationships.find((x) => x.relationship === r.relationship);
  const target = rel ? ctx.profiles(rel.profile) : null;
  if (!rel || !target) throw new Error(`unusable relationship ${r.relationship}`);
  const related = relatedAssets(rel, asset, profile, target, ctx);
  if (isSet(r.some) && !related.some((b) => matches(r.some!, b, target, ctx))) return false;
  if (isSet(r.none) && related.some((b) => matches(r.none!, b, target, ctx))) return false;
  return true;
}

import { fail as failure, ok, type Result } from '../../../shared/result.ts';
import type { EffectiveProfile, PropertyDefinition, RelationshipDefinition } from '../profiles/definition.ts';
import {
  type AssetFilterInput,
  FILTER_YEARS,
  MAX_FILTER_DEPTH,
  MAX_FILTER_NODES,
  MAX_FILTER_STRING_LENGTH,
  MAX_SEARCH_WORDS,
  OPERATORS,
  type Operator,
  type ProfileLookup,
} from './types.ts';

/** Nothing, or `INVALID_FILTER` with a message that starts with the offending path. */
export type FilterValidation = Result<void, 'INVALID_FILTER'>;

type PropertyType = PropertyDefinition['type'];

const TEXT_TYPES: ReadonlySet<PropertyType> = new Set(['STRING', 'ENUM', 'DATE', 'DATE_TIME']);

/** Which operators each property type accepts (docs in compile.ts). */
const OPERATORS_BY_TYPE: Record<PropertyType, ReadonlySet<Operator>> = {
  NUMBER: new Set(['equals', 'notEquals', 'in', 'gt', 'gte', 'lt', 'lte', 'exists']),
  INTEGER: new Set(['equals', 'notEquals', 'in', 'gt', 'gte', 'lt', 'lte', 'exists']),
  STRING: new Set(OPERATORS),
  ENUM: new Set(OPERATORS),
  DATE: new Set(OPERATORS),
  DATE_TIME: new Set(OPERATORS),
  BOOLEAN: new Set(['equals', 'notEquals', 'in', 'exists']),
  JSON: new Set(['equals', 'notEquals', 'in', 'contains', 'exists']),
};

/** Operators that `caseInsensitive: true` changes. */
const CASE_OPERATORS: ReadonlySet<Operator> = new Set([
  'equals',
  'notEquals',
  'in',
  'contains',
  'startsWith',
]);

const FILTER_FIELDS = new Set([
  'and',
  'or',
  'not',
  'ids',
  'property',
  'modifiedAfter',
  'modifiedBefore',
  'search',
  'isDeleted',
  'geometry',
  'related',
]);
const PREDICATE_FIELDS = new Set<string>(['name', 'caseInsensitive', ...OPERATORS]);

class Invalid extends Error {}

/**
 * Checks that `filter` fits `profile` before it is compiled or evaluated: known fields,
 * properties and relationships; operators that suit the property's type with operands of the
 * right JSON type; exactly one operator per property predicate; non-empty `in`; a valid bbox
 * and `near`; at most {@link MAX_FILTER_DEPTH} levels and {@link MAX_FILTER_NODES} nodes (list
 * items and search words included), at most {@link MAX_SEARCH_WORDS} search words, strings of
 * at most {@link MAX_FILTER_STRING_LENGTH} characters without NUL, dates within
 * {@link FILTER_YEARS}. Whatever passes compiles to SQL the database accepts, so bad input is
 * always this client error, never a database failure.
 * The message starts with the offending path, e.g. `filter.and[1].property.name: …`.
 */
export function validateFilter(
  filter: AssetFilterInput | null | undefined,
  profile: EffectiveProfile,
  profiles: ProfileLookup,
): FilterValidation {
  if (filter === null || filter === undefined) return ok(undefined);
  const nodes = { count: 0 };
  try {
    checkFilter(filter, profile, profiles, 'filter', 1, nodes);
    return ok(undefined);
  } catch (e) {
    if (e instanceof Invalid) return failure('INVALID_FILTER', e.message);
    throw e;
  }
}

function fail(path: string, reason: string): never {
  throw new Invalid(`${path}: ${reason}`);
}

const given = (v: unknown) => v !== undefined && v !== null;
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

function countNode(nodes: { count: number }, path: string, n = 1) {
  nodes.count += n;
  if (nodes.count > MAX_FILTER_NODES) fail(path, `the filter has more than ${MAX_FILTER_NODES} nodes`);
}

/**
 * A string the database takes as text: bounded, without U+0000, which PostgreSQL's text and
 * jsonb cannot hold, and without a lone surrogate, whose JSON escape jsonb refuses (either would
 * otherwise fail the query as a server error).
 */
function checkString(v: string, path: string): void {
  if (v.length > MAX_FILTER_STRING_LENGTH)
    fail(path, `must have at most ${MAX_FILTER_STRING_LENGTH} characters`);
  if (v.includes('\u0000')) fail(path, 'must not contain the NUL character (U+0000)');
  if (!v.isWellFormed()) fail(path, 'must be well-formed Unicode (no lone surrogate)');
}

/** The words `search` matches, as compile.ts and evaluate.ts split them. */
export function searchWords(search: string): string[] {
  return search.split(/\s+/).filter((w) => w !== '');
}

/** An ISO 8601 date-time within {@link FILTER_YEARS}. */
function checkInstant(value: unknown, path: string): void {
  if (!(value instanceof Date || typeof value === 'string')) fail(path, 'must be an ISO 8601 date-time');
  if (typeof value === 'string') checkString(value, path);
  const at = new Date(value);
  if (Number.isNaN(at.getTime())) fail(path, 'must be an ISO 8601 date-time');
  const year = at.getUTCFullYear();
  if (year < FILTER_YEARS.min || year > FILTER_YEARS.max)
    fail(path, `must lie within the years ${FILTER_YEARS.min} to ${FILTER_YEARS.max}`);
}

function checkFilter(
  filter: unknown,
  profile: EffectiveProfile,
  profiles: ProfileLookup,
  path: string,
  depth: number,
  nodes: { count: number },
): void {
  if (depth > MAX_FILTER_DEPTH) fail(path, `filters may nest at most ${MAX_FILTER_DEPTH} levels deep`);
  if (!isObject(filter)) fail(path, 'must be an AssetFilter object');
  countNode(nodes, path);
  for (const [key, value] of Object.entries(filter)) {
    if (!FILTER_FIELDS.has(key)) fail(`${path}.${key}`, 'is not an AssetFilter field');
    if (!given(value)) continue;
    const at = `${path}.${key}`;
    countNode(nodes, at);
    switch (key) {
      case 'and':
      case 'or':
        if (!Array.isArray(value)) fail(at, 'must be a list of filters');
        value.forEach((f, i) => {
          checkFilter(f, profile, profiles, `${at}[${i}]`, depth + 1, nodes);
        });
        break;
      case 'not':
        checkFilter(value, profile, profiles, at, depth + 1, nodes);
        break;
      case 'ids':
        if (!Array.isArray(value)) fail(at, 'must be a list of ids');
        countNode(nodes, at, value.length);
        value.forEach((id, i) => {
          if (typeof id !== 'string') fail(`${at}[${i}]`, 'must be an id');
          checkString(id, `${at}[${i}]`);
        });
        break;
      case 'modifiedAfter':
      case 'modifiedBefore':
        checkInstant(value, at);
        break;
      case 'search': {
        if (typeof value !== 'string') fail(at, 'must be a string');
        checkString(value, at);
        const words = searchWords(value).length;
        if (words > MAX_SEARCH_WORDS) fail(at, `may have at most ${MAX_SEARCH_WORDS} words, got ${words}`);
        countNode(nodes, at, words);
        break;
      }
      case 'isDeleted':
        if (typeof value !== 'boolean') fail(at, 'must be true or false');
        break;
      case 'property':
        checkProperty(value, profile, at, nodes);
        break;
      case 'geometry':
        checkGeometry(value, at, nodes);
        break;
      case 'related':
        checkRelated(value, profile, profiles, at, depth, nodes);
        break;
    }
  }
}

/** The type and effective default of a property: the first definition's type, the first non-null default. */
export function propertyInfo(
  profile: EffectiveProfile,
  name: string,
): { type: PropertyType; default: unknown } | null {
  const defs = profile.properties.filter((p) => p.name === name);
  if (defs.length === 0) return null;
  const withDefault = defs.find((d) => d.default !== undefined && d.default !== null);
  return { type: defs[0]!.type, default: withDefault?.default };
}

function checkProperty(
  value: unknown,
  profile: EffectiveProfile,
  path: string,
  nodes: { count: number },
): void {
  if (!isObject(value)) fail(path, 'must be an AssetPropertyPredicate object');
  for (const key of Object.keys(value))
    if (!PREDICATE_FIELDS.has(key)) fail(`${path}.${key}`, 'is not an AssetPropertyPredicate field');
  const name = value.name;
  if (typeof name !== 'string') fail(`${path}.name`, 'must be a property name');
  checkString(name, `${path}.name`);
  const info = propertyInfo(profile, name);
  if (!info) fail(`${path}.name`, `unknown property "${name}" on profile "${profile.profile}"`);
  const ops = OPERATORS.filter((op) => given(value[op]));
  if (ops.length !== 1)
    fail(
      path,
      ops.length === 0
        ? 'needs one comparison operator'
        : `takes exactly one comparison operator, got ${ops.join(', ')}`,
    );
  const op = ops[0]!;
  const at = `${path}.${op}`;
  if (!OPERATORS_BY_TYPE[info.type].has(op)) fail(at, `does not apply to ${info.type} property "${name}"`);
  const operand = value[op];
  const ci = value.caseInsensitive;
  if (given(ci)) {
    if (typeof ci !== 'boolean') fail(`${path}.caseInsensitive`, 'must be true or false');
    if (ci && !(TEXT_TYPES.has(info.type) && CASE_OPERATORS.has(op)))
      fail(
        `${path}.caseInsensitive`,
        'applies only to equals, notEquals, in, contains and startsWith on STRING, ENUM, DATE and DATE_TIME properties',
      );
  }
  if (op === 'exists') {
    if (typeof operand !== 'boolean') fail(at, 'must be true or false');
    return;
  }
  if (op === 'contains' || op === 'startsWith') {
    if (typeof operand !== 'string') fail(at, 'must be a string');
    checkString(operand, at);
    return;
  }
  const check = (v: unknown, where: string) => checkOperand(info.type, v, where, nodes);
  if (op === 'in') {
    if (!Array.isArray(operand)) fail(at, 'must be a list');
    if (operand.length === 0) fail(at, 'must not be empty');
    countNode(nodes, at, operand.length);
    operand.forEach((v, i) => {
      check(v, `${at}[${i}]`);
    });
  } else {
    check(operand, at);
  }
}

function checkOperand(type: PropertyType, v: unknown, path: string, nodes: { count: number }): void {
  switch (type) {
    case 'NUMBER':
    case 'INTEGER':
      if (!isFiniteNumber(v)) fail(path, `must be a number for a ${type} property`);
      return;
    case 'BOOLEAN':
      if (typeof v !== 'boolean') fail(path, 'must be true or false for a BOOLEAN property');
      return;
    case 'JSON':
      if (v === null || v === undefined) fail(path, 'must not be null');
      checkJsonValue(v, path, nodes);
      return;
    default:
      if (typeof v !== 'string') fail(path, `must be a string for a ${type} property`);
      checkString(v, path);
  }
}

/**
 * A JSON value whose every part counts as a node and whose every string (keys too) passes
 * {@link checkString}. Iterative: the node limit bounds the walk, whatever the nesting.
 */
function checkJsonValue(root: unknown, path: string, nodes: { count: number }): void {
  const stack: unknown[] = [root];
  while (stack.length) {
    const v = stack.pop();
    if (v === null || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) fail(path, 'must be a JSON value');
      continue;
    }
    if (typeof v === 'string') {
      checkString(v, path);
      continue;
    }
    let children: unknown[];
    if (Array.isArray(v)) children = v;
    else {
      const proto = isObject(v) ? Object.getPrototypeOf(v) : undefined;
      if (!isObject(v) || (proto !== Object.prototype && proto !== null)) fail(path, 'must be a JSON value');
      for (const key of Object.keys(v)) checkString(key, path);
      children = Object.values(v);
    }
    countNode(nodes, path, children.length);
    stack.push(...children);
  }
}

function checkGeometry(value: unknown, path: string, nodes: { count: number }): void {
  if (!isObject(value)) fail(path, 'must be an AssetGeometryPredicate object');
  for (const key of Object.keys(value))
    if (key !== 'bbox' && key !== 'near') fail(`${path}.${key}`, 'is not an AssetGeometryPredicate field');
  const { bbox, near } = value;
  if (!given(bbox) && !given(near)) fail(path, 'needs bbox or near');
  if (given(bbox)) {
    const at = `${path}.bbox`;
    if (!Array.isArray(bbox) || bbox.length !== 4 || !bbox.every(isFiniteNumber))
      fail(at, 'must be 4 numbers [minLongitude, minLatitude, maxLongitude, maxLatitude]');
    countNode(nodes, at, 4);
    const [minLon, minLat, maxLon, maxLat] = bbox as [number, number, number, number];
    if (minLon < -180 || maxLon > 180) fail(at, 'longitudes must lie in [-180, 180]');
    if (minLat < -90 || maxLat > 90) fail(at, 'latitudes must lie in [-90, 90]');
    if (minLon > maxLon) fail(at, 'minLongitude must not exceed maxLongitude');
    if (minLat > maxLat) fail(at, 'minLatitude must not exceed maxLatitude');
  }
  if (given(near)) {
    const at = `${path}.near`;
    if (!isObject(near)) fail(at, 'must be an AssetGeometryNear object');
    for (const key of Object.keys(near))
      if (key !== 'longitude' && key !== 'latitude' && key !== 'distanceMeters')
        fail(`${at}.${key}`, 'is not an AssetGeometryNear field');
    const { longitude, latitude, distanceMeters } = near;
    if (!isFiniteNumber(longitude) || longitude < -180 || longitude > 180)
      fail(`${at}.longitude`, 'must be a number in [-180, 180]');
    if (!isFiniteNumber(latitude) || latitude < -90 || latitude > 90)
      fail(`${at}.latitude`, 'must be a number in [-90, 90]');
    if (!isFiniteNumber(distanceMeters)) fail(`${at}.distanceMeters`, 'must be a number');
    if (distanceMeters < 0) fail(`${at}.distanceMeters`, 'must not be negative');
  }
}

/** The relationship and its target profile, or the reason the relationship cannot be used in a filter. */
export function filterRelationship(
  profile: EffectiveProfile,
  profiles: ProfileLookup,
  name: string,
): { relationship: RelationshipDefinition; target: EffectiveProfile } | { error: string } {
  const relationship = profile.relationships.find((r) => r.relationship === name);
  if (!relationship) return { error: `unknown relationship "${name}" on profile "${profile.profile}"` };
  if (relationship.referenceType === 'PARAMETER' || relationship.lookupType === 'PARAMETER')
    return { error: `relationship "${name}" takes a PARAMETER and is not usable in filters` };
  if (relationship.referenceType !== 'ID' && !relationship.referenceProperty)
    return { error: `relationship "${name}" has no referenceProperty` };
  if (relationship.lookupType !== 'ID' && !relationship.lookupProperty)
    return { error: `relationship "${name}" has no lookupProperty` };
  const target = profiles(relationship.profile);
  if (!target)
    return { error: `the target profile "${relationship.profile}" of relationship "${name}" does not exist` };
  return { relationship, target };
}

function checkRelated(
  value: unknown,
  profile: EffectiveProfile,
  profiles: ProfileLookup,
  path: string,
  depth: number,
  nodes: { count: number },
): void {
  if (!isObject(value)) fail(path, 'must be an AssetRelatedPredicate object');
  for (const key of Object.keys(value))
    if (key !== 'relationship' && key !== 'some' && key !== 'none')
      fail(`${path}.${key}`, 'is not an AssetRelatedPredicate field');
  if (typeof value.relationship !== 'string') fail(`${path}.relationship`, 'must be a relationship name');
  checkString(value.relationship, `${path}.relationship`);
  const found = filterRelationship(profile, profiles, value.relationship);
  if ('error' in found) fail(`${path}.relationship`, found.error);
  if (!given(value.some) && !given(value.none)) fail(path, 'needs some or none');
  if (given(value.some)) checkFilter(value.some, found.target, profiles, `${path}.some`, depth + 1, nodes);
  if (given(value.none)) checkFilter(value.none, found.target, profiles, `${path}.none`, depth + 1, nodes);
}

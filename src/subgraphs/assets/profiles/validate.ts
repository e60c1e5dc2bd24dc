import { type Failure, fail } from '../../../shared/result.ts';
import type { AssetErrorType } from '../error-codes.ts';
import type {
  EffectiveProfile,
  ExtensionDocument,
  ProfileDocument,
  PropertyDefinition,
  RelationshipDefinition,
} from './definition.ts';
import { parseTemplate, TemplateError, templateProperties } from './display-name.ts';

/** Why a profile is refused: the first problem found (checks return it, or null when none). */
export type ProfileProblem = Failure<AssetErrorType>;

const PROFILE_ID = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const PROPERTY_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,127}$/;
const TYPES = new Set(['STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'DATE', 'DATE_TIME', 'ENUM', 'JSON']);
const REFERENCE_TYPES = new Set(['ID', 'PROPERTY', 'PROPERTY_LIST', 'PARAMETER']);
const LOOKUP_TYPES = new Set(['ID', 'PROPERTY', 'PROPERTY_LIST']);

/** Whether `value` fits a property of `def`'s type (used for defaults). */
export function valueFits(def: Pick<PropertyDefinition, 'type' | 'enumValues'>, value: unknown): boolean {
  switch (def.type) {
    case 'STRING':
      return typeof value === 'string';
    case 'NUMBER':
      return typeof value === 'number' && Number.isFinite(value);
    case 'INTEGER':
      return Number.isInteger(value);
    case 'BOOLEAN':
      return typeof value === 'boolean';
    case 'DATE':
      return (
        typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value))
      );
    case 'DATE_TIME':
      return (
        typeof value === 'string' &&
        /^\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}:\d{2})$/.test(value) &&
        !Number.isNaN(Date.parse(value))
      );
    case 'ENUM':
      return typeof value === 'string' && (def.enumValues ?? []).includes(value);
    case 'JSON':
      return true;
  }
}

function checkProperties(defs: readonly PropertyDefinition[], where: string): ProfileProblem | null {
  const seen = new Set<string>();
  for (const [i, d] of defs.entries()) {
    const at = `${where}.properties[${i}]`;
    if (typeof d?.name !== 'string' || !PROPERTY_NAME.test(d.name) || d.name === 'id') {
      return fail('INVALID_INPUT', `${at}.name must be a property name other than "id".`);
    }
    if (seen.has(d.name)) return fail('INVALID_INPUT', `Property ${d.name} is defined twice.`);
    seen.add(d.name);
    if (!TYPES.has(d.type))
      return fail('INVALID_INPUT', `${at}.type ${String(d.type)} is not a property type.`);
    if (d.type === 'ENUM' && (!Array.isArray(d.enumValues) || d.enumValues.length === 0)) {
      return fail('INVALID_INPUT', `ENUM property ${d.name} needs enumValues.`);
    }
    if (d.default !== undefined && d.default !== null && !valueFits(d, d.default)) {
      return fail('INVALID_INPUT', `The default of ${d.name} is not a valid ${d.type}.`);
    }
    if (d.searchable !== undefined && d.searchable !== null && typeof d.searchable !== 'boolean') {
      return fail('INVALID_INPUT', `${at}.searchable must be true or false.`);
    }
  }
  return null;
}

/**
 * Checks an effective profile (its document with every extension applied): names unique,
 * display configuration pointing at defined properties, relationships pointing at existing
 * profiles and properties. `profileOf` finds other profiles of the group (and of the same batch).
 */
export function validateEffective(
  p: Pick<
    EffectiveProfile,
    'profile' | 'title' | 'document' | 'properties' | 'relationships' | 'propertyMaps'
  >,
  profileOf: (name: string) => Pick<EffectiveProfile, 'properties'> | null,
): ProfileProblem | null {
  if (!PROFILE_ID.test(p.profile)) {
    return fail(
      'INVALID_INPUT',
      `Profile id ${p.profile} must start with a letter and have letters, digits, _ or - (at most 64).`,
    );
  }
  if (typeof p.title !== 'string' || p.title.trim() === '')
    return fail('INVALID_INPUT', 'A profile needs a title.');
  const bad = checkProperties(p.properties, p.profile);
  if (bad) return bad;
  const names = new Set(['id', ...p.properties.map((d) => d.name)]);
  const defined = (name: string | null | undefined, what: string): ProfileProblem | null =>
    name && !names.has(name)
      ? fail('UNKNOWN_PROPERTY', `${what} ${name} is not a property of ${p.profile}.`)
      : null;
  const doc = p.document;
  if (typeof doc.displayNameProperty !== 'string' || doc.displayNameProperty === '') {
    return fail('INVALID_INPUT', 'displayNameProperty is required.');
  }
  const problem =
    defined(doc.displayNameProperty, 'displayNameProperty') ??
    defined(doc.secondaryDisplayNameProperty, 'secondaryDisplayNameProperty') ??
    defined(doc.isDeletedProperty, 'isDeletedProperty');
  if (problem) return problem;
  if (doc.isDeletedProperty && doc.isDeletedProperty !== 'id') {
    const def = p.properties.find((d) => d.name === doc.isDeletedProperty);
    if (def?.type !== 'BOOLEAN')
      return fail('INVALID_INPUT', `isDeletedProperty ${doc.isDeletedProperty} must be BOOLEAN.`);
  }
  if (doc.displayNameTemplate) {
    try {
      for (const name of templateProperties(parseTemplate(doc.displayNameTemplate))) {
        if (!names.has(name))
          return fail('INVALID_TEMPLATE', `The template names ${name}, which ${p.profile} does not define.`);
      }
    } catch (e) {
      if (e instanceof TemplateError) return fail('INVALID_TEMPLATE', `displayNameTemplate: ${e.message}.`);
      throw e;
    }
  }
  const relationships = new Set<string>();
  for (const r of p.relationships) {
    const problem = checkRelationship(r, names, profileOf);
    if (problem) return problem;
    if (relationships.has(r.relationship)) {
      return fail('INVALID_RELATIONSHIP', `Relationship ${r.relationship} is defined twice.`);
    }
    relationships.add(r.relationship);
  }
  for (const m of p.propertyMaps) {
    const problem = defined(m.property, `propertyMaps ${m.dataset}.${m.column} fills`);
    if (problem) return problem;
  }
  return checkDatasets(p);
}

/**
 * Dataset declarations (docs/assets.md "Datasets"): ids unique across up and state datasets,
 * integer priorities, and property maps that name a declared up dataset, fill each property
 * once per dataset and never rename a column onto another column of the same dataset.
 */
function checkDatasets(
  p: Pick<EffectiveProfile, 'profile' | 'document' | 'propertyMaps'>,
): ProfileProblem | null {
  const refuse = (message: string): ProfileProblem => fail('INVALID_DATASET', message);
  const doc = p.document;
  const up = new Set<string>();
  const seen = new Set<string>();
  for (const [key, list] of [
    ['upDatasets', doc.upDatasets],
    ['stateUpdateDatasets', doc.stateUpdateDatasets],
  ] as const) {
    if (list === undefined || list === null) continue;
    if (!Array.isArray(list)) return refuse(`${key} must be a list.`);
    for (const [i, d] of list.entries()) {
      const at = `${key}[${i}]`;
      if (typeof d?.dataset !== 'string' || !PROFILE_ID.test(d.dataset))
        return refuse(
          `${at}.dataset must start with a letter and have letters, digits, _ or - (at most 64).`,
        );
      if (seen.has(d.dataset)) return refuse(`Dataset ${d.dataset} is declared twice.`);
      seen.add(d.dataset);
      if (d.title !== undefined && d.title !== null && typeof d.title !== 'string')
        return refuse(`${at}.title must be text.`);
      if (key === 'upDatasets') {
        up.add(d.dataset);
        if (d.priority !== undefined && d.priority !== null && !Number.isSafeInteger(d.priority))
          return refuse(`The priority of dataset ${d.dataset} must be an integer.`);
      } else {
        if (d.dataset === 'manual')
          return refuse('Dataset manual is the layer of direct writes: an up dataset.');
        if (d.priority !== undefined && d.priority !== null)
          return refuse(`State dataset ${d.dataset} takes no priority: the latest observation wins.`);
      }
    }
  }
  const columns = new Set<string>();
  const filled = new Map<string, string>();
  for (const m of p.propertyMaps) {
    if (!up.has(m.dataset))
      return refuse(
        `propertyMaps ${m.dataset}.${m.column}: ${p.profile} declares no up dataset ${m.dataset}.`,
      );
    if (m.dataset === 'manual')
      return refuse('Dataset manual holds property names: it takes no property map.');
    if (typeof m.column !== 'string' || m.column === '' || m.column === 'id')
      return refuse(`propertyMaps ${m.dataset}: a column must be named, and not "id".`);
    if (columns.has(`${m.dataset}\u0000${m.column}`))
      return refuse(`Column ${m.dataset}.${m.column} is mapped twice.`);
    columns.add(`${m.dataset}\u0000${m.column}`);
    const other = filled.get(`${m.dataset}\u0000${m.property}`);
    if (other !== undefined)
      return refuse(`Columns ${m.dataset}.${other} and ${m.dataset}.${m.column} both fill ${m.property}.`);
    filled.set(`${m.dataset}\u0000${m.property}`, m.column);
  }
  return null;
}

function checkRelationship(
  r: RelationshipDefinition,
  names: Set<string>,
  profileOf: (name: string) => Pick<EffectiveProfile, 'properties'> | null,
): ProfileProblem | null {
  const refuse = (message: string): ProfileProblem => fail('INVALID_RELATIONSHIP', message);
  if (typeof r.relationship !== 'string' || !PROFILE_ID.test(r.relationship))
    return refuse(`Relationship id ${r.relationship} is not valid.`);
  if (r.type !== 'ONE' && r.type !== 'MANY')
    return refuse(`Relationship ${r.relationship}: type must be ONE or MANY.`);
  const target = profileOf(r.profile);
  if (!target)
    return refuse(`Relationship ${r.relationship} points at profile ${r.profile}, which does not exist.`);
  if (!REFERENCE_TYPES.has(r.referenceType))
    return refuse(`Relationship ${r.relationship}: bad referenceType.`);
  if (!LOOKUP_TYPES.has(r.lookupType))
    return refuse(`Relationship ${r.relationship}: lookupType must be ID, PROPERTY or PROPERTY_LIST.`);
  const params = new Set((r.parameters ?? []).map((x) => x.name));
  if (r.referenceType === 'PARAMETER') {
    if (!r.referenceProperty || !params.has(r.referenceProperty)) {
      return refuse(`Relationship ${r.relationship}: referenceProperty must name one of its parameters.`);
    }
  } else if (r.referenceType !== 'ID') {
    if (!r.referenceProperty || !names.has(r.referenceProperty)) {
      return fail(
        'UNKNOWN_PROPERTY',
        `Relationship ${r.relationship}: referenceProperty ${r.referenceProperty} is not defined.`,
      );
    }
  }
  if (r.lookupType !== 'ID') {
    if (!r.lookupProperty || !target.properties.some((d) => d.name === r.lookupProperty)) {
      return fail(
        'UNKNOWN_PROPERTY',
        `Relationship ${r.relationship}: lookupProperty ${r.lookupProperty} is not defined on ${r.profile}.`,
      );
    }
  }
  for (const param of r.parameters ?? []) {
    if (!PROPERTY_NAME.test(param.name) || !TYPES.has(param.type))
      return refuse(`Relationship ${r.relationship}: bad parameter ${param.name}.`);
  }
  return null;
}

/** The parts of a document an extension may carry. */
export function extensionOf(input: ExtensionDocument): ExtensionDocument {
  return {
    properties: input.properties ?? [],
    relationships: input.relationships ?? [],
    propertyMaps: input.propertyMaps ?? [],
  };
}

export type { ProfileDocument };

import type { Kysely } from 'kysely';
import { fail, ok, type Result } from '../../shared/result.ts';
import type { Tables } from '../../storage/tables.ts';
import type { AssetErrorType } from './error-codes.ts';
import type { ProfileLookup } from './filters/types.ts';
import { type SavedObjectInput, savedObjectProfile } from './ids.ts';
import { valueFits } from './profiles/validate.ts';

export interface PropertyMapping {
  targetProperty: string;
  sourceProperty?: string | null;
  value?: unknown;
}

export interface ConversionRow {
  user_group: string;
  profile: string;
  id: string;
  name: string | null;
  target_profile: string;
  property_mappings: PropertyMapping[];
  source_relationship: string | null;
  delete_source: boolean;
}

/** The conversion as saved (null once deleted), or why nothing changed. */
export type ConversionOutcome = Result<ConversionRow | null, AssetErrorType>;

export function conversionsOf(db: Kysely<Tables>, group: string, profile: string): Promise<ConversionRow[]> {
  return db
    .selectFrom('asset_conversions')
    .selectAll()
    .where('user_group', '=', group)
    .where('profile', '=', profile)
    .orderBy('id')
    .execute() as Promise<ConversionRow[]>;
}

/**
 * Creates or replaces conversion `id` of `profile`, or deletes it. Every mapping is checked
 * against both profiles: the source property must exist on the source, the target property on
 * the target, a constant must fit the target's type; each target property is mapped once; and
 * the relationship back to the source must be a relationship of the target profile.
 */
export async function putConversion(
  db: Kysely<Tables>,
  group: string,
  username: string,
  input: SavedObjectInput & {
    targetProfile: string;
    propertyMappings?: PropertyMapping[] | null;
    sourceRelationship?: string | null;
    deleteSource?: boolean | null;
  },
  profiles: ProfileLookup,
): Promise<ConversionOutcome> {
  const owner = savedObjectProfile(profiles, input);
  if (!owner.ok) return owner;
  const source = owner.value;
  const key = { group, profile: input.profile, id: input.id };
  if (input.delete) {
    const r = await db
      .deleteFrom('asset_conversions')
      .where('user_group', '=', key.group)
      .where('profile', '=', key.profile)
      .where('id', '=', key.id)
      .executeTakeFirst();
    return r.numDeletedRows > 0n
      ? ok(null)
      : fail('NOT_FOUND', `Profile ${input.profile} has no conversion ${input.id}.`);
  }
  const target = profiles(input.targetProfile);
  if (!target) return fail('NOT_FOUND', `There is no profile ${input.targetProfile}.`);
  const mappings = input.propertyMappings ?? [];
  const mapped = new Set<string>();
  for (const [i, m] of mappings.entries()) {
    const at = `propertyMappings[${i}]`;
    const def = target.properties.find((p) => p.name === m.targetProperty);
    if (!def)
      return fail(
        'UNKNOWN_PROPERTY',
        `${at}.targetProperty: ${m.targetProperty} is not a property of ${target.profile}.`,
      );
    if (mapped.has(m.targetProperty))
      return fail('INVALID_INPUT', `${at}: ${m.targetProperty} is mapped twice.`);
    mapped.add(m.targetProperty);
    const hasSource = m.sourceProperty != null;
    const hasValue = m.value !== undefined && m.value !== null;
    if (hasSource === hasValue) return fail('INVALID_INPUT', `${at}: give either sourceProperty or value.`);
    if (
      hasSource &&
      m.sourceProperty !== 'id' &&
      !source.properties.some((p) => p.name === m.sourceProperty)
    ) {
      return fail(
        'UNKNOWN_PROPERTY',
        `${at}.sourceProperty: ${m.sourceProperty} is not a property of ${source.profile}.`,
      );
    }
    if (hasValue && !valueFits(def, m.value))
      return fail('INVALID_INPUT', `${at}.value is not a valid ${def.type}.`);
  }
  for (const def of target.properties) {
    if (def.required && !mapped.has(def.name) && (def.default === undefined || def.default === null)) {
      return fail('INVALID_INPUT', `${target.profile}.${def.name} is required: map it or give it a value.`);
    }
  }
  if (
    input.sourceRelationship &&
    !target.relationships.some(
      (r) => r.relationship === input.sourceRelationship && r.profile === source.profile,
    )
  ) {
    return fail(
      'INVALID_RELATIONSHIP',
      `${target.profile} has no relationship ${input.sourceRelationship} to ${source.profile}.`,
    );
  }
  const values = {
    name: input.name ?? null,
    target_profile: input.targetProfile,
    property_mappings: JSON.stringify(
      mappings.map((m) => ({
        targetProperty: m.targetProperty,
        sourceProperty: m.sourceProperty ?? null,
        value: m.value ?? null,
      })),
    ),
    source_relationship: input.sourceRelationship ?? null,
    delete_source: input.deleteSource ?? false,
    updated_at: new Date(),
    updated_by: username,
  };
  const row = await db
    .insertInto('asset_conversions')
    .values({ user_group: group, profile: input.profile, id: input.id, ...values })
    .onConflict((oc) => oc.columns(['user_group', 'profile', 'id']).doUpdateSet(values))
    .returningAll()
    .executeTakeFirstOrThrow();
  return ok(row as ConversionRow);
}

/** What applying a conversion to one source asset produces, before validation. */
export function convertedProperties(
  conversion: ConversionRow,
  source: { id: string; properties: Record<string, unknown> },
  backReference: string | null,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const m of conversion.property_mappings) {
    const v =
      m.sourceProperty === 'id'
        ? source.id
        : m.sourceProperty != null
          ? source.properties[m.sourceProperty]
          : m.value;
    if (v !== undefined && v !== null) out[m.targetProperty] = v;
  }
  if (backReference) out[backReference] = source.id;
  return out;
}

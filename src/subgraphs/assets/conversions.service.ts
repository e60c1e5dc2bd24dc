import type { Kysely } from 'kysely';
import { fail, ok, type Result } from '../../shared/result.ts';
import { asChangeKind } from '../../storage/change-log.ts';
import type { Tables } from '../../storage/tables.ts';
import type { AssetRow } from './assets.repository.ts';
import { conversionsOf, convertedProperties } from './conversions.ts';
import type { AssetErrorType } from './error-codes.ts';
import { kyselyExec } from './exec.ts';
import { type AssetImportRow, prepareProfile, validateAsset } from './import/validate.ts';
import type { AssetLoaders } from './loaders.ts';
import { effectiveProperties, propertyDefaults } from './profiles/effective-properties.ts';
import { deleteAssets } from './write/delete.ts';
import { upsertAssetsIn } from './write/upsert.ts';

export interface ConvertAssets {
  /** The source profile. */
  profile: string;
  /** A conversion configuration of the source profile. */
  conversion: string;
  ids: readonly string[];
}

/** What a conversion wrote: the target assets (in the order given) and the counts. */
export interface Converted {
  targetProfile: string;
  ids: string[];
  inserted: number;
  updated: number;
  deleted: number;
}

/**
 * `convertAssets`: turns the chosen assets of one profile into assets of the conversion's target
 * profile (each source property as mapped, constants, the link back to the source), checked
 * against the target like any direct write, and retires the sources when the conversion says
 * so. All or none: a missing source or an invalid converted asset changes nothing.
 */
export async function convertAssets(
  deps: { db: Kysely<Tables>; loaders: Pick<AssetLoaders, 'profile' | 'asset'> },
  group: string,
  input: ConvertAssets,
): Promise<Result<Converted, AssetErrorType>> {
  const { db, loaders } = deps;
  const conversion = (await conversionsOf(db, group, input.profile)).find((c) => c.id === input.conversion);
  if (!conversion)
    return fail('NOT_FOUND', `Profile ${input.profile} has no conversion ${input.conversion}.`);
  const [source, target] = await Promise.all([
    loaders.profile.load(input.profile),
    loaders.profile.load(conversion.target_profile),
  ]);
  if (!source || !target) return fail('NOT_FOUND', 'The source or target profile no longer exists.');
  const ids = [...new Set(input.ids)];
  const assets = await loaders.asset.loadMany(ids.map((id) => ({ profile: input.profile, id })));
  const missing = ids.filter((_, i) => !assets[i] || assets[i] instanceof Error);
  if (missing.length)
    return fail('NOT_FOUND', `No ${input.profile} assets ${missing.slice(0, 20).join(', ')}.`);
  // The link back to the source: the target relationship's reference property holds the source id.
  const back = target.relationships.find((r) => r.relationship === conversion.source_relationship);
  const backReference =
    back?.referenceType === 'PROPERTY' && back.lookupType === 'ID' ? (back.referenceProperty ?? null) : null;
  const prepared = prepareProfile(target);
  const defaults = propertyDefaults(source);
  const rows: AssetImportRow[] = [];
  const problems: string[] = [];
  for (const a of assets as AssetRow[]) {
    const properties = convertedProperties(
      conversion,
      { id: a.id, properties: effectiveProperties(defaults, a.properties) },
      backReference,
    );
    const checked = validateAsset(prepared, { id: a.id, properties, geometry: a.geometry ?? undefined });
    if (checked.ok) rows.push(checked.value);
    else problems.push(...(checked.details ?? [checked.message]).map((e) => `${a.id}: ${e}`));
  }
  if (problems.length) return fail('INVALID_INPUT', problems.slice(0, 20).join('; '), problems);
  // Target assets and source deletion land together or not at all. A target fed by datasets
  // takes the converted values as its manual layer.
  // The targets' entries in the change log say CONVERTED; the sources' say DELETED.
  const { inserted, updated } = await asChangeKind('CONVERTED', () =>
    db.transaction().execute(async (trx) => {
      const written = await upsertAssetsIn(kyselyExec(trx), group, target, rows);
      if (conversion.delete_source) {
        await deleteAssets({ db: trx }, group, input.profile, ids, {
          isDeletedProperty: source.document.isDeletedProperty,
        });
      }
      return written;
    }),
  );
  return ok({
    targetProfile: target.profile,
    ids: rows.map((r) => r.id),
    inserted,
    updated,
    deleted: conversion.delete_source ? ids.length : 0,
  });
}

import type { Kysely, RawBuilder } from 'kysely';
import { fail, ok, type Result } from '../../../shared/result.ts';
import type { Tables } from '../../../storage/tables.ts';
import { compileFilter } from '../filters/compile.ts';
import { type AssetFilterInput, FilterError } from '../filters/types.ts';
import { createAssetLoaders } from '../loaders.ts';
import type { EffectiveProfile } from '../profiles/definition.ts';

/** What a caller asks to export: a profile's assets, some columns, optionally filtered. */
export interface ExportRequest {
  profile: string;
  /** Property names, in column order; null or absent means every property of the profile. */
  properties?: readonly string[] | null;
  filter?: Record<string, unknown> | null;
}

/** `AssetProfile.assetsExport`'s answer: a checked request waiting for its file name. */
export interface PendingExport {
  group: string;
  username: string;
  profile: string;
  properties: string[];
  filter: Record<string, unknown> | null;
  format: 'CSV' | 'XLSX';
}

/** A request checked against the profile as it is now, ready to run. */
export interface ResolvedExport {
  group: string;
  profile: EffectiveProfile;
  /** The property columns, after `id` and `displayName`. */
  properties: string[];
  /** The compiled filter over alias `a`; absent for every asset. */
  where?: RawBuilder<boolean>;
}

/** Why an export does not fit the profile. */
export type ExportProblem = 'NOT_FOUND' | 'UNKNOWN_PROPERTY' | 'INVALID_FILTER';

/** Most columns one export may have: beyond this a spreadsheet is no longer readable anyway. */
export const MAX_EXPORT_COLUMNS = 500;

/**
 * Checks an export against the caller's profiles: run when the link is made (so mistakes show
 * at once) and again when it is fetched (the profile may have changed in between).
 */
export async function resolveExport(
  db: Kysely<Tables>,
  group: string,
  request: ExportRequest,
): Promise<Result<ResolvedExport, ExportProblem>> {
  const loaders = createAssetLoaders(db, group);
  const profile = await loaders.profile.load(request.profile);
  if (!profile) return fail('NOT_FOUND', `There is no profile ${request.profile}.`);
  const known = [...new Set(profile.properties.map((p) => p.name))];
  const properties = request.properties ? [...new Set(request.properties)] : known;
  const unknown = properties.filter((p) => !known.includes(p));
  if (unknown.length > 0) {
    return fail(
      'UNKNOWN_PROPERTY',
      `Profile ${profile.profile} has no ${unknown.length === 1 ? 'property' : 'properties'} ${unknown.join(', ')}.`,
    );
  }
  if (properties.length > MAX_EXPORT_COLUMNS) {
    return fail('UNKNOWN_PROPERTY', `An export has at most ${MAX_EXPORT_COLUMNS} property columns.`);
  }
  if (request.filter == null) return ok({ group, profile, properties });
  const names = await db
    .selectFrom('asset_profiles')
    .select('profile')
    .where('user_group', '=', group)
    .execute();
  const all = await loaders.profile.loadMany(names.map((n) => n.profile));
  const byName = new Map(
    all.filter((p): p is EffectiveProfile => p !== null && !(p instanceof Error)).map((p) => [p.profile, p]),
  );
  try {
    const where = compileFilter(request.filter as AssetFilterInput, {
      profile,
      profiles: (n) => byName.get(n) ?? null,
      group,
    });
    return ok({ group, profile, properties, where });
  } catch (e) {
    if (!(e instanceof FilterError)) throw e;
    return fail('INVALID_FILTER', e.message);
  }
}

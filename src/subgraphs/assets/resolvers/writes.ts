import type {
  DeleteAssetsInput,
  MutationResolvers,
  UpsertAssetsInput,
} from '../../../__generated__/assets.ts';
import { fail, mutationResult, ok, type Result } from '../../../shared/result.ts';
import type { AssetRow } from '../assets.repository.ts';
import type { AssetsContext } from '../context.ts';
import { convertAssets } from '../conversions.service.ts';
import type { AssetErrorType } from '../error-codes.ts';
import { type AssetImportRow, prepareProfile, validateAsset } from '../import/validate.ts';
import { deleteAssets } from '../write/delete.ts';
import { DatasetWriteError } from '../write/types.ts';
import { upsertAssets } from '../write/upsert.ts';
import { VersionConflictError } from '../write/versions.ts';
import { asCaller, MAX_WRITE_BATCH } from './common.ts';

/** What a write of assets answers: the counts, and the assets as stored (upsert, convert). */
interface Written {
  assets: AssetRow[] | null;
  inserted: number;
  updated: number;
  deleted: number;
}

/** The payload of a failed write: no assets, zero counts (spec §7.2). */
const NOTHING_WRITTEN = { assets: null, inserted: 0, updated: 0, deleted: 0 };

/** The assets as stored after a write, read afresh, in the order given. */
async function stored(ctx: AssetsContext, profile: string, ids: readonly string[]): Promise<AssetRow[]> {
  for (const id of ids) ctx.loaders.asset.clear({ profile, id });
  const rows = await ctx.loaders.asset.loadMany(ids.map((id) => ({ profile, id })));
  return rows.filter((a): a is AssetRow => a !== null && !(a instanceof Error));
}

async function upsert(
  ctx: AssetsContext,
  group: string,
  input: UpsertAssetsInput,
): Promise<Result<Written, AssetErrorType>> {
  if (input.assets.length > MAX_WRITE_BATCH)
    return fail('INVALID_INPUT', `At most ${MAX_WRITE_BATCH} assets per call; use assetql import for more.`);
  const profile = await ctx.loaders.profile.load(input.profile);
  if (!profile) return fail('NOT_FOUND', `There is no profile ${input.profile}.`);
  const prepared = prepareProfile(profile);
  // On a profile fed by datasets the input is its manual layer: required properties may
  // come from another dataset, so they are checked on the merge.
  const partial = (profile.document.upDatasets ?? []).length > 0;
  const rows: AssetImportRow[] = [];
  const seen = new Set<string>();
  const problems: string[] = [];
  for (const [i, a] of input.assets.entries()) {
    if (seen.has(a.id)) problems.push(`assets[${i}]: id ${a.id} is given twice`);
    seen.add(a.id);
    const checked = validateAsset(
      prepared,
      { id: a.id, properties: a.properties ?? {}, geometry: a.geometry ?? undefined },
      { partial },
    );
    if (checked.ok) rows.push(checked.value);
    else problems.push(...(checked.details ?? [checked.message]).map((e) => `assets[${i}]: ${e}`));
  }
  const versions = new Map<string, number>();
  for (const [i, a] of input.assets.entries()) {
    if (a.ifVersion == null) continue;
    if (a.ifVersion < 0) problems.push(`assets[${i}]: ifVersion must be 0 or more`);
    versions.set(a.id, a.ifVersion);
  }
  if (problems.length) return fail('INVALID_INPUT', problems.slice(0, 20).join('; '), problems);
  let result: Awaited<ReturnType<typeof upsertAssets>>;
  try {
    result = await upsertAssets(ctx.database, group, input.profile, rows, {
      method: 'insert',
      profile,
      versions,
    });
  } catch (e) {
    if (e instanceof VersionConflictError) return fail('VERSION_CONFLICT', e.message);
    if (!(e instanceof DatasetWriteError)) throw e;
    return fail('INVALID_INPUT', e.message);
  }
  return ok({
    assets: await stored(
      ctx,
      input.profile,
      rows.map((r) => r.id),
    ),
    inserted: result.inserted,
    updated: result.updated,
    deleted: 0,
  });
}

async function remove(
  ctx: AssetsContext,
  group: string,
  input: DeleteAssetsInput,
): Promise<Result<Written, AssetErrorType>> {
  if (input.ids.length > MAX_WRITE_BATCH)
    return fail('INVALID_INPUT', `At most ${MAX_WRITE_BATCH} ids per call.`);
  const profile = await ctx.loaders.profile.load(input.profile);
  if (!profile) return fail('NOT_FOUND', `There is no profile ${input.profile}.`);
  const { deleted } = await deleteAssets(ctx.database, group, input.profile, [...new Set(input.ids)], {
    hard: input.hard ?? false,
    isDeletedProperty: profile.document.isDeletedProperty,
  });
  return ok({ assets: null, inserted: 0, updated: 0, deleted });
}

/** upsertAssets, deleteAssets and convertAssets: at most {@link MAX_WRITE_BATCH} assets a call. */
export const writeMutations: MutationResolvers<AssetsContext> = {
  upsertAssets: async (_root, { input, correlationId }, ctx) =>
    mutationResult(
      correlationId ?? ctx.requestId,
      await asCaller(ctx, 'Sign in to write assets.', (caller) => upsert(ctx, caller.userGroup, input)),
      (written) => written,
      NOTHING_WRITTEN,
    ),
  deleteAssets: async (_root, { input, correlationId }, ctx) =>
    mutationResult(
      correlationId ?? ctx.requestId,
      await asCaller(ctx, 'Sign in to delete assets.', (caller) => remove(ctx, caller.userGroup, input)),
      (written) => written,
      NOTHING_WRITTEN,
    ),
  convertAssets: async (_root, { input, correlationId }, ctx) => {
    const outcome = await asCaller(ctx, 'Sign in to convert assets.', async (caller) => {
      if (input.ids.length > MAX_WRITE_BATCH)
        return fail('INVALID_INPUT', `At most ${MAX_WRITE_BATCH} ids per call.`);
      const converted = await convertAssets(ctx, caller.userGroup, input);
      if (!converted.ok) return converted;
      const { targetProfile, ids, ...counts } = converted.value;
      return ok({ assets: await stored(ctx, targetProfile, ids), ...counts });
    });
    return mutationResult(correlationId ?? ctx.requestId, outcome, (written) => written, NOTHING_WRITTEN);
  },
};

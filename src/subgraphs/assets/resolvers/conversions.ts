import type { MutationResolvers, Resolvers } from '../../../__generated__/assets.ts';
import { mutationResult } from '../../../shared/result.ts';
import type { AssetsContext } from '../context.ts';
import { type PropertyMapping, putConversion } from '../conversions.ts';
import { allProfiles, asCaller } from './common.ts';

export const conversionMutations: MutationResolvers<AssetsContext> = {
  updateAssetProfileAssetConversionConfiguration: async (_root, { input }, ctx) => {
    const outcome = await asCaller(ctx, 'Sign in to edit conversions.', async (caller) => {
      const all = await allProfiles(ctx);
      return putConversion(
        ctx.db,
        caller.userGroup,
        caller.username,
        { ...input, propertyMappings: input.propertyMappings as PropertyMapping[] | null | undefined },
        (n) => all.get(n) ?? null,
      );
    });
    return mutationResult(
      ctx.requestId,
      outcome,
      (assetConversionConfiguration) => ({ assetConversionConfiguration }),
      { assetConversionConfiguration: null },
    );
  },
};

export const conversionResolvers: Resolvers = {
  AssetProfileAssetConversionConfiguration: {
    targetProfile: (c) => c.target_profile,
    targetAssetProfile: (c, _args, ctx) => ctx.loaders.profile.load(c.target_profile),
    propertyMappings: (c) =>
      c.property_mappings.map((m) => ({
        targetProperty: m.targetProperty,
        sourceProperty: m.sourceProperty ?? null,
        value: m.value ?? null,
      })),
    sourceRelationship: (c) => c.source_relationship,
    deleteSource: (c) => c.delete_source,
  },
};

import type { MutationResolvers, QueryResolvers, Resolvers } from '../../../__generated__/assets.ts';
import { isAuthenticated } from '../../../shared/identity.ts';
import { mutationResult } from '../../../shared/result.ts';
import type { AssetsContext } from '../context.ts';
import type { AssetFilterInput, ProfileLookup } from '../filters/types.ts';
import {
  createSelectionFilter,
  type FilterOutcome,
  type SubProfileInput,
  selectionFiltersOf,
  updateSelectionFilter,
} from '../selection-filters.ts';
import { allProfiles, asCaller, assetConnection, tenant } from './common.ts';

/** Runs a change of a saved filter against every profile of the caller's group. */
async function filterMutation(
  ctx: AssetsContext,
  correlationId: string | null | undefined,
  change: (group: string, username: string, profiles: ProfileLookup) => Promise<FilterOutcome>,
) {
  const outcome = await asCaller(ctx, 'Sign in to save asset filters.', async (caller) => {
    const all = await allProfiles(ctx);
    return change(caller.userGroup, caller.username, (n) => all.get(n) ?? null);
  });
  return mutationResult(correlationId ?? ctx.requestId, outcome, (assetFilter) => ({ assetFilter }), {
    assetFilter: null,
  });
}

export const filterQueries: QueryResolvers<AssetsContext> = {
  assetFilters: async (_root, _args, ctx) => selectionFiltersOf(ctx.db, tenant(ctx).userGroup),
  assetFilter: async (_root, { id }, ctx) =>
    (await selectionFiltersOf(ctx.db, tenant(ctx).userGroup, [id]))[0] ?? null,
};

export const filterMutations: MutationResolvers<AssetsContext> = {
  createAssetFilter: (_root, { input, correlationId }, ctx) =>
    filterMutation(ctx, correlationId, (group, username, profiles) =>
      createSelectionFilter(
        ctx.db,
        group,
        username,
        {
          ...input,
          subProfiles: input.subProfiles as SubProfileInput[],
          filter: input.filter as AssetFilterInput | null,
        },
        profiles,
      ),
    ),
  updateAssetFilter: (_root, { input, correlationId }, ctx) =>
    filterMutation(ctx, correlationId, (group, username, profiles) =>
      updateSelectionFilter(
        ctx.db,
        group,
        username,
        {
          ...input,
          filter: input.filter as AssetFilterInput | null | undefined,
          subProfiles: input.subProfiles as SubProfileInput[] | null | undefined,
          expectedVersion: input.ifVersion ?? input.expectedVersion,
        },
        profiles,
      ),
    ),
};

/** Saved selections: the filter, its sub-profiles, and the assets it selects. */
export const filterResolvers: Resolvers = {
  AssetSelectionFilter: {
    __resolveReference: async (ref: { id: string }, ctx: AssetsContext) =>
      isAuthenticated(ctx.identity)
        ? ((await selectionFiltersOf(ctx.db, ctx.identity.userGroup, [ref.id]))[0] ?? null)
        : null,
    displayName: (f) => f.display_name,
    assetProfile: async (f, _args, ctx) => {
      const p = await ctx.loaders.profile.load(f.profile);
      if (!p) throw new Error(`asset filter ${f.id} points at missing profile ${f.profile}`);
      return p;
    },
    subProfiles: (f) => f.sub_profiles,
    audit: (f) => ({
      createdAt: f.created_at,
      createdBy: f.created_by,
      updatedAt: f.updated_at,
      updatedBy: f.updated_by,
      version: f.version,
    }),
    assets: (f, args, ctx) => assetConnection(ctx, f.profile, { ...args, filter: f.filter ?? undefined }),
  },
};

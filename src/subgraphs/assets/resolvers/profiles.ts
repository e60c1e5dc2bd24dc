import type { MutationResolvers, QueryResolvers, Resolvers } from '../../../__generated__/assets.ts';
import { decodeCursor, forwardConnection, pageSize } from '../../../shared/cursors.ts';
import { isAuthenticated } from '../../../shared/identity.ts';
import { fail, mutationResult } from '../../../shared/result.ts';
import { listProfiles } from '../assets.repository.ts';
import type { AssetsContext } from '../context.ts';
import { conversionsOf } from '../conversions.ts';
import { datasetViews } from '../datasets/views.ts';
import { exportResolvers } from '../exports/resolvers.ts';
import type { EffectiveProfile, ExtensionDocument } from '../profiles/definition.ts';
import {
  type ProfileWrite,
  putExtension,
  removeExtension,
  updateProfile,
} from '../profiles/profiles.service.ts';
import { viewsOf } from '../views.ts';
import { asCaller, assetConnection, tenant } from './common.ts';

const PROFILE_PAGE = 100;
const MAX_PROFILE_PAGE = 500;

/**
 * Runs a profile change and answers with the profile as the change left it (spec §7.2): its
 * `version` is the one the change gave it, even when another write has followed since. What this
 * request and this process keep of profiles is forgotten, so later reads load the new definition.
 */
async function profileMutation(ctx: AssetsContext, change: (group: string) => Promise<ProfileWrite>) {
  const outcome = await asCaller(ctx, 'Sign in to change profiles.', (caller) => change(caller.userGroup));
  if (outcome.ok) ctx.loaders.profilesChanged();
  return mutationResult(ctx.requestId, outcome, (assetProfile) => ({ assetProfile }), {
    assetProfile: null,
  });
}

export const profileQueries: QueryResolvers<AssetsContext> = {
  assetProfiles: (_root, _args, ctx) => {
    tenant(ctx);
    return {};
  },
};

export const profileMutations: MutationResolvers<AssetsContext> = {
  updateAssetProfile: (_root, { input }, ctx) =>
    profileMutation(ctx, async (group) =>
      input ? updateProfile(ctx.db, group, input) : fail('INVALID_INPUT', 'input is required.'),
    ),
  putAssetProfileExtension: (_root, { input }, ctx) =>
    profileMutation(ctx, (group) =>
      putExtension(ctx.db, group, input.profile, input.extension, {
        properties: (input.properties ?? undefined) as ExtensionDocument['properties'],
        relationships: (input.relationships ?? undefined) as ExtensionDocument['relationships'],
        propertyMaps: input.propertyMaps ?? undefined,
      }),
    ),
  removeAssetProfileExtension: (_root, { input }, ctx) =>
    profileMutation(ctx, (group) => removeExtension(ctx.db, group, input.profile, input.extension)),
};

/** `assetProfiles` and the profile types: the effective profile as its fields show it. */
export const profileResolvers: Resolvers = {
  AssetProfiles: {
    all: async (_root, { first, after }, ctx) => {
      const { userGroup } = tenant(ctx);
      const limit = pageSize(first, PROFILE_PAGE, MAX_PROFILE_PAGE);
      const cursor = after ? String(decodeCursor(after, 1)[0]) : undefined;
      const rows = await listProfiles(ctx.db, userGroup, limit, cursor);
      const profiles = await ctx.loaders.profile.loadMany(rows.slice(0, limit).map((r) => r.profile));
      const effective = profiles.filter((p): p is EffectiveProfile => p !== null && !(p instanceof Error));
      const conn = forwardConnection(effective, limit, (p) => [p.profile], cursor !== undefined);
      conn.pageInfo.hasNextPage = rows.length > limit;
      return conn;
    },
    byId: (_root, { profile }, ctx) => {
      tenant(ctx);
      return ctx.loaders.profile.load(profile);
    },
  },
  AssetProfile: {
    // A copy: the federation runtime marks what this returns with its `__typename`, and the
    // definition itself is shared between requests (profiles/cache.ts), so frozen.
    __resolveReference: async (ref: { profile: string }, ctx: AssetsContext) => {
      if (!isAuthenticated(ctx.identity)) return null;
      const profile = await ctx.loaders.profile.load(ref.profile);
      return profile && { ...profile };
    },
    owner: (p) => ({ username: p.ownerUsername, group: p.userGroup }),
    properties: (p) => p.properties,
    propertyMaps: (p) => p.propertyMaps,
    relationships: (p) => p.relationships,
    displayNameProperty: (p) => p.document.displayNameProperty,
    displayNameTemplate: (p) => p.document.displayNameTemplate ?? null,
    secondaryDisplayNameProperty: (p) => p.document.secondaryDisplayNameProperty ?? null,
    isDeletedProperty: (p) => p.document.isDeletedProperty ?? null,
    forceAssetStateUpdates: (p) => p.document.forceAssetStateUpdates ?? false,
    assets: (p, args, ctx) => assetConnection(ctx, p.profile, args),
    assetById: (p, { id }, ctx) => ctx.loaders.asset.load({ profile: p.profile, id }),
    extensions: (p) => p.extensions,
    assetsExport: exportResolvers.assetsExport,
    upDatasets: async (p, _args, ctx) => (await datasetViews(ctx, p)).up,
    upDataset: async (p, { dataset }, ctx) =>
      (await datasetViews(ctx, p)).up.find((d) => d.dataset === dataset) ?? null,
    stateUpdateDatasets: async (p, _args, ctx) => (await datasetViews(ctx, p)).state,
    viewConfigurations: (p, _args, ctx) => viewsOf(ctx.db, p.userGroup, p.profile),
    viewConfiguration: async (p, { id }, ctx) =>
      (await viewsOf(ctx.db, p.userGroup, p.profile, id))[0] ?? null,
    assetConversionConfigurations: (p, _args, ctx) => conversionsOf(ctx.db, p.userGroup, p.profile),
  },
  AssetPropertyDefinition: {
    required: (d) => d.required ?? false,
    default: (d) => d.default ?? null,
  },
  AssetProfileRelationship: {
    assetProfile: async (r, _args, ctx) => {
      const p = await ctx.loaders.profile.load(r.profile);
      if (!p) throw new Error(`relationship ${r.relationship} points at missing profile ${r.profile}`);
      return p;
    },
  },
};

import { GraphQLError } from 'graphql';
import type {
  AssetProfileResolvers,
  MutationResolvers,
  QueryResolvers,
  Resolvers,
} from '../../../__generated__/assets.ts';
import { unauthenticated } from '../../../shared/errors.ts';
import { isAuthenticated } from '../../../shared/identity.ts';
import { mutationResult } from '../../../shared/result.ts';
import type { AssetsContext } from '../context.ts';
import { EXPORTS_ROUTE } from '../descriptor.ts';
import { asCaller } from '../resolvers/common.ts';
import { selectionFiltersOf } from '../selection-filters.ts';
import { createDownload, deleteDownload, downloadsOf, safeFileName } from './downloads.ts';
import { resolveExport } from './spec.ts';
import { EXPORT_URL_TTL_SECONDS, MAX_TOKEN_LENGTH } from './tokens.ts';

function linkFor(ctx: AssetsContext, token: string) {
  return `${ctx.exports.baseUrl}${EXPORTS_ROUTE.public}${token}`;
}

const assetsExport: AssetProfileResolvers<AssetsContext>['assetsExport'] = async (p, args, ctx) => {
  if (!isAuthenticated(ctx.identity)) throw unauthenticated();
  const filter = (args.filter ?? null) as Record<string, unknown> | null;
  const checked = await resolveExport(ctx.db, ctx.identity.userGroup, {
    profile: p.profile,
    properties: args.properties,
    filter,
  });
  if (!checked.ok)
    throw new GraphQLError(checked.message, { extensions: { code: 'BAD_USER_INPUT', type: checked.type } });
  return {
    group: ctx.identity.userGroup,
    username: ctx.identity.username,
    profile: p.profile,
    properties: checked.value.properties,
    filter,
    format: args.isExcel ? 'XLSX' : 'CSV',
  };
};

const assetFilterDownloads: QueryResolvers<AssetsContext>['assetFilterDownloads'] = async (
  _root,
  _args,
  ctx,
) => {
  if (!isAuthenticated(ctx.identity)) throw unauthenticated();
  return downloadsOf(ctx.db, ctx.identity.userGroup);
};

const createAssetFilterDownload: MutationResolvers<AssetsContext>['createAssetFilterDownload'] = async (
  _root,
  { input, correlationId },
  ctx,
) => {
  const outcome = await asCaller(ctx, 'Sign in to make downloads.', (caller) =>
    createDownload(ctx.db, caller.userGroup, caller.username, input, ctx.clock.now()),
  );
  return mutationResult(correlationId ?? ctx.requestId, outcome, (download) => ({ download }), {
    download: null,
  });
};

const deleteAssetDownload: MutationResolvers<AssetsContext>['deleteAssetDownload'] = async (
  _root,
  { id, correlationId },
  ctx,
) => {
  const outcome = await asCaller(ctx, 'Sign in to delete downloads.', (caller) =>
    deleteDownload(ctx.db, caller.userGroup, id),
  );
  // A delete answers a null payload and no errors (docs/schema.md §10).
  return mutationResult(correlationId ?? ctx.requestId, outcome, () => ({ download: null }), {
    download: null,
  });
};

/** Exports: ad-hoc links from `assetsExport`, saved downloads of selection filters. */
export const exportResolvers = {
  assetsExport,
  assetFilterDownloads,
  createAssetFilterDownload,
  deleteAssetDownload,
  AssetProfileAssetExport: {
    csvFileDownloadUrl: (e, { exportName }, ctx) => {
      const token = ctx.exports.tokens.sign({
        k: 'q',
        g: e.group,
        u: e.username,
        p: e.profile,
        c: e.properties,
        f: e.format,
        w: e.filter,
        n: safeFileName(exportName, `${e.profile}-assets`),
        e: Math.floor(ctx.clock.now().getTime() / 1000) + EXPORT_URL_TTL_SECONDS,
      });
      if (token.length > MAX_TOKEN_LENGTH) {
        throw new GraphQLError(
          'The filter is too large to travel in a link; save it with createAssetFilter and use createAssetFilterDownload.',
          { extensions: { code: 'BAD_USER_INPUT', type: 'INVALID_FILTER' } },
        );
      }
      return linkFor(ctx, token);
    },
  },
  AssetDownload: {
    filterId: (d) => d.filter_id,
    filter: async (d, _args, ctx) =>
      (await selectionFiltersOf(ctx.db, d.user_group, [d.filter_id]))[0] ?? null,
    status: (d, _args, ctx) => (d.expires_at > ctx.clock.now() ? 'READY' : 'EXPIRED'),
    createdAt: (d) => d.created_at,
    createdBy: (d) => d.created_by,
    expiresAt: (d) => d.expires_at,
    downloadUrl: (d, _args, ctx) =>
      d.expires_at > ctx.clock.now()
        ? linkFor(
            ctx,
            ctx.exports.tokens.sign({
              k: 'd',
              g: d.user_group,
              d: d.id,
              e: Math.floor(d.expires_at.getTime() / 1000),
            }),
          )
        : null,
  },
} satisfies Pick<Resolvers, 'AssetProfileAssetExport' | 'AssetDownload'> & Record<string, unknown>;

import type { Resolvers } from '../../../__generated__/assets.ts';
import { exportResolvers } from '../exports/resolvers.ts';
import { assetQueries, assetResolvers } from './assets.ts';
import { conversionMutations, conversionResolvers } from './conversions.ts';
import { filterMutations, filterQueries, filterResolvers } from './filters.ts';
import { mapViewport } from './map.ts';
import { profileMutations, profileQueries, profileResolvers } from './profiles.ts';
import { stamped } from './stamped.ts';
import { observationSeriesResolvers, telemetryAssetResolvers, telemetryMutations } from './telemetry.ts';
import { viewMutations, viewResolvers } from './views.ts';
import { writeMutations } from './writes.ts';

/** The assets subgraph's resolvers: one file per type or concern, as exports/resolvers.ts is. */
export const resolvers: Resolvers = {
  Query: {
    ...profileQueries,
    ...assetQueries,
    ...filterQueries,
    assetFilterDownloads: exportResolvers.assetFilterDownloads,
  },
  Mutation: stamped({
    ...profileMutations,
    ...viewMutations,
    ...conversionMutations,
    ...writeMutations,
    ...filterMutations,
    ...telemetryMutations,
    createAssetFilterDownload: exportResolvers.createAssetFilterDownload,
    deleteAssetDownload: exportResolvers.deleteAssetDownload,
  }),
  ...profileResolvers,
  ...assetResolvers,
  Assets: { ...assetResolvers.Assets, mapViewport },
  Asset: { ...assetResolvers.Asset, ...telemetryAssetResolvers },
  ObservationSeries: observationSeriesResolvers,
  ...filterResolvers,
  ...viewResolvers,
  ...conversionResolvers,
  AssetProfileAssetExport: exportResolvers.AssetProfileAssetExport,
  AssetDownload: exportResolvers.AssetDownload,
};

import { GraphQLError } from 'graphql';
import type { AssetsResolvers } from '../../../__generated__/assets.ts';
import type { AssetsContext } from '../context.ts';
import { cacheableFilter, cachedClusters } from '../map/cached-clusters.ts';
import { checkViewport, gridLevel } from '../map/grid.ts';
import { assetsInViewport, clustersInViewport } from '../map/viewport.ts';
import { compiledFilter, tenant } from './common.ts';

/**
 * The most viewports one request asks: each may read every asset of a profile (100,000 for a
 * profile seen whole) to count them per cell, as a `totalCount` reads its listing.
 */
export const MAX_VIEWPORTS_PER_REQUEST = 10;

/** How many viewports each request (its context) has asked. */
const spent = new WeakMap<object, number>();

/**
 * `Assets.mapViewport` (docs/schema.md §6): the assets of a viewport, or their clusters on the
 * grid when there are more than `limit`. Arguments are checked before the filter is compiled or
 * anything read; every statement is the caller's group's (map/viewport.ts).
 */
export const mapViewport: AssetsResolvers<AssetsContext>['mapViewport'] = async (a, args, ctx) => {
  const { userGroup } = tenant(ctx);
  const v = checkViewport(args.bbox, args.zoom, args.limit);
  const n = (spent.get(ctx) ?? 0) + 1;
  spent.set(ctx, n);
  if (n > MAX_VIEWPORTS_PER_REQUEST)
    throw new GraphQLError(
      `A request asks at most ${MAX_VIEWPORTS_PER_REQUEST} map viewports; ask for the others in another request.`,
      { extensions: { code: 'BAD_USER_INPUT' } },
    );
  const where = args.filter != null ? await compiledFilter(ctx, a.profile, args.filter) : undefined;
  const bbox = [v.minLon, v.minLat, v.maxLon, v.maxLat];
  // Counted per cell first: one statement for a viewport of many assets, where the count alone
  // would read them all once more; a viewport of few is counted as fast as it is listed.
  const level = gridLevel(v);
  // Counted in part from the cluster cache where the filter reads only what the change log
  // follows (map/cached-clusters.ts): the same clusters.
  const cells = cacheableFilter(args.filter)
    ? await cachedClusters(ctx.db, userGroup, a.profile, v, level, where)
    : await clustersInViewport(ctx.db, userGroup, a.profile, v, level, where);
  const count = cells.reduce((sum, c) => sum + c.count, 0);
  if (count <= v.limit) {
    const rows = await assetsInViewport(ctx.db, userGroup, a.profile, v, v.limit, where);
    ctx.loaders.noteAssets(rows);
    return {
      bbox,
      zoom: v.zoom,
      count: rows.length,
      clustered: false,
      gridLevel: null,
      features: rows,
      clusters: [],
    };
  }
  return {
    bbox,
    zoom: v.zoom,
    count,
    clustered: true,
    gridLevel: level,
    features: [],
    clusters: cells,
  };
};

import { GraphQLError } from 'graphql';
import type { Connection } from '../../shared/cursors.ts';
import type { AssetRow } from './assets.repository.ts';

/** The most assets `AssetsConnection.totalCount` counts; a listing of more answers this. */
export const MAX_TOTAL_COUNT = 10_000;
/**
 * The most listings one request counts. Each count reads up to MAX_TOTAL_COUNT + 1 rows (a
 * filter may read the whole profile to find them, as a page with it does); a connection under a
 * list (every profile's assets) would otherwise count once per item.
 */
export const MAX_COUNTS_PER_REQUEST = 10;

/** A page of assets, with what counts the whole listing, once, should a field ask. */
export interface AssetsConnectionView extends Connection<AssetRow> {
  /** The listing's size up to MAX_TOTAL_COUNT + 1 (one statement, on first call). */
  counted: () => Promise<number>;
}

/** How many counts each request (its context) has run. */
const spent = new WeakMap<object, number>();

/**
 * `connection` with its count, run at most once whichever of the two fields asks first, and
 * refused past the request's MAX_COUNTS_PER_REQUEST.
 */
export function withCount(
  connection: Connection<AssetRow>,
  request: object,
  count: () => Promise<number>,
): AssetsConnectionView {
  let counting: Promise<number> | undefined;
  return {
    ...connection,
    counted: () => {
      if (!counting) {
        const n = (spent.get(request) ?? 0) + 1;
        spent.set(request, n);
        counting =
          n > MAX_COUNTS_PER_REQUEST
            ? Promise.reject(
                new GraphQLError(
                  `A request counts at most ${MAX_COUNTS_PER_REQUEST} listings (totalCount); ask for the others in another request.`,
                  { extensions: { code: 'BAD_USER_INPUT' } },
                ),
              )
            : count();
      }
      return counting;
    },
  };
}

import { GraphQLError } from 'graphql';
import {
  type Connection,
  decodeCursor,
  edgesOf,
  forwardConnection,
  pageSize,
} from '../../../shared/cursors.ts';
import { unauthenticated } from '../../../shared/errors.ts';
import { type Identity, isAuthenticated } from '../../../shared/identity.ts';
import { fail, type Result } from '../../../shared/result.ts';
import { countAssets, listAssets } from '../assets.repository.ts';
import type { AssetsContext } from '../context.ts';
import type { AssetErrorType } from '../error-codes.ts';
import { compileFilter } from '../filters/compile.ts';
import { type AssetFilterInput, FilterError } from '../filters/types.ts';
import type { EffectiveProfile } from '../profiles/definition.ts';
import { type AssetsConnectionView, MAX_TOTAL_COUNT, withCount } from '../total-count.ts';

const ASSET_PAGE = 100;
/** The largest page of assets (docs/schema.md); larger requests get a clear error. */
export const MAX_ASSET_PAGE = 1000;
/** The most assets one upsertAssets, deleteAssets or convertAssets call takes (docs/schema.md). */
export const MAX_WRITE_BATCH = 1000;

/** The caller's group for a query; anyone else gets an UNAUTHENTICATED error. */
export function tenant(ctx: AssetsContext) {
  if (!isAuthenticated(ctx.identity)) throw unauthenticated();
  return ctx.identity;
}

/** A mutation's work for a signed-in caller; anyone else gets UNAUTHENTICATED with `message`. */
export async function asCaller<T>(
  ctx: AssetsContext,
  message: string,
  work: (caller: Identity & { username: string; userGroup: string }) => Promise<Result<T, AssetErrorType>>,
): Promise<Result<T, AssetErrorType>> {
  return isAuthenticated(ctx.identity) ? work(ctx.identity) : fail('UNAUTHENTICATED', message);
}

/** Every profile of the caller's group: relationship predicates may reach any of them. */
export async function allProfiles(ctx: AssetsContext): Promise<Map<string, EffectiveProfile>> {
  tenant(ctx);
  const loaded = await ctx.loaders.profile.loadMany(await ctx.loaders.profileNames());
  return new Map(
    loaded
      .filter((p): p is EffectiveProfile => p !== null && !(p instanceof Error))
      .map((p) => [p.profile, p]),
  );
}

/**
 * Compiles an AssetFilter for `profile`; an invalid one is a BAD_USER_INPUT error naming the
 * offending path. Relationship predicates may reach any profile of the group, so all load.
 */
export async function compiledFilter(ctx: AssetsContext, profile: string, filter: unknown) {
  const { userGroup } = tenant(ctx);
  const all = await allProfiles(ctx);
  const target = all.get(profile);
  if (!target)
    throw new GraphQLError(`There is no profile ${profile}.`, { extensions: { code: 'BAD_USER_INPUT' } });
  try {
    return compileFilter(filter as AssetFilterInput, {
      profile: target,
      profiles: (n) => all.get(n) ?? null,
      group: userGroup,
    });
  } catch (e) {
    if (!(e instanceof FilterError)) throw e;
    throw new GraphQLError(e.message, { extensions: { code: 'BAD_USER_INPUT', type: 'INVALID_FILTER' } });
  }
}

export interface AssetArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
  filter?: unknown;
}

/** What a page of a profile's assets asks for, checked: the keyset bounds, the size, the filter. */
export interface AssetPageRequest {
  limit: number;
  after?: string;
  before?: string;
  backwards: boolean;
  /** The compiled filter, on alias `a`. */
  where?: Awaited<ReturnType<typeof compiledFilter>>;
}

/**
 * The page `args` ask for; a bad argument (both directions, a size out of range, a bad cursor or
 * filter) is a BAD_USER_INPUT error. Shared by the connection's resolver and the planned pages
 * (page-plans.ts), so both refuse alike.
 */
export async function assetPageRequest(
  ctx: AssetsContext,
  profile: string,
  args: AssetArgs,
): Promise<AssetPageRequest> {
  const where = args.filter != null ? await compiledFilter(ctx, profile, args.filter) : undefined;
  const backwards = args.last != null || args.before != null;
  if (backwards && (args.first != null || args.after != null)) {
    throw new GraphQLError('Use either `first`/`after` or `last`/`before`, not both.', {
      extensions: { code: 'BAD_USER_INPUT' },
    });
  }
  const limit = backwards
    ? pageSize(args.last, ASSET_PAGE, MAX_ASSET_PAGE, 'last')
    : pageSize(args.first, ASSET_PAGE, MAX_ASSET_PAGE, 'first');
  const after = args.after ? String(decodeCursor(args.after, 1)[0]) : undefined;
  const before = args.before ? String(decodeCursor(args.before, 1)[0]) : undefined;
  return { limit, after, before, backwards, where };
}

/** A page of a profile's assets, optionally filtered, forwards or backwards by keyset on id. */
export async function assetConnection(
  ctx: AssetsContext,
  profile: string,
  args: AssetArgs,
): Promise<AssetsConnectionView> {
  const { userGroup } = tenant(ctx);
  const page = await assetPageRequest(ctx, profile, args);
  const rows = await listAssets(ctx.db, userGroup, profile, page, page.where);
  ctx.loaders.noteAssets(rows);
  return withCount(
    pageConnection(rows, page, (r) => [r.id]),
    ctx,
    () => countAssets(ctx.db, userGroup, profile, MAX_TOTAL_COUNT, page.where),
  );
}

/**
 * The connection of `rows`, read for `page` (`limit + 1` rows in the read direction): shown in
 * id order, keyed by `keyOf`. The resolvers' and the planned pages' (page-plans.ts) alike.
 */
export function pageConnection<T>(
  rows: T[],
  page: AssetPageRequest,
  keyOf: (row: T) => readonly unknown[],
): Connection<T> {
  const { limit, after, before, backwards } = page;
  if (!backwards) return forwardConnection(rows, limit, keyOf, after !== undefined);
  const edges = edgesOf(rows.slice(0, limit).reverse(), keyOf);
  return {
    edges,
    pageInfo: {
      hasPreviousPage: rows.length > limit,
      hasNextPage: before !== undefined,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}

import { GraphQLError } from 'graphql';
import type { QueryResolvers, Resolvers } from '../../../__generated__/assets.ts';
import { isAuthenticated } from '../../../shared/identity.ts';
import type { AssetRow } from '../assets.repository.ts';
import type { AssetsContext } from '../context.ts';
import { bboxOf } from '../geometry.ts';
import type { EffectiveProfile } from '../profiles/definition.ts';
import { displayNameOf } from '../profiles/display-name.ts';
import { effectiveProperties, onlyProperties, propertyDefaults } from '../profiles/effective-properties.ts';
import { MAX_TOTAL_COUNT } from '../total-count.ts';
import { assetConnection, tenant } from './common.ts';

/** The subject type under which issues point at assets. */
const ASSET_SUBJECT_TYPE = 'asset';

function assetSubjectReference(profile: string, id: string): string {
  return `${encodeURIComponent(profile)}/${encodeURIComponent(id)}`;
}

function parseAssetSubjectReference(reference: string): { profile: string; id: string } | null {
  const parts = reference.split('/');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return null;
  try {
    return { profile: decodeURIComponent(parts[0]), id: decodeURIComponent(parts[1]) };
  } catch (e) {
    // A malformed percent-encoding names no asset.
    if (e instanceof URIError) return null;
    throw e;
  }
}

/**
 * `use` applied to the profile of `asset`: at once when this request has already loaded it (every
 * row of a page after the first), else once it is loaded. The resolvers of a page's rows then make
 * no promise each.
 */
function withProfile<T>(
  ctx: AssetsContext,
  asset: AssetRow,
  use: (profile: EffectiveProfile | null) => T,
): T | Promise<T> {
  const known = ctx.loaders.loadedProfile(asset.profile);
  return known !== undefined ? use(known) : ctx.loaders.profile.load(asset.profile).then(use);
}

/** What each row shows for its properties under a profile, worked out once per row and profile. */
const shownOf = new WeakMap<AssetRow, { profile: EffectiveProfile; props: Record<string, unknown> }>();

/** What `properties` shows: the stored values, else the profile's defaults. */
function shown(profile: EffectiveProfile | null, asset: AssetRow): Record<string, unknown> {
  if (!profile) return asset.properties;
  const known = shownOf.get(asset);
  if (known?.profile === profile) return known.props;
  const props = effectiveProperties(propertyDefaults(profile), asset.properties);
  shownOf.set(asset, { profile, props });
  return props;
}

export const assetQueries: QueryResolvers<AssetsContext> = {
  assets: async (_root, { profile }, ctx) => {
    tenant(ctx);
    return (await ctx.loaders.profile.load(profile)) ? { profile } : null;
  },
};

/** Assets, their relationships and geometry, and the references other subgraphs hold. */
export const assetResolvers: Resolvers = {
  Assets: {
    assetProfile: (a, _args, ctx) => ctx.loaders.profile.load(a.profile),
    all: (a, args, ctx) => assetConnection(ctx, a.profile, args),
    byId: (a, { id }, ctx) => ctx.loaders.asset.load({ profile: a.profile, id }),
  },
  // One statement counts the listing for both fields (total-count.ts).
  AssetsConnection: {
    totalCount: async (c) => Math.min(await c.counted(), MAX_TOTAL_COUNT),
    totalCountIsExact: async (c) => (await c.counted()) <= MAX_TOTAL_COUNT,
  },
  Asset: {
    __resolveReference: (ref: { profile: string; id: string }, ctx: AssetsContext) =>
      isAuthenticated(ctx.identity) ? ctx.loaders.asset.load({ profile: ref.profile, id: ref.id }) : null,
    assetProfile: (a, _args, ctx) => withProfile(ctx, a, (p) => p),
    modifiedAt: (a) => a.modified_at,
    isDeleted: (a) => a.is_deleted,
    version: (a) => a.version,
    properties: (a, { only }, ctx) =>
      withProfile(ctx, a, (p) => (only ? onlyProperties(p, a.properties, only) : shown(p, a))),
    observation: (a) => a.observation,
    geometry: (a) => a.geometry,
    geoJSONFeature: (a, _args, ctx) =>
      a.geometry
        ? withProfile(ctx, a, (p) => ({
            type: 'Feature',
            id: `${a.profile}/${a.id}`,
            bbox: bboxOf(a.geometry!),
            geometry: a.geometry,
            properties: shown(p, a),
          }))
        : null,
    displayName: (a, _args, ctx) =>
      withProfile(ctx, a, (p) => (p ? displayNameOf(p.document, a.id, shown(p, a)) : a.id)),
    secondaryDisplayName: (a, _args, ctx) =>
      withProfile(ctx, a, (p) => {
        const key = p?.document.secondaryDisplayNameProperty;
        const v = key ? shown(p, a)[key] : undefined;
        return v === undefined || v === null ? null : String(v);
      }),
    related: async (a, { relationship, params }, ctx) => {
      const p = await ctx.loaders.profile.load(a.profile);
      if (!p) return null;
      const r = relationship
        ? p.relationships.find((x) => x.relationship === relationship)
        : p.relationships[0];
      if (!r) {
        if (!relationship) return null;
        throw new GraphQLError(`Profile ${p.profile} has no relationship ${relationship}.`, {
          extensions: { code: 'BAD_USER_INPUT' },
        });
      }
      for (const param of r.parameters ?? []) {
        if (param.required && (params?.[param.name] === undefined || params[param.name] === null)) {
          throw new GraphQLError(`Relationship ${r.relationship} needs parameter ${param.name}.`, {
            extensions: { code: 'BAD_USER_INPUT' },
          });
        }
      }
      const rows = await ctx.loaders.related.load({ source: a, relationship: r, params: params ?? null });
      // The related assets of one request are bounded in all (docs/security.md), whatever the data.
      ctx.budget.spendRelated(rows.length);
      ctx.loaders.noteAssets(rows);
      return r.type === 'ONE'
        ? {
            __typename: 'AssetRelationshipOne',
            asset: rows[0] ?? null,
            observation: rows[0]?.observation ?? null,
          }
        : {
            __typename: 'AssetRelationshipMany',
            assets: rows,
            observations: rows.map((x) => x.observation ?? {}),
          };
    },
    issueSubject: (a) => ({ type: ASSET_SUBJECT_TYPE, reference: assetSubjectReference(a.profile, a.id) }),
  },
  IssueSubject: {
    __resolveReference: (ref: { type: string; reference: string }) => ref,
    assetReference: (s) => (s.type === ASSET_SUBJECT_TYPE ? parseAssetSubjectReference(s.reference) : null),
  },
  AssetReference: {
    asset: (r, _args, ctx) =>
      isAuthenticated(ctx.identity) ? ctx.loaders.asset.load({ profile: r.profile, id: r.id }) : null,
  },
  AssetRelationship: {
    __resolveType: (r) => r.__typename,
  },
  GeoJSONGeometryInterface: {
    __resolveType: (g) => `GeoJSON${String(g.type)}` as never,
  },
  GeoJSONPoint: { bbox: (g) => bboxOf(g) },
  GeoJSONMultiPoint: { bbox: (g) => bboxOf(g) },
  GeoJSONLineString: { bbox: (g) => bboxOf(g) },
  GeoJSONMultiLineString: { bbox: (g) => bboxOf(g) },
  GeoJSONPolygon: { bbox: (g) => bboxOf(g) },
  GeoJSONMultiPolygon: { bbox: (g) => bboxOf(g) },
  GeoJSONGeometryCollection: { bbox: (g) => bboxOf(g) },
};

import { GraphQLError } from 'graphql';
import type { AssetErrorType, Resolvers } from '../../__generated__/assets.ts';
import {
  type Connection,
  decodeCursor,
  encodeCursor,
  forwardConnection,
  pageSize,
} from '../../shared/cursors.ts';
import { unauthenticated } from '../../shared/errors.ts';
import { isAuthenticated } from '../../shared/identity.ts';
import { type AssetRow, listAssets, listProfiles } from './assets.repository.ts';
import type { AssetsContext } from './context.ts';
import { conversionsOf, convertedProperties, type PropertyMapping, putConversion } from './conversions.ts';
import { MANUAL_DATASET, mergePlanOf } from './datasets/plan.ts';
import { datasetViews } from './datasets/views.ts';
import { DatasetWriteError, kyselyExec, writeUpDatasetIn } from './datasets/write.ts';
import { exportResolvers } from './exports/resolvers.ts';
import { compileFilter } from './filters/compile.ts';
import { type AssetFilterInput, FilterError, type ProfileLookup } from './filters/types.ts';
import { bboxOf } from './geometry.ts';
import { deleteAssets, upsertAssets } from './import/upsert.ts';
import { type AssetImportRow, prepareProfile, validateAsset } from './import/validate.ts';
import { lockLookupNames, lookupOf } from './lookup.ts';
import type { EffectiveProfile, ExtensionDocument } from './profiles/definition.ts';
import { displayNameOf } from './profiles/display-name.ts';
import {
  type ProfileOutcome,
  putExtension,
  removeExtension,
  updateProfile,
} from './profiles/profiles.service.ts';
import {
  createSelectionFilter,
  type FilterOutcome,
  type SubProfileInput,
  selectionFiltersOf,
  updateSelectionFilter,
} from './selection-filters.ts';
import { type MapInput, MEDIA_TYPES, putLayout, putView, viewsOf, type WidgetInput } from './views.ts';

const PROFILE_PAGE = 100;
const MAX_PROFILE_PAGE = 500;
const ASSET_PAGE = 100;
/** The largest page of assets (docs/schema.md); larger requests get a clear error. */
export const MAX_ASSET_PAGE = 1000;
/** The most assets one upsertAssets or deleteAssets call takes (docs/schema.md). */
export const MAX_WRITE_BATCH = 1000;

/** The subject type under which issues point at assets. */
export const ASSET_SUBJECT_TYPE = 'asset';

export function assetSubjectReference(profile: string, id: string): string {
  return `${encodeURIComponent(profile)}/${encodeURIComponent(id)}`;
}

export function parseAssetSubjectReference(reference: string): { profile: string; id: string } | null {
  const parts = reference.split('/');
  if (parts.length !== 2 || !parts[0] || !parts[1]) return null;
  try {
    return { profile: decodeURIComponent(parts[0]), id: decodeURIComponent(parts[1]) };
  } catch {
    return null;
  }
}

function tenant(ctx: AssetsContext) {
  if (!isAuthenticated(ctx.identity)) throw unauthenticated();
  return ctx.identity;
}

interface AssetArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
  filter?: unknown;
}

/** Every profile of the caller's group: relationship predicates may reach any of them. */
async function allProfiles(ctx: AssetsContext): Promise<Map<string, EffectiveProfile>> {
  const { userGroup } = tenant(ctx);
  const names = await ctx.db
    .selectFrom('asset_profiles')
    .select('profile')
    .where('user_group', '=', userGroup)
    .execute();
  const loaded = await ctx.loaders.profile.loadMany(names.map((n) => n.profile));
  return new Map(
    loaded
      .filter((p): p is EffectiveProfile => p !== null && !(p instanceof Error))
      .map((p) => [p.profile, p]),
  );
}

async function filterMutation(
  ctx: AssetsContext,
  correlationId: string | null | undefined,
  change: (group: string, username: string, profiles: ProfileLookup) => Promise<FilterOutcome>,
) {
  const cid = correlationId ?? ctx.requestId;
  if (!isAuthenticated(ctx.identity)) {
    return {
      assetFilter: null,
      correlationId: cid,
      errors: [{ type: 'UNAUTHENTICATED' as const, message: 'Sign in to save asset filters.' }],
    };
  }
  const all = await allProfiles(ctx);
  const outcome = await change(ctx.identity.userGroup, ctx.identity.username, (n) => all.get(n) ?? null);
  if (!outcome.ok)
    return {
      assetFilter: null,
      correlationId: cid,
      errors: [{ type: outcome.type, message: outcome.message }],
    };
  return { assetFilter: outcome.row, correlationId: cid, errors: [] };
}

/**
 * Compiles an AssetFilter for `profile`; an invalid one is a BAD_USER_INPUT error naming the
 * offending path. Relationship predicates may reach any profile of the group, so all load.
 */
async function compiledFilter(ctx: AssetsContext, profile: string, filter: unknown) {
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

async function assetConnection(
  ctx: AssetsContext,
  profile: string,
  args: AssetArgs,
): Promise<Connection<AssetRow>> {
  const { userGroup } = tenant(ctx);
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
  const rows = await listAssets(ctx.db, userGroup, profile, { limit, after, before, backwards }, where);
  for (const r of rows) ctx.loaders.asset.prime({ profile: r.profile, id: r.id }, r);
  if (!backwards) return forwardConnection(rows, limit, (r) => [r.id], after !== undefined);
  const page = rows.slice(0, limit).reverse();
  const edges = page.map((node) => ({ cursor: encodeCursor([node.id]), node }));
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

/** Properties with the profile's defaults filled in where the asset has no value. */
function withDefaults(profile: EffectiveProfile | null, properties: Record<string, unknown>) {
  if (!profile) return properties;
  let out = properties;
  for (const def of profile.properties) {
    if (
      def.default !== undefined &&
      def.default !== null &&
      (out[def.name] === undefined || out[def.name] === null)
    ) {
      if (out === properties) out = { ...properties };
      out[def.name] = def.default;
    }
  }
  return out;
}

async function profileOf(ctx: AssetsContext, asset: AssetRow) {
  return ctx.loaders.profile.load(asset.profile);
}

/** The failed shape of upsertAssets and deleteAssets: no payload, one typed error. */
const writeFailure = (correlationId: string) => (type: AssetErrorType, message: string) => ({
  assets: null,
  inserted: 0,
  updated: 0,
  deleted: 0,
  correlationId,
  errors: [{ type, message }],
});

const missingInput = { ok: false as const, type: 'INVALID_INPUT' as const, message: 'input is required.' };

/** Runs a profile change and shapes its result (spec §7.2: errors as data, payload null on failure). */
async function profileMutation(
  ctx: AssetsContext,
  profile: string | null,
  change: (group: string) => Promise<ProfileOutcome>,
) {
  const correlationId = ctx.requestId;
  if (!isAuthenticated(ctx.identity)) {
    return {
      assetProfile: null,
      correlationId,
      errors: [{ type: 'UNAUTHENTICATED' as const, message: 'Sign in to change profiles.' }],
    };
  }
  const outcome = await change(ctx.identity.userGroup);
  if (!outcome.ok)
    return { assetProfile: null, correlationId, errors: [{ type: outcome.type, message: outcome.message }] };
  if (profile) ctx.loaders.profile.clear(profile);
  return {
    assetProfile: profile ? await ctx.loaders.profile.load(profile) : null,
    correlationId,
    errors: [],
  };
}

export const resolvers: Resolvers = {
  Query: {
    assetProfiles: (_root, _args, ctx) => {
      tenant(ctx);
      return {};
    },
    assets: async (_root, { profile }, ctx) => {
      tenant(ctx);
      return (await ctx.loaders.profile.load(profile)) ? { profile } : null;
    },
    assetFilters: async (_root, _args, ctx) => selectionFiltersOf(ctx.db, tenant(ctx).userGroup),
    assetFilter: async (_root, { id }, ctx) =>
      (await selectionFiltersOf(ctx.db, tenant(ctx).userGroup, [id]))[0] ?? null,
    assetFilterDownloads: exportResolvers.assetFilterDownloads,
  },
  Mutation: {
    updateAssetProfile: (_root, { input }, ctx) =>
      profileMutation(ctx, input?.profile ?? null, (group) =>
        input ? updateProfile(ctx.db, group, input) : Promise.resolve(missingInput),
      ),
    putAssetProfileExtension: (_root, { input }, ctx) =>
      profileMutation(ctx, input.profile, (group) =>
        putExtension(ctx.db, group, input.profile, input.extension, {
          properties: (input.properties ?? undefined) as ExtensionDocument['properties'],
          relationships: (input.relationships ?? undefined) as ExtensionDocument['relationships'],
          propertyMaps: input.propertyMaps ?? undefined,
        }),
      ),
    removeAssetProfileExtension: (_root, { input }, ctx) =>
      profileMutation(ctx, input.profile, (group) =>
        removeExtension(ctx.db, group, input.profile, input.extension),
      ),
    updateAssetProfileViewConfiguration: async (_root, { input }, ctx) => {
      const correlationId = ctx.requestId;
      if (!isAuthenticated(ctx.identity)) {
        return {
          viewConfiguration: null,
          correlationId,
          errors: [{ type: 'UNAUTHENTICATED' as const, message: 'Sign in to edit views.' }],
        };
      }
      const all = await allProfiles(ctx);
      const outcome = await putView(
        ctx.db,
        ctx.identity.userGroup,
        ctx.identity.username,
        { ...input, map: input.map as MapInput | null | undefined },
        (n) => all.get(n) ?? null,
      );
      if (!outcome.ok)
        return {
          viewConfiguration: null,
          correlationId,
          errors: [{ type: outcome.type, message: outcome.message }],
        };
      return { viewConfiguration: outcome.row, correlationId, errors: [] };
    },
    updateAssetProfileViewLayout: async (_root, { input }, ctx) => {
      const correlationId = ctx.requestId;
      const failed = (type: AssetErrorType, message: string) => ({
        layout: null,
        viewConfiguration: null,
        correlationId,
        errors: [{ type, message }],
      });
      if (!isAuthenticated(ctx.identity)) return failed('UNAUTHENTICATED', 'Sign in to edit views.');
      if (!input) return failed('INVALID_INPUT', 'input is required.');
      const outcome = await putLayout(ctx.db, ctx.identity.userGroup, ctx.identity.username, {
        ...input,
        widgets: input.widgets as WidgetInput[],
      });
      if (!outcome.ok) return failed(outcome.type, outcome.message);
      const row = outcome.row!;
      return {
        layout: { mediaType: input.mediaType, widgets: row.layouts[input.mediaType] ?? [] },
        viewConfiguration: row,
        correlationId,
        errors: [],
      };
    },
    updateAssetProfileAssetConversionConfiguration: async (_root, { input }, ctx) => {
      const correlationId = ctx.requestId;
      if (!isAuthenticated(ctx.identity)) {
        return {
          assetConversionConfiguration: null,
          correlationId,
          errors: [{ type: 'UNAUTHENTICATED' as const, message: 'Sign in to edit conversions.' }],
        };
      }
      const all = await allProfiles(ctx);
      const outcome = await putConversion(
        ctx.db,
        ctx.identity.userGroup,
        ctx.identity.username,
        { ...input, propertyMappings: input.propertyMappings as PropertyMapping[] | null | undefined },
        (n) => all.get(n) ?? null,
      );
      if (!outcome.ok) {
        return {
          assetConversionConfiguration: null,
          correlationId,
          errors: [{ type: outcome.type, message: outcome.message }],
        };
      }
      return { assetConversionConfiguration: outcome.row, correlationId, errors: [] };
    },
    upsertAssets: async (_root, { input, correlationId }, ctx) => {
      const cid = correlationId ?? ctx.requestId;
      const fail = writeFailure(cid);
      if (!isAuthenticated(ctx.identity)) return fail('UNAUTHENTICATED', 'Sign in to write assets.');
      if (input.assets.length > MAX_WRITE_BATCH) {
        return fail(
          'INVALID_INPUT',
          `At most ${MAX_WRITE_BATCH} assets per call; use assetql import for more.`,
        );
      }
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
        if (checked.ok) rows.push(checked.row);
        else problems.push(...checked.errors.map((e) => `assets[${i}]: ${e}`));
      }
      if (problems.length) return fail('INVALID_INPUT', problems.slice(0, 20).join('; '));
      let result: Awaited<ReturnType<typeof upsertAssets>>;
      try {
        result = await upsertAssets(ctx.database, ctx.identity.userGroup, input.profile, rows, {
          method: 'insert',
          profile,
        });
      } catch (e) {
        if (!(e instanceof DatasetWriteError)) throw e;
        return fail('INVALID_INPUT', e.message);
      }
      for (const r of rows) ctx.loaders.asset.clear({ profile: input.profile, id: r.id });
      const stored = await ctx.loaders.asset.loadMany(
        rows.map((r) => ({ profile: input.profile, id: r.id })),
      );
      return {
        assets: stored.filter((a): a is AssetRow => a !== null && !(a instanceof Error)),
        inserted: result.inserted,
        updated: result.updated,
        deleted: 0,
        correlationId: cid,
        errors: [],
      };
    },
    deleteAssets: async (_root, { input, correlationId }, ctx) => {
      const cid = correlationId ?? ctx.requestId;
      const fail = writeFailure(cid);
      if (!isAuthenticated(ctx.identity)) return fail('UNAUTHENTICATED', 'Sign in to delete assets.');
      if (input.ids.length > MAX_WRITE_BATCH)
        return fail('INVALID_INPUT', `At most ${MAX_WRITE_BATCH} ids per call.`);
      const profile = await ctx.loaders.profile.load(input.profile);
      if (!profile) return fail('NOT_FOUND', `There is no profile ${input.profile}.`);
      const { deleted } = await deleteAssets(
        ctx.database,
        ctx.identity.userGroup,
        input.profile,
        [...new Set(input.ids)],
        {
          hard: input.hard ?? false,
          isDeletedProperty: profile.document.isDeletedProperty,
        },
      );
      return { assets: null, inserted: 0, updated: 0, deleted, correlationId: cid, errors: [] };
    },
    createAssetFilterDownload: exportResolvers.createAssetFilterDownload,
    convertAssets: async (_root, { input, correlationId }, ctx) => {
      const fail = writeFailure(correlationId ?? ctx.requestId);
      if (!isAuthenticated(ctx.identity)) return fail('UNAUTHENTICATED', 'Sign in to convert assets.');
      if (input.ids.length > MAX_WRITE_BATCH)
        return fail('INVALID_INPUT', `At most ${MAX_WRITE_BATCH} ids per call.`);
      const group = ctx.identity.userGroup;
      const conversion = (await conversionsOf(ctx.db, group, input.profile)).find(
        (c) => c.id === input.conversion,
      );
      if (!conversion)
        return fail('NOT_FOUND', `Profile ${input.profile} has no conversion ${input.conversion}.`);
      const [source, target] = await Promise.all([
        ctx.loaders.profile.load(input.profile),
        ctx.loaders.profile.load(conversion.target_profile),
      ]);
      if (!source || !target) return fail('NOT_FOUND', 'The source or target profile no longer exists.');
      const ids = [...new Set(input.ids)];
      const assets = await ctx.loaders.asset.loadMany(ids.map((id) => ({ profile: input.profile, id })));
      const missing = ids.filter((_, i) => !assets[i] || assets[i] instanceof Error);
      if (missing.length)
        return fail('NOT_FOUND', `No ${input.profile} assets ${missing.slice(0, 20).join(', ')}.`);
      // The link back to the source: the target relationship's reference property holds the source id.
      const back = target.relationships.find((r) => r.relationship === conversion.source_relationship);
      const backReference =
        back?.referenceType === 'PROPERTY' && back.lookupType === 'ID'
          ? (back.referenceProperty ?? null)
          : null;
      const prepared = prepareProfile(target);
      const rows: AssetImportRow[] = [];
      const problems: string[] = [];
      for (const a of assets as AssetRow[]) {
        const properties = convertedProperties(
          conversion,
          { id: a.id, properties: withDefaults(source, a.properties) },
          backReference,
        );
        const checked = validateAsset(prepared, { id: a.id, properties, geometry: a.geometry ?? undefined });
        if (checked.ok) rows.push(checked.row);
        else problems.push(...checked.errors.map((e) => `${a.id}: ${e}`));
      }
      if (problems.length) return fail('INVALID_INPUT', problems.slice(0, 20).join('; '));
      // Target assets and source deletion land together or not at all.
      const existing = await ctx.db
        .selectFrom('assets')
        .select('id')
        .where('user_group', '=', group)
        .where('profile', '=', target.profile)
        .where('id', 'in', ids)
        .execute();
      const layered = mergePlanOf(target) !== null;
      await ctx.db.transaction().execute(async (trx) => {
        // A target fed by datasets takes the converted values as its manual layer.
        if (layered)
          await writeUpDatasetIn(
            kyselyExec(trx),
            group,
            target,
            MANUAL_DATASET,
            rows.map((r) => ({ id: r.id, values: r.properties, geometry: r.geometry })),
          );
        else {
          const names = await lockLookupNames(kyselyExec(trx), group, target.profile);
          await trx
            .insertInto('assets')
            .values(
              rows.map((r) => ({
                user_group: group,
                profile: target.profile,
                id: r.id,
                properties: JSON.stringify(r.properties),
                geometry: r.geometry ? JSON.stringify(r.geometry) : null,
                lookup: lookupOf(r.properties, names),
                display_name: r.display_name,
                is_deleted: r.is_deleted,
              })),
            )
            .onConflict((oc) =>
              oc.columns(['user_group', 'profile', 'id']).doUpdateSet((eb) => ({
                properties: eb.ref('excluded.properties'),
                geometry: eb.fn.coalesce('excluded.geometry', 'assets.geometry'),
                lookup: eb.ref('excluded.lookup'),
                display_name: eb.ref('excluded.display_name'),
                is_deleted: eb.ref('excluded.is_deleted'),
                modified_at: new Date(),
              })),
            )
            .execute();
        }
        if (conversion.delete_source) {
          await deleteAssets({ db: trx }, group, input.profile, ids, {
            isDeletedProperty: source.document.isDeletedProperty,
          });
        }
      });
      for (const r of rows) ctx.loaders.asset.clear({ profile: target.profile, id: r.id });
      const stored = await ctx.loaders.asset.loadMany(
        rows.map((r) => ({ profile: target.profile, id: r.id })),
      );
      return {
        assets: stored.filter((a): a is AssetRow => a !== null && !(a instanceof Error)),
        inserted: rows.length - existing.length,
        updated: existing.length,
        deleted: conversion.delete_source ? ids.length : 0,
        correlationId: correlationId ?? ctx.requestId,
        errors: [],
      };
    },
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
          },
          profiles,
        ),
      ),
  },
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
    __resolveReference: (ref: { profile: string }, ctx: AssetsContext) =>
      isAuthenticated(ctx.identity) ? ctx.loaders.profile.load(ref.profile) : null,
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
  Assets: {
    assetProfile: (a, _args, ctx) => ctx.loaders.profile.load(a.profile),
    all: (a, args, ctx) => assetConnection(ctx, a.profile, args),
    byId: (a, { id }, ctx) => ctx.loaders.asset.load({ profile: a.profile, id }),
  },
  Asset: {
    __resolveReference: (ref: { profile: string; id: string }, ctx: AssetsContext) =>
      isAuthenticated(ctx.identity) ? ctx.loaders.asset.load({ profile: ref.profile, id: ref.id }) : null,
    assetProfile: (a, _args, ctx) => profileOf(ctx, a),
    modifiedAt: (a) => a.modified_at,
    isDeleted: (a) => a.is_deleted,
    properties: async (a, { only }, ctx) => {
      const props = withDefaults(await profileOf(ctx, a), a.properties);
      if (!only) return props;
      const out: Record<string, unknown> = {};
      for (const k of only) if (k in props) out[k] = props[k];
      return out;
    },
    observation: (a) => a.observation,
    geometry: (a) => a.geometry,
    geoJSONFeature: async (a, _args, ctx) =>
      a.geometry
        ? {
            type: 'Feature',
            id: `${a.profile}/${a.id}`,
            bbox: bboxOf(a.geometry),
            geometry: a.geometry,
            properties: withDefaults(await profileOf(ctx, a), a.properties),
          }
        : null,
    displayName: async (a, _args, ctx) => {
      const p = await profileOf(ctx, a);
      return p ? displayNameOf(p.document, a.id, withDefaults(p, a.properties)) : a.id;
    },
    secondaryDisplayName: async (a, _args, ctx) => {
      const p = await profileOf(ctx, a);
      const key = p?.document.secondaryDisplayNameProperty;
      const v = key ? withDefaults(p, a.properties)[key] : undefined;
      return v === undefined || v === null ? null : String(v);
    },
    related: async (a, { relationship, params }, ctx) => {
      const p = await profileOf(ctx, a);
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
      for (const row of rows) ctx.loaders.asset.prime({ profile: row.profile, id: row.id }, row);
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
  AssetProfileViewConfiguration: {
    layouts: (v, { mediaTypes }) =>
      MEDIA_TYPES.filter((m) => (!mediaTypes || mediaTypes.includes(m)) && v.layouts[m]).map((m) => ({
        mediaType: m,
        widgets: v.layouts[m] ?? [],
      })),
  },
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
  AssetProfileAssetExport: exportResolvers.AssetProfileAssetExport,
  AssetDownload: exportResolvers.AssetDownload,
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

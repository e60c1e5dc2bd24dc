import type { MutationResolvers, Resolvers } from '../../../__generated__/assets.ts';
import { fail, mutationResult } from '../../../shared/result.ts';
import type { AssetsContext } from '../context.ts';
import { type MapInput, MEDIA_TYPES, putLayout, putView, type WidgetInput } from '../views.ts';
import { allProfiles, asCaller } from './common.ts';

export const viewMutations: MutationResolvers<AssetsContext> = {
  updateAssetProfileViewConfiguration: async (_root, { input }, ctx) => {
    const outcome = await asCaller(ctx, 'Sign in to edit views.', async (caller) => {
      const all = await allProfiles(ctx);
      return putView(
        ctx.db,
        caller.userGroup,
        caller.username,
        {
          ...input,
          map: input.map as MapInput | null | undefined,
          expectedVersion: input.ifVersion ?? input.expectedVersion,
        },
        (n) => all.get(n) ?? null,
      );
    });
    return mutationResult(ctx.requestId, outcome, (viewConfiguration) => ({ viewConfiguration }), {
      viewConfiguration: null,
    });
  },
  updateAssetProfileViewLayout: async (_root, { input }, ctx) => {
    const outcome = await asCaller(ctx, 'Sign in to edit views.', async (caller) =>
      input
        ? putLayout(ctx.db, caller.userGroup, caller.username, {
            ...input,
            widgets: input.widgets as WidgetInput[],
            expectedVersion: input.ifVersion ?? input.expectedVersion,
          })
        : fail('INVALID_INPUT', 'input is required.'),
    );
    return mutationResult(
      ctx.requestId,
      outcome,
      (row) => ({
        layout: { mediaType: input!.mediaType, widgets: row.layouts[input!.mediaType] ?? [] },
        viewConfiguration: row,
      }),
      { layout: null, viewConfiguration: null },
    );
  },
};

export const viewResolvers: Resolvers = {
  AssetProfileViewConfiguration: {
    layouts: (v, { mediaTypes }) =>
      MEDIA_TYPES.filter((m) => (!mediaTypes || mediaTypes.includes(m)) && v.layouts[m]).map((m) => ({
        mediaType: m,
        widgets: v.layouts[m] ?? [],
      })),
  },
};

import { GraphQLError } from 'graphql';
import type { ChangeActor, ChangeFilter, Resolvers } from '../../__generated__/events.ts';
import { forwardConnection, pageSize } from '../../shared/cursors.ts';
import { changeActor } from './change-json.ts';
import {
  before,
  type ChangePage,
  type ChangeRow,
  type ChangeSelection,
  horizonOf,
  listChanges,
} from './changes.repository.ts';
import type { EventsContext } from './context.ts';
import { decodePosition, encodePosition, type Position } from './cursor.ts';
import { CURSOR_EXPIRED } from './error-codes.ts';
import { StreamEnd, type StreamEvent } from './stream.ts';
import { selection, tenant } from './tenancy.ts';
import { webhookResolvers } from './webhooks/resolvers.ts';

const DEFAULT_PAGE = 50;
const MAX_PAGE = 500;

const positionOf = (r: ChangeRow) => [r.tx, r.seq];

/**
 * A page of the caller's group's log. Resuming oldest first from a cursor older than what the
 * retention job has pruned is refused (CURSOR_EXPIRED): the changes between are gone, and a
 * reader must learn that rather than miss them silently.
 */
/** Refused: a cursor older than what retention kept (the entries between are gone). */
async function notExpired(ctx: EventsContext, group: string, after: Position): Promise<void> {
  const horizon = await horizonOf(ctx.db, group);
  if (horizon && before(after, horizon))
    throw new GraphQLError(
      'The cursor is older than the change log keeps; read the log again from its start.',
      {
        extensions: { code: CURSOR_EXPIRED },
      },
    );
}

async function page(
  ctx: EventsContext,
  args: { first?: number | null; after?: string | null },
  order: ChangePage['order'],
  chosen: ChangeSelection,
) {
  const { userGroup } = tenant(ctx);
  const limit = pageSize(args.first, DEFAULT_PAGE, MAX_PAGE);
  const after = args.after != null ? decodePosition(args.after) : undefined;
  if (after && order === 'OLDEST_FIRST') await notExpired(ctx, userGroup, after);
  const rows = await listChanges(ctx.db, userGroup, chosen, { order, after, limit });
  return forwardConnection(rows, limit, positionOf, after !== undefined);
}

/**
 * A live stream of the caller's group's changes: after `after`, or after the SSE `Last-Event-ID`
 * the client resumed with (the argument wins), or from now.
 */
async function stream(
  ctx: EventsContext,
  filter: ChangeFilter | null | undefined,
  after: string | null | undefined,
): Promise<AsyncIterableIterator<StreamEvent>> {
  const identity = tenant(ctx);
  const chosen = selection(filter);
  const resume = after ?? ctx.lastEventId ?? undefined;
  const position = resume ? decodePosition(resume) : undefined;
  if (position) await notExpired(ctx, identity.userGroup, position);
  return ctx.feed.open(identity, chosen, position, ctx.signal);
}

const own: Resolvers = {
  Subscription: {
    changes: {
      subscribe: (
        _root: unknown,
        { filter, after }: { filter?: ChangeFilter | null; after?: string | null },
        ctx: EventsContext,
      ) => stream(ctx, filter, after) as never,
      // Each event is an entry of the log, or the error the stream ends with.
      resolve: (event: StreamEvent) => {
        if (event instanceof StreamEnd) throw event.error;
        return event;
      },
    },
  },
  Query: {
    changes: (_root, { filter, first, after, order }, ctx) =>
      page(ctx, { first, after }, order ?? 'NEWEST_FIRST', selection(filter)),
  },
  Asset: {
    history: (asset, args, ctx) =>
      page(ctx, args, 'NEWEST_FIRST', { entities: ['ASSET'], profiles: [asset.profile], ids: [asset.id] }),
  },
  AssetProfile: {
    history: (profile, args, ctx) =>
      page(ctx, args, 'NEWEST_FIRST', {
        entities: ['ASSET_PROFILE', 'ASSET_PROFILE_EXTENSION'],
        profiles: [profile.profile],
      }),
  },
  Change: {
    cursor: (r) => encodePosition(r),
    entity: (r) => r.entity as never,
    kind: (r) => r.kind as never,
    profile: (r) => (r.profile === '' ? null : r.profile),
    entityId: (r) => (r.entity_id === '' ? null : r.entity_id),
    actor: (r) => changeActor(r) as ChangeActor | null,
    correlationId: (r) => r.correlation_id,
    asset: (r) =>
      r.entity === 'ASSET' ? { __typename: 'Asset', profile: r.profile, id: r.entity_id } : null,
  },
};

/** The log's resolvers and the webhooks' (webhooks/resolvers.ts), one map per type. */
export const resolvers: Resolvers = {
  ...own,
  ...webhookResolvers,
  Query: { ...own.Query, ...webhookResolvers.Query },
};

import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { sql } from 'kysely';
import type { ChangeFilter, Resolvers, WebhookErrorType } from '../../../__generated__/events.ts';
import { forwardConnection, pageSize } from '../../../shared/cursors.ts';
import { isAuthenticated } from '../../../shared/identity.ts';
import { seal } from '../../../shared/sealed.ts';
import { type ChangeRow, type ChangeSelection, tailOf } from '../changes.repository.ts';
import type { EventsContext } from '../context.ts';
import { decodePosition, encodePosition } from '../cursor.ts';
import { selection, tenant } from '../tenancy.ts';
import { checkUrl, isPublic, OutboundRefusal } from './outbound.ts';
import {
  attemptsOf,
  deleteWebhook,
  deliveriesOf,
  insertWebhook,
  listWebhooks,
  redeliver,
  updateWebhook,
} from './repository.ts';

const failure = (ctx: EventsContext, type: WebhookErrorType, message: string) => ({
  webhook: null,
  secret: null,
  delivery: null,
  correlationId: ctx.requestId,
  errors: [{ type, message }],
});

/**
 * A webhook URL as it may be saved: its own checks, and its host resolving only to public
 * addresses unless allow-listed (checked again before every attempt, on the address connected to).
 */
async function savedUrl(ctx: EventsContext, text: string): Promise<string> {
  const url = checkUrl(text);
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  if (ctx.webhooks.settings.allowedHosts.some((h) => [host, `${host}:${port}`].includes(h.toLowerCase())))
    return url.href;
  // One refusal whatever the reason (no such name, a private address): a tenant learns nothing of
  // the names inside. A resolver that does not answer is given up on.
  const refused = new OutboundRefusal(`${host} is not an address webhooks may reach`);
  let timer: NodeJS.Timeout | undefined;
  const addresses = isIP(host)
    ? [host]
    : await Promise.race([
        lookup(host, { all: true }).then(
          (all) => all.map((a) => a.address),
          () => [],
        ),
        new Promise<string[]>((resolve) => {
          timer = setTimeout(() => resolve([]), LOOKUP_TIMEOUT_MS);
        }),
      ]).finally(() => clearTimeout(timer));
  if (addresses.length === 0 || addresses.some((a) => !isPublic(a))) throw refused;
  return url.href;
}

/** How long a webhook's host may take to resolve when it is made. */
const LOOKUP_TIMEOUT_MS = 3_000;

/** A filter as saved: the change filter's lists, within their bound. */
function savedFilter(filter: ChangeFilter | null | undefined): ChangeSelection {
  return selection(filter);
}

const tooMany = (ctx: EventsContext) =>
  failure(
    ctx,
    'TOO_MANY_WEBHOOKS',
    `A group may have at most ${ctx.webhooks.settings.maxPerGroup} webhooks; delete one first.`,
  );

/** A mutation's refusal of a caller who is not signed in, as the schema's other mutations answer it. */
const signInFirst = (ctx: EventsContext) =>
  failure(ctx, 'UNAUTHENTICATED', 'Sign in (or use an API key) to manage webhooks.');

const DEFAULT_PAGE = 50;
/** Each delivery may read its change and attempts: a page is kept small. */
const MAX_PAGE = 100;

export const webhookResolvers: Resolvers = {
  Query: {
    webhooks: (_root, _args, ctx) => listWebhooks(ctx.db, tenant(ctx).userGroup),
    change: async (_root, { cursor }, ctx) => {
      const { userGroup } = tenant(ctx);
      const at = decodePosition(cursor);
      const { rows } = await sql<ChangeRow>`
        select tx::text as tx, seq::text as seq, at, entity, profile, entity_id, kind, version, actor_kind, actor,
               actor_key, correlation_id, patch, before, after
        from changes where user_group = ${userGroup} and tx = ${at.tx}::xid8 and seq = ${at.seq}::bigint`.execute(
        ctx.db,
      );
      return rows[0] ?? null;
    },
  },
  Mutation: {
    createWebhook: async (_root, { input }, ctx) => {
      if (!isAuthenticated(ctx.identity)) return signInFirst(ctx);
      const { userGroup, username } = ctx.identity;
      let url: string;
      let filter: ChangeSelection;
      try {
        filter = savedFilter(input.filter);
      } catch (e) {
        return failure(ctx, 'BAD_FILTER', (e as Error).message);
      }
      // The bound first: resolving a name costs a lookup.
      if ((await listWebhooks(ctx.db, userGroup)).length >= ctx.webhooks.settings.maxPerGroup)
        return tooMany(ctx);
      try {
        url = await savedUrl(ctx, input.url);
      } catch (e) {
        if (!(e instanceof OutboundRefusal)) throw e;
        return failure(ctx, 'INVALID_URL', `The URL cannot receive webhooks: ${e.message}.`);
      }
      const secret = `whsec_${randomBytes(24).toString('base64')}`;
      const made = await insertWebhook(
        ctx.db,
        {
          group: userGroup,
          url,
          description: input.description ?? null,
          filter,
          secret: seal(ctx.webhooks.key, secret),
          createdBy: username,
          from: (await tailOf(ctx.db, userGroup)) ?? { tx: '0', seq: '0' },
        },
        ctx.webhooks.settings.maxPerGroup,
      );
      if (made === 'too-many') return tooMany(ctx);
      return { webhook: made, secret, correlationId: ctx.requestId, errors: [] };
    },
    updateWebhook: async (_root, { input }, ctx) => {
      if (!isAuthenticated(ctx.identity)) return signInFirst(ctx);
      const { userGroup } = ctx.identity;
      const change: Parameters<typeof updateWebhook>[3] = {};
      if (input.url != null) {
        try {
          change.url = await savedUrl(ctx, input.url);
        } catch (e) {
          if (!(e instanceof OutboundRefusal)) throw e;
          return failure(ctx, 'INVALID_URL', `The URL cannot receive webhooks: ${e.message}.`);
        }
      }
      if (input.filter !== undefined) {
        try {
          change.filter = savedFilter(input.filter);
        } catch (e) {
          return failure(ctx, 'BAD_FILTER', (e as Error).message);
        }
      }
      if (input.description !== undefined) change.description = input.description;
      if (input.enabled != null) change.enabled = input.enabled;
      const updated = await updateWebhook(
        ctx.db,
        userGroup,
        uuidOr(input.id),
        change,
        input.ifVersion ?? undefined,
      );
      if (updated === 'not-found') return failure(ctx, 'NOT_FOUND', 'No webhook of this group has that id.');
      if (updated === 'conflict')
        return failure(ctx, 'VERSION_CONFLICT', `The webhook is no longer at version ${input.ifVersion}.`);
      ctx.webhooks.wake();
      return { webhook: updated, secret: null, correlationId: ctx.requestId, errors: [] };
    },
    deleteWebhook: async (_root, { input }, ctx) => {
      if (!isAuthenticated(ctx.identity)) return signInFirst(ctx);
      const { userGroup } = ctx.identity;
      const gone = await deleteWebhook(ctx.db, userGroup, uuidOr(input.id));
      if (!gone) return failure(ctx, 'NOT_FOUND', 'No webhook of this group has that id.');
      return { webhook: gone, secret: null, correlationId: ctx.requestId, errors: [] };
    },
    redeliverWebhook: async (_root, { input }, ctx) => {
      if (!isAuthenticated(ctx.identity)) return signInFirst(ctx);
      const { userGroup } = ctx.identity;
      const again = await redeliver(ctx.db, userGroup, uuidOr(input.deliveryId));
      if (!again) return failure(ctx, 'NOT_FOUND', 'No delivery of this group has that id.');
      if (again === 'busy')
        return failure(
          ctx,
          'DELIVERY_BUSY',
          'The delivery is pending already, or has had as many attempts as a delivery may.',
        );
      ctx.webhooks.wake();
      return { delivery: again, correlationId: ctx.requestId, errors: [] };
    },
  },
  Webhook: {
    filter: (w) => w.filter as never,
    disabledReason: (w) => w.disabled_reason,
    createdAt: (w) => w.created_at,
    createdBy: (w) => w.created_by,
    deliveries: async (w, args, ctx) => {
      const limit = pageSize(args.first, DEFAULT_PAGE, MAX_PAGE);
      const after = args.after != null ? decodePosition(args.after) : undefined;
      const rows = await deliveriesOf(ctx.db, w.user_group, w.id, after, limit);
      return forwardConnection(rows, limit, (d) => [d.tx, d.seq], after !== undefined);
    },
  },
  WebhookDelivery: {
    cursor: (d) => encodePosition(d),
    change: async (d, _args, ctx) => {
      const { rows } = await sql<ChangeRow>`
        select tx::text as tx, seq::text as seq, at, entity, profile, entity_id, kind, version, actor_kind, actor,
               actor_key, correlation_id, patch, before, after
        from changes where user_group = ${d.user_group} and tx = ${d.tx}::xid8 and seq = ${d.seq}::bigint`.execute(
        ctx.db,
      );
      return rows[0] ?? null;
    },
    attempts: (d, _args, ctx) => attemptsOf(ctx.db, d.user_group, d.id),
    nextAttemptAt: (d) => (d.status === 'PENDING' ? d.next_attempt_at : null),
    createdAt: (d) => d.created_at,
  },
  WebhookAttempt: {
    durationMs: (a) => a.duration_ms,
  },
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An id that is not a UUID names nothing: the nil UUID, which no row has. */
function uuidOr(id: string): string {
  return UUID.test(id) ? id : '00000000-0000-0000-0000-000000000000';
}

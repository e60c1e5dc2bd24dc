import { type Kysely, type Selectable, sql, type Transaction } from 'kysely';
import type {
  Tables,
  WebhookAttemptsTable,
  WebhookDeliveriesTable,
  WebhooksTable,
} from '../../../storage/tables.ts';
import type { ChangeRow, ChangeSelection } from '../changes.repository.ts';
import type { Position } from '../cursor.ts';

export type WebhookRow = Selectable<WebhooksTable>;
export type DeliveryRow = Selectable<WebhookDeliveriesTable>;
export type AttemptRow = Selectable<WebhookAttemptsTable>;

const WEBHOOK = sql.raw(
  'user_group, id, url, description, filter, secret, enabled, disabled_reason, failing_since, tx::text as tx, seq::text as seq, start_snapshot::text as start_snapshot, version, created_by, created_at',
);
const DELIVERY = sql.raw(
  'user_group, id, webhook_id, tx::text as tx, seq::text as seq, status, attempts, next_attempt_at, created_at',
);

export async function listWebhooks(db: Kysely<Tables>, group: string): Promise<WebhookRow[]> {
  const { rows } = await sql<WebhookRow>`
    select ${WEBHOOK} from webhooks where user_group = ${group} order by created_at, id`.execute(db);
  return rows;
}

export async function findWebhook(
  db: Kysely<Tables>,
  group: string,
  id: string,
): Promise<WebhookRow | undefined> {
  const { rows } = await sql<WebhookRow>`
    select ${WEBHOOK} from webhooks where user_group = ${group} and id = ${id}::uuid`.execute(db);
  return rows[0];
}

export interface NewWebhook {
  group: string;
  url: string;
  description: string | null;
  filter: ChangeSelection;
  secret: string;
  createdBy: string;
  /** Deliveries are made for the changes after it: the log's end as the webhook is made. */
  from: Position;
}

/**
 * Makes a webhook unless its group has `max` already; the count and the insert under one lock
 * of the group's webhooks, so that writers at once cannot pass the bound together.
 */
export async function insertWebhook(
  db: Kysely<Tables>,
  w: NewWebhook,
  max: number,
): Promise<WebhookRow | 'too-many'> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext('webhooks'), hashtext(${w.group}))`.execute(trx);
    const { rows: counted } = await sql<{ n: number }>`
      select count(*)::int as n from webhooks where user_group = ${w.group}`.execute(trx);
    if ((counted[0]?.n ?? 0) >= max) return 'too-many';
    const { rows } = await sql<WebhookRow>`
      insert into webhooks (user_group, url, description, filter, secret, created_by, tx, seq, start_snapshot)
      values (${w.group}, ${w.url}, ${w.description}, ${JSON.stringify(w.filter)}::jsonb, ${w.secret},
              ${w.createdBy}, ${w.from.tx}::xid8, ${w.from.seq}::bigint, pg_current_snapshot())
      returning ${WEBHOOK}`.execute(trx);
    return rows[0]!;
  });
}

export interface WebhookChange {
  url?: string;
  description?: string | null;
  filter?: ChangeSelection;
  enabled?: boolean;
}

/** Applies `change` at version `ifVersion` (any version without); re-enabling clears the failure. */
export async function updateWebhook(
  db: Kysely<Tables>,
  group: string,
  id: string,
  change: WebhookChange,
  ifVersion: number | undefined,
): Promise<WebhookRow | 'not-found' | 'conflict'> {
  const sets = [sql`version = version + 1`];
  if (change.url !== undefined) sets.push(sql`url = ${change.url}`);
  if (change.description !== undefined) sets.push(sql`description = ${change.description}`);
  if (change.filter !== undefined) sets.push(sql`filter = ${JSON.stringify(change.filter)}::jsonb`);
  if (change.enabled !== undefined) {
    sets.push(sql`enabled = ${change.enabled}`);
    if (change.enabled) sets.push(sql`disabled_reason = null, failing_since = null`);
    else sets.push(sql`disabled_reason = 'disabled by a user'`);
  }
  const { rows } = await sql<WebhookRow>`
    update webhooks set ${sql.join(sets, sql`, `)}
    where user_group = ${group} and id = ${id}::uuid
      ${ifVersion === undefined ? sql`` : sql`and version = ${ifVersion}`}
    returning ${WEBHOOK}`.execute(db);
  if (rows[0]) return rows[0];
  return (await findWebhook(db, group, id)) ? 'conflict' : 'not-found';
}

export async function deleteWebhook(
  db: Kysely<Tables>,
  group: string,
  id: string,
): Promise<WebhookRow | undefined> {
  const { rows } = await sql<WebhookRow>`
    delete from webhooks where user_group = ${group} and id = ${id}::uuid returning ${WEBHOOK}`.execute(db);
  return rows[0];
}

/** A webhook's deliveries, newest change first (one delivery per change), after `after`'s change. */
export async function deliveriesOf(
  db: Kysely<Tables>,
  group: string,
  webhookId: string,
  after: Position | undefined,
  limit: number,
): Promise<DeliveryRow[]> {
  const { rows } = await sql<DeliveryRow>`
    select ${DELIVERY} from webhook_deliveries
    where user_group = ${group} and webhook_id = ${webhookId}::uuid
      ${after ? sql`and (tx, seq) < (${after.tx}::xid8, ${after.seq}::bigint)` : sql``}
    order by webhook_deliveries.tx desc, webhook_deliveries.seq desc limit ${limit + 1}`.execute(db);
  return rows;
}

export async function attemptsOf(
  db: Kysely<Tables>,
  group: string,
  deliveryId: string,
): Promise<AttemptRow[]> {
  return db
    .selectFrom('webhook_attempts')
    .selectAll()
    .where('user_group', '=', group)
    .where('delivery_id', '=', deliveryId)
    .orderBy('attempt', 'desc')
    .limit(50)
    .execute();
}

/** The most attempts one delivery may have, redeliveries included. */
export const MAX_ATTEMPTS = 50;

/**
 * Sends a delivery again, now: pending, its attempts counted on. Not one that is pending already
 * (an attempt may be under way), nor one that has had {@link MAX_ATTEMPTS}: 'busy' then.
 */
export async function redeliver(
  db: Kysely<Tables>,
  group: string,
  id: string,
): Promise<DeliveryRow | 'busy' | undefined> {
  const { rows } = await sql<DeliveryRow>`
    update webhook_deliveries set status = 'PENDING', next_attempt_at = now()
    where user_group = ${group} and id = ${id}::uuid and status <> 'PENDING' and attempts < ${MAX_ATTEMPTS}
    returning ${DELIVERY}`.execute(db);
  if (rows[0]) return rows[0];
  const { rows: found } = await sql`
    select 1 from webhook_deliveries where user_group = ${group} and id = ${id}::uuid`.execute(db);
  return found.length ? 'busy' : undefined;
}

/** Deletes deliveries (and their attempts) made before `cutoff`, at most `batch`; how many went. */
export async function pruneDeliveries(db: Kysely<Tables>, cutoff: Date, batch: number): Promise<number> {
  const { rows } = await sql<{ n: number }>`
    with gone as (
      delete from webhook_deliveries
      where ctid = any(array(select ctid from webhook_deliveries where created_at < ${cutoff} limit ${batch}))
      returning 1
    ) select count(*)::int as n from gone`.execute(db);
  return rows[0]?.n ?? 0;
}

/** Whether any group has an enabled webhook. */
export async function anyWebhook(db: Kysely<Tables>): Promise<boolean> {
  const { rows } = await sql<{
    any: boolean;
  }>`select exists(select 1 from webhooks where enabled) as any`.execute(db);
  return rows[0]?.any ?? false;
}

/** When the next pending delivery is due, if one is. */
export async function nextDue(db: Kysely<Tables>): Promise<Date | undefined> {
  const { rows } = await sql<{ at: Date | null }>`
    select min(next_attempt_at) as at from webhook_deliveries where status = 'PENDING'`.execute(db);
  return rows[0]?.at ?? undefined;
}

/** The groups with an enabled webhook: those whose log the dispatcher reads. */
export async function groupsWithWebhooks(db: Kysely<Tables>): Promise<string[]> {
  const { rows } = await sql<{ user_group: string }>`
    select distinct user_group from webhooks where enabled`.execute(db);
  return rows.map((r) => r.user_group);
}

/** The group's enabled webhooks, locked for the transaction that moves their positions. */
export async function lockWebhooks(
  trx: Transaction<Tables>,
  group: string,
): Promise<WebhookRow[] | undefined> {
  const { rows: got } = await sql<{ locked: boolean }>`
    select pg_try_advisory_xact_lock(hashtext('webhook deliveries'), hashtext(${group})) as locked`.execute(
    trx,
  );
  if (!got[0]?.locked) return undefined;
  const { rows } = await sql<WebhookRow>`
    select ${WEBHOOK} from webhooks where user_group = ${group} and enabled order by id for update`.execute(
    trx,
  );
  return rows;
}

/** Queues one delivery per (webhook, change) and moves each webhook's position to `to`. */
export async function queueDeliveries(
  trx: Transaction<Tables>,
  group: string,
  queued: { webhookId: string; change: ChangeRow }[],
  moved: { webhookId: string; to: Position }[],
): Promise<void> {
  if (queued.length)
    await sql`
      insert into webhook_deliveries (user_group, webhook_id, tx, seq, next_attempt_at)
      select ${group}, w, t::xid8, s::bigint, now()
      from unnest(${queued.map((q) => q.webhookId)}::uuid[], ${queued.map((q) => q.change.tx)}::text[],
                  ${queued.map((q) => q.change.seq)}::text[]) as q(w, t, s)`.execute(trx);
  for (const m of moved)
    await sql`
      update webhooks set tx = ${m.to.tx}::xid8, seq = ${m.to.seq}::bigint
      where user_group = ${group} and id = ${m.webhookId}::uuid`.execute(trx);
}

export interface Due {
  delivery: DeliveryRow;
  webhook: WebhookRow;
  change: ChangeRow | undefined;
}

/**
 * Takes up to `limit` deliveries that are due, for `leaseMs` (another process takes them only
 * once the lease has run out: a process that died mid-attempt loses nothing), with their
 * webhook and their change.
 */
export async function claimDue(
  db: Kysely<Tables>,
  limit: number,
  leaseMs: number,
  perGroup: number,
  full: readonly string[],
): Promise<Due[]> {
  // At most `perGroup` of one group, none of the groups already `full`: one group's backlog does
  // not take every slot.
  const { rows } = await sql<DeliveryRow>`
    update webhook_deliveries d set next_attempt_at = now() + ${`${leaseMs} milliseconds`}::interval
    where (user_group, id) in (
      select user_group, id from (
        select user_group, id, next_attempt_at,
               row_number() over (partition by user_group order by next_attempt_at) as nth
        from (select user_group, id, next_attempt_at from webhook_deliveries
              where status = 'PENDING' and next_attempt_at <= now() and user_group <> all(${full}::text[])
              order by next_attempt_at limit ${limit * 20} for update skip locked) due
      ) ranked
      where nth <= ${perGroup} order by next_attempt_at limit ${limit})
    returning ${DELIVERY}`.execute(db);
  if (rows.length === 0) return [];
  // Their webhooks and changes, in one statement each.
  const { rows: webhooks } = await sql<WebhookRow>`
    select ${WEBHOOK} from webhooks
    where (user_group, id) in (select * from unnest(${rows.map((d) => d.user_group)}::text[], ${rows.map((d) => d.webhook_id)}::uuid[]))`.execute(
    db,
  );
  const { rows: changes } = await sql<ChangeRow>`
    select user_group, tx::text as tx, seq::text as seq, at, entity, profile, entity_id, kind, version, actor_kind,
           actor, actor_key, correlation_id, patch, before, after
    from changes
    where (user_group, tx, seq) in (
      select * from unnest(${rows.map((d) => d.user_group)}::text[], ${rows.map((d) => d.tx)}::xid8[], ${rows.map((d) => d.seq)}::bigint[]))`.execute(
    db,
  );
  const webhookOf = new Map(webhooks.map((w) => [`${w.user_group}\0${w.id}`, w]));
  const changeOf = new Map(changes.map((c) => [`${c.user_group}\0${c.tx}\0${c.seq}`, c]));
  const out: Due[] = [];
  for (const delivery of rows) {
    const webhook = webhookOf.get(`${delivery.user_group}\0${delivery.webhook_id}`);
    if (!webhook) continue;
    out.push({
      delivery,
      webhook,
      change: changeOf.get(`${delivery.user_group}\0${delivery.tx}\0${delivery.seq}`),
    });
  }
  return out;
}

/**
 * Records an attempt and its outcome: succeeded; failed for good (`next` null); or pending again
 * at `next`. A webhook that failed is marked failing since then, and disabled with `disable`.
 */
export async function recordAttempt(
  db: Kysely<Tables>,
  due: Due,
  outcome: { status: number | null; error: string | null; durationMs: number },
  result: { succeeded: boolean; next: Date | null; disable?: string },
): Promise<void> {
  const { delivery, webhook } = due;
  const attempt = delivery.attempts + 1;
  const status = result.succeeded ? 'SUCCEEDED' : result.next ? 'PENDING' : 'FAILED';
  // One statement, so one transaction: the attempt, the delivery's state and the webhook's.
  const hook = result.succeeded
    ? sql`update webhooks set failing_since = null
        where user_group = ${webhook.user_group} and id = ${webhook.id}::uuid and failing_since is not null`
    : sql`update webhooks set failing_since = coalesce(failing_since, now()),
          enabled = enabled and ${result.disable === undefined},
          disabled_reason = coalesce(${result.disable ?? null}, disabled_reason)
        where user_group = ${webhook.user_group} and id = ${webhook.id}::uuid`;
  await sql`
    with attempt as (
      insert into webhook_attempts (user_group, delivery_id, attempt, status, error, duration_ms)
      values (${delivery.user_group}, ${delivery.id}::uuid, ${attempt}, ${outcome.status}, ${outcome.error},
              ${Math.round(outcome.durationMs)})
    ), delivery as (
      update webhook_deliveries set attempts = ${attempt}, status = ${status}, next_attempt_at = ${result.next}
      where user_group = ${delivery.user_group} and id = ${delivery.id}::uuid
    ), hook as (${hook})
    select 1`.execute(db);
}

import type { Kysely } from 'kysely';
import { Webhook as Signer } from 'standardwebhooks';
import type { WebhookSettings } from '../../../config/limits.ts';
import type { AccountStanding } from '../../../shared/identity.ts';
import type { Logger } from '../../../shared/logger.ts';
import { unseal } from '../../../shared/sealed.ts';
import type { ChangeNotices } from '../../../storage/change-notices.ts';
import type { TableWrites } from '../../../storage/table-writes.ts';
import type { Tables } from '../../../storage/tables.ts';
import { changeJson } from '../change-json.ts';
import { before, type ChangeRow, type ChangeSelection, readTail } from '../changes.repository.ts';
import { type Position, parseSnapshot, seenIn } from '../cursor.ts';
import { CHANGES_CHANNEL, LOGGED_TABLES } from '../feed.ts';
import { Rounds } from '../rounds.ts';
import { keeps } from '../stream.ts';
import { OutboundRefusal, post } from './outbound.ts';
import {
  anyWebhook,
  claimDue,
  type Due,
  findWebhook,
  groupsWithWebhooks,
  lockWebhooks,
  nextDue,
  queueDeliveries,
  recordAttempt,
} from './repository.ts';

/** Deliveries sent at once by one process, and of one group. */
const CONCURRENCY = 20;
const PER_GROUP = 4;
/** A delivery waits this long at most between its claim and its sending before its webhook is read again. */
const FRESH_MS = 1_000;
/** How long a maker's standing, once asked, is trusted for the next deliveries (a session's too). */
const STANDING_MS = 1_000;
/** Entries read from a group's log at once. */
const PAGE = 500;
/** The longest a process waits before it looks again while webhooks exist (another's due deliveries). */
const IDLE_MS = 30_000;
/** How often the log is read while notices are not heard, or entries are held back. */
const POLL_MS = 250;
/** The channel the webhooks table's trigger notifies on (migration 20261128T0200). */
export const WEBHOOKS_CHANNEL = 'assetql_webhooks';
const DAY_MS = 24 * 60 * 60 * 1000;

export interface DispatcherOptions {
  db: Kysely<Tables>;
  /** Whether a webhook's maker still belongs to its group (auth's rule): one who left stops it. */
  standing: AccountStanding;
  log: Logger;
  settings: WebhookSettings;
  /** The key webhook secrets are sealed with. */
  key: Uint8Array;
  notices?: ChangeNotices;
  writes?: TableWrites;
}

/**
 * Delivers the change log to webhooks (docs/events.md#webhooks), in the process that serves the
 * events subgraph; any number of processes may run it on one database. It asks the database
 * nothing while no webhook exists (it hears of one made: the table's notice, or this process's
 * write); else it runs when the log grows, when the next delivery is due, and every 30 s. Two steps:
 *
 * 1. Queue: for each group with an enabled webhook (one process at a time, an advisory lock taken
 *    without waiting), the log after the webhooks' positions, read as a resuming reader reads it
 *    (nothing can later appear behind it), becomes one delivery per change a webhook's filter
 *    keeps; positions move in the same transaction, so a change is queued once, whatever dies when.
 * 2. Send: due deliveries are taken for the attempt's length (a process that dies mid-attempt
 *    leaves them to another once that runs out), signed by Standard Webhooks, POSTed through the
 *    address guard (outbound.ts), and recorded per attempt: 2xx succeeds; `410 Gone` disables the
 *    webhook; anything else is tried again on the schedule, with jitter, until it runs out; a
 *    webhook failing for `disableAfterDays` is disabled.
 */
export class WebhookDispatcher {
  readonly #options: DispatcherOptions;
  #timer: NodeJS.Timeout | undefined;
  readonly #unwatch: (() => void)[] = [];
  readonly #rounds = new Rounds(() => this.#round());
  #closed = false;
  /** Whether an enabled webhook exists; undefined until asked again (one was made or changed). */
  #any: boolean | undefined;
  /** Without notices on PostgreSQL, another process's new webhook is looked for this often. */
  #deaf = true;

  constructor(options: DispatcherOptions) {
    this.#options = options;
    const changed = () => {
      this.#any = undefined;
      this.wake();
    };
    if (options.notices) {
      this.#unwatch.push(
        options.notices.subscribe(CHANGES_CHANNEL, { notice: () => this.#changes(), live: () => {} }),
        options.notices.subscribe(WEBHOOKS_CHANNEL, {
          notice: changed,
          live: (live) => {
            this.#deaf = !live;
            if (live) changed();
          },
        }),
      );
    }
    if (options.writes)
      this.#unwatch.push(
        options.writes.watch(LOGGED_TABLES, () => this.#changes()),
        options.writes.watch(['webhooks', 'webhook_deliveries'], changed),
      );
    // Nothing is asked of the database until there is something to do: a first look at start.
    this.wake();
  }

  /** The log grew: a round, if a webhook may want it. */
  #changes(): void {
    if (this.#any !== false) this.wake();
  }

  /** The next round in `ms` (sooner wakes override it). */
  #later(ms: number): void {
    if (this.#closed) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.wake(), Math.max(20, Math.min(ms, IDLE_MS)));
    this.#timer.unref();
  }

  /** Runs a round now (or right after the one running). */
  wake(): void {
    if (this.#closed) return;
    this.#rounds.run();
  }

  /** Waits for the round under way, for a test or a stop. */
  settled(): Promise<void> {
    return this.#rounds.settled();
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    for (const u of this.#unwatch) u();
    await this.#rounds.stop();
  }

  async #round(): Promise<void> {
    const { db, log } = this.#options;
    try {
      this.#any ??= await anyWebhook(db);
      if (!this.#any) {
        // Notices say when one is made elsewhere; deaf to them on PostgreSQL, look now and then.
        if (this.#options.notices && this.#deaf) {
          this.#any = undefined;
          this.#later(IDLE_MS);
        }
        return;
      }
      let held = false;
      for (const group of await groupsWithWebhooks(db)) held = (await this.#queue(group)) || held;
      await this.#sendDue();
      const next = await nextDue(db);
      // Entries a running transaction holds back are looked for again soon (their commit may say
      // nothing); so is the log while the database's notices are not heard (embedded PGlite: some
      // writes, a bulk writer's, are not told in process either).
      const soon = held || this.#deaf ? POLL_MS : IDLE_MS;
      this.#later(Math.min(next ? next.getTime() - Date.now() : IDLE_MS, soon));
    } catch (e) {
      log.warn({ err: (e as Error).message }, 'webhooks: a round failed; tried again shortly');
      this.#later(1_000);
    }
  }

  /**
   * Sends what is due, at most 20 at once and 4 of one group (a group whose endpoints answer
   * slowly holds its own four, never the others'), taking more as attempts end: a claim for
   * every half of the slots freed, under a lease of two attempts' length.
   */
  async #sendDue(): Promise<void> {
    const { db, settings } = this.#options;
    const waiting: (Due & { claimedAt: number })[] = [];
    const inFlight = new Set<Promise<void>>();
    const perGroup = new Map<string, number>();
    const standing = new Map<string, { at: number; ok: Promise<boolean> }>();
    const held = (group: string) =>
      (perGroup.get(group) ?? 0) + waiting.filter((d) => d.delivery.user_group === group).length;
    let more = true;
    for (;;) {
      // Claimed when half the slots or more are free (or none is busy), so that one claim serves
      // several sends; never more of a group than can start once its sends in flight end, so
      // that each is sent within the lease of one attempt's length after its claim.
      const room = CONCURRENCY - inFlight.size - waiting.length;
      if (more && !this.#closed && room > 0 && (inFlight.size === 0 || room >= CONCURRENCY / 2)) {
        const full = [...new Set([...perGroup.keys(), ...waiting.map((d) => d.delivery.user_group)])].filter(
          (g) => held(g) >= PER_GROUP,
        );
        const got = await claimDue(db, room, settings.timeoutMs * 2 + 5_000, PER_GROUP, full);
        more = got.length > 0;
        const at = performance.now();
        for (const d of got) waiting.push({ ...d, claimedAt: at });
      }
      for (let i = 0; i < waiting.length && inFlight.size < CONCURRENCY; ) {
        const due = waiting[i]!;
        const group = due.delivery.user_group;
        if ((perGroup.get(group) ?? 0) >= PER_GROUP || this.#closed) {
          i++;
          continue;
        }
        waiting.splice(i, 1);
        perGroup.set(group, (perGroup.get(group) ?? 0) + 1);
        const sending: Promise<void> = this.#send(due, standing).finally(() => {
          inFlight.delete(sending);
          perGroup.set(group, perGroup.get(group)! - 1);
        });
        inFlight.add(sending);
      }
      // What is left claimed when closing runs out its lease, and another process sends it.
      if (inFlight.size === 0) return;
      await Promise.race(inFlight);
    }
  }

  /** Queues the group's new deliveries; true when entries wait behind a running transaction. */
  async #queue(group: string): Promise<boolean> {
    const { db } = this.#options;
    let held = false;
    for (;;) {
      const more = await db.transaction().execute(async (trx) => {
        const webhooks = await lockWebhooks(trx, group);
        if (!webhooks?.length) return false;
        let from: Position = webhooks[0]!;
        for (const w of webhooks) if (before(w, from)) from = w;
        const read = await readTail(trx, group, from, PAGE);
        const { rows } = read;
        held = read.held;
        if (rows.length === 0) return false;
        const queued: { webhookId: string; change: ChangeRow }[] = [];
        for (const w of webhooks) {
          const filter = w.filter as ChangeSelection;
          // What its maker could already see is not delivered: committed before it was made, though
          // after its position (the log's end then, held back by a transaction still running).
          const seen = w.start_snapshot === null ? undefined : parseSnapshot(w.start_snapshot);
          for (const change of rows)
            if (before(w, change) && keeps(filter, change) && !(seen && seenIn(seen, change)))
              queued.push({ webhookId: w.id, change });
        }
        const last = rows[rows.length - 1]!;
        await queueDeliveries(
          trx,
          group,
          queued,
          webhooks.filter((w) => before(w, last)).map((w) => ({ webhookId: w.id, to: last })),
        );
        return rows.length === PAGE;
      });
      if (!more) return held;
    }
  }

  /** Whether `username` may still act in `group`, asked once a second at most per send loop. */
  #inGoodStanding(
    username: string,
    group: string,
    memo: Map<string, { at: number; ok: Promise<boolean> }>,
  ): Promise<boolean> {
    const key = `${group}\0${username}`;
    const had = memo.get(key);
    if (had && performance.now() - had.at < STANDING_MS) return had.ok;
    const ok = this.#options.standing.inGoodStanding(username, group);
    memo.set(key, { at: performance.now(), ok });
    // A failed question is asked again, not remembered.
    ok.catch(() => memo.delete(key));
    return ok;
  }

  async #send(
    claimed: Due & { claimedAt: number },
    standing: Map<string, { at: number; ok: Promise<boolean> }>,
  ): Promise<void> {
    const { settings, log, key, db } = this.#options;
    // A delivery that waited for a slot is sent as its webhook stands now (its URL, secret, state).
    let due: Due = claimed;
    if (performance.now() - claimed.claimedAt > FRESH_MS) {
      const now = await findWebhook(db, claimed.webhook.user_group, claimed.webhook.id);
      // Deleted meanwhile, with its deliveries.
      if (!now) return;
      due = { ...claimed, webhook: now };
    }
    const { delivery, webhook, change } = due;
    const started = performance.now();
    let status: number | null = null;
    let error: string | null = null;
    let gone: string | undefined;
    if (!change) error = 'the change is no longer in the log (retention)';
    else if (!webhook.enabled) error = `the webhook is disabled (${webhook.disabled_reason ?? 'by a user'})`;
    else if (!(await this.#inGoodStanding(webhook.created_by, webhook.user_group, standing))) {
      // As an export link does: what acts for a user stops when the user may no longer act.
      gone = 'its maker no longer belongs to the group';
      error = `the webhook is disabled (${gone})`;
    } else {
      const body = payload(change, settings.maxPayloadBytes);
      const signer = new Signer(unseal(key, webhook.secret));
      const at = new Date();
      try {
        const sent = await post(
          new URL(webhook.url),
          body,
          {
            'content-type': 'application/json',
            'user-agent': 'assetql-webhooks',
            'webhook-id': delivery.id,
            'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
            'webhook-signature': signer.sign(delivery.id, at, body),
          },
          settings,
        );
        status = sent.status;
        // An answer's text is kept for the group to read only from a public address: from a host
        // the operator allow-listed (inside), the status alone.
        if (status < 200 || status > 299) error = sent.exempt ? null : sent.body.slice(0, 500) || null;
      } catch (e) {
        error = e instanceof OutboundRefusal ? e.message : 'the request failed';
        if (!(e instanceof OutboundRefusal)) log.warn({ err: e }, 'webhooks: sending failed');
      }
    }
    const durationMs = performance.now() - started;
    const succeeded = status !== null && status >= 200 && status <= 299;
    const attempt = delivery.attempts + 1;
    const schedule = settings.retryScheduleSeconds;
    const failingFor = webhook.failing_since ? Date.now() - webhook.failing_since.getTime() : 0;
    let disable: string | undefined = gone;
    if (gone) {
      // Disabled, not tried again.
    } else if (status === 410) disable = 'the endpoint answered 410 Gone';
    else if (!succeeded && webhook.failing_since && failingFor > settings.disableAfterDays * DAY_MS)
      disable = `failing for more than ${settings.disableAfterDays} days`;
    const next =
      succeeded || disable || !change || !webhook.enabled || attempt >= schedule.length
        ? null
        : new Date(Date.now() + jittered(schedule[attempt]! * 1000));
    try {
      await recordAttempt(
        db,
        due,
        { status, error, durationMs },
        { succeeded, next, ...(disable ? { disable } : {}) },
      );
    } catch (e) {
      log.warn({ err: (e as Error).message }, 'webhooks: recording an attempt failed');
    }
  }
}

/** Within ±20% of `ms`: endpoints that failed together are not tried again together. */
function jittered(ms: number): number {
  return ms * (0.8 + Math.random() * 0.4);
}

/**
 * The Standard Webhooks payload of a change: `type` (`change.created`, …), `timestamp` and
 * `data`, the change as `Query.changes` gives it. Larger than `max` bytes, `data` keeps all but
 * the patch and values, and says so (`truncated`): `change(cursor:)` gives the rest.
 */
export function payload(change: ChangeRow, max: number): string {
  const head = { type: `change.${change.kind.toLowerCase()}`, timestamp: change.at.toISOString() };
  const full = JSON.stringify({ ...head, data: changeJson(change) });
  if (Buffer.byteLength(full) <= max) return full;
  return JSON.stringify({ ...head, data: { ...changeJson(change, false), truncated: true } });
}

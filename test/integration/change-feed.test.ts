/**
 * The live feed of the change log (src/subgraphs/events/feed.ts) on PostgreSQL: a group's tail
 * waits for every older transaction still running, of any group, and is read again as soon as the
 * one that held it commits, not at the next timed read. Here the timed read of a held tail is set
 * a minute away, so only the holder's notice can release it in time. A transaction that holds
 * every group's tail costs each pass over the held tails one statement, not one per group.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Identity } from '../../src/shared/identity.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { ChangeNotices } from '../../src/storage/change-notices.ts';
import { ChangeFeed } from '../../src/subgraphs/events/feed.ts';
import type { StreamEvent } from '../../src/subgraphs/events/stream.ts';
import { countingDatabase, type TestDatabase } from '../helpers/database.ts';

const postgres = Boolean(process.env.DATABASE_URL);

let database: TestDatabase;
let statements: () => number;
let notices: ChangeNotices;
let feed: ChangeFeed;

beforeAll(async () => {
  if (!postgres) return;
  ({ database, statements } = await countingDatabase());
  notices = new ChangeNotices(database.pool, createLogger('silent'));
  feed = new ChangeFeed({
    db: database.db,
    log: createLogger('silent'),
    standing: async () => true,
    notices,
    heldReadMs: 60_000,
  });
  // Subscribed first: the feed's channel is listened to from the first connection on.
  await notices.start();
}, 60_000);
afterAll(async () => {
  feed?.close();
  await notices?.close();
  await database?.close();
});

const member = (group: string): Identity & { userGroup: string } => ({
  kind: 'session',
  username: `${group}-user`,
  userGroup: group,
  clientType: null,
  sessionHash: 'a'.repeat(64),
});

/** A logged change of `group` (a new profile) in its own transaction on `client`. */
const newProfile = (client: pg.ClientBase, group: string, profile: string) =>
  client.query(
    `insert into asset_profiles (user_group, profile, title, owner_username) values ($1, $2, $2, 'owner')`,
    [group, profile],
  );

/** The stream's next event, or `undefined` when none comes within `ms`. */
function within(next: Promise<IteratorResult<StreamEvent>>, ms: number) {
  return Promise.race([next, new Promise<undefined>((r) => setTimeout(() => r(undefined), ms))]);
}

/**
 * Runs `work` with a connection whose transaction has begun (`holder`) and another (`other`),
 * both ended after it, the transaction rolled back if `work` left it open.
 */
async function withHolder(work: (holder: pg.Client, other: pg.Client) => Promise<void>): Promise<void> {
  const holder = new pg.Client({ connectionString: database.url });
  const other = new pg.Client({ connectionString: database.url });
  await holder.connect();
  await other.connect();
  try {
    await holder.query('begin');
    await work(holder, other);
  } finally {
    await holder.query('rollback').catch(() => {});
    await Promise.all([holder.end(), other.end()]);
  }
}

describe.runIf(postgres)('the live change feed (PostgreSQL)', () => {
  it("reads a tail held by another group's transaction again when that transaction commits", async () => {
    expect(notices.live).toBe(true);
    const stream = await feed.open(member('b'), {}, undefined);
    try {
      await withHolder(async (holder, other) => {
        // Group a's transaction starts writing first, and stays open.
        await newProfile(holder, 'a', 'held-open');
        // Group b's change commits after it: a reader may not pass it while a's runs.
        await newProfile(other, 'b', 'waits');
        const next = stream.next();
        expect(await within(next, 500)).toBeUndefined();
        await holder.query('commit');
        // a's notice, not a timed read (a minute away), releases b's tail.
        const got = await within(next, 2_000);
        expect(got?.done).toBe(false);
        expect((got!.value as { profile?: string }).profile).toBe('waits');
      });
    } finally {
      await stream.return?.();
    }
  });

  it('reads no held tail again while the transaction holding them all still runs, however many notices come', async () => {
    const groups = Array.from({ length: 20 }, (_, i) => `many-${i}`);
    const streams = await Promise.all(groups.map((g) => feed.open(member(g), {}, undefined)));
    try {
      await withHolder(async (holder, other) => {
        await newProfile(holder, 'holder', 'holds-all');
        const nexts = streams.map((s) => s.next());
        // Each group's change commits behind it: every tail is held.
        for (const g of groups) await newProfile(other, g, 'waits');
        await new Promise((r) => setTimeout(r, 300));
        // A burst of notices of a group with no stream here: each pass asks once who is oldest.
        const before = statements();
        for (let i = 0; i < 100; i++) await other.query(`select pg_notify('assetql_changes', 'elsewhere')`);
        await new Promise((r) => setTimeout(r, 500));
        const spent = statements() - before;
        // At most a pass per notice (one statement each), never a read of 20 tails per pass.
        expect(spent).toBeLessThanOrEqual(150);
        for (const next of nexts) expect(await within(next, 50)).toBeUndefined();
        await holder.query('commit');
        for (const next of nexts) {
          const got = await within(next, 2_000);
          expect((got?.value as { profile?: string } | undefined)?.profile).toBe('waits');
        }
      });
    } finally {
      for (const s of streams) await s.return?.();
    }
  });
});

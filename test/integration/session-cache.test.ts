/**
 * Sessions kept between requests (src/subgraphs/auth/sessions/resolve.ts): while the process
 * hears the database's session change notices, a looked-up session is kept until a change
 * touches it, and a change by anyone (this process, another one, an operator's SQL) ends it as
 * soon as its notice arrives; a change of this process's own ends it for the very next request.
 * A change made without a notice shows that sessions really are kept. Without notices (PGlite,
 * or while the listening connection is gone) a session is trusted for 2 s, as before.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { NOTICES_APPLICATION_NAME } from '../../src/storage/change-notices.ts';
import { replaceGroups } from '../../src/subgraphs/auth/repository/users.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { freshDatabase, onOwnConnection, type TestDatabase } from '../helpers/database.ts';

let database: TestDatabase;
let t: TestApp;

beforeAll(async () => {
  database = await freshDatabase();
  t = await startTestApp({ database });
}, 60_000);
afterAll(async () => {
  await t?.close();
  await database?.close();
});

/** Whether `sessionId` resolves to a signed-in caller now. */
async function signedIn(sessionId: string): Promise<boolean> {
  const r = await t.graphql<{ session: { authenticated: boolean } }>(
    '{ session { authenticated } }',
    {},
    { 'x-svc-sessionid': sessionId },
  );
  expect(r.body.errors).toBeUndefined();
  return r.body.data!.session.authenticated;
}

/** Polls until `sessionId` resolves as `want` or `ms` pass; what it resolved as last. */
async function eventually(sessionId: string, want: boolean, ms = 3_000): Promise<boolean> {
  const until = Date.now() + ms;
  let seen = await signedIn(sessionId);
  while (seen !== want && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 20));
    seen = await signedIn(sessionId);
  }
  return seen;
}

/** Runs `text` on a connection of its own, as another process or an operator would. */
const elsewhere = (text: string, values: unknown[] = []) => onOwnConnection(database, text, values);

/** Disables `username` elsewhere with triggers off for the transaction: no notice is sent. */
const disableSilently = (username: string) =>
  elsewhere(`begin; set local session_replication_role = replica;
    update users set disabled = true where username = '${username}'; commit;`);

/**
 * Replaces `username`'s groups through the app's own database, after a burst of other changes in
 * the same transaction: the change's notice arrives behind all of them, well after the commit
 * has returned.
 */
async function takeGroupsLate(username: string, groups: string[], beforeCommit?: () => Promise<void>) {
  await database.db.transaction().execute(async (trx) => {
    await sql`select pg_notify('assetql_sessions', 'session:' || g) from generate_series(1, 50000) g`.execute(
      trx,
    );
    await replaceGroups(trx, username, groups);
    await beforeCommit?.();
  });
}

/**
 * A session of `username`, looked up, then its user disabled without a notice: still signed in 10 s
 * later (kept, past the 2-s rule), and signed out once `notice` is sent on the sessions channel.
 */
async function keptUntilAnnounced(username: string, notice: string) {
  const sid = await t.sessionFor(username, 'acme');
  expect(await signedIn(sid)).toBe(true);
  await disableSilently(username);
  t.clock.advance(10_000);
  expect(await signedIn(sid)).toBe(true);
  await elsewhere(`select pg_notify('assetql_sessions', $1)`, [notice]);
  expect(await eventually(sid, false)).toBe(false);
}

/**
 * Waits until the app hears the database's notices: its listening connection has outlived its
 * first probe by a margin (one whose probe is not heard within 2 s of its LISTEN is closed, and
 * tried again; connecting and listening take time too on a busy machine, where the first probe of
 * a process just started can be lost).
 */
async function hearingNotices(): Promise<void> {
  const until = Date.now() + 30_000;
  for (;;) {
    const { rows } = await sql<{ n: number }>`
      select count(*)::int as n from pg_stat_activity
      where datname = current_database() and application_name = ${NOTICES_APPLICATION_NAME}
        and backend_start < now() - interval '5 seconds'`.execute(database.db);
    if ((rows[0]?.n ?? 0) > 0) return;
    if (Date.now() > until) throw new Error('the app never heard the database’s notices');
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The backend of the app's listening connection, if it has one. */
async function listeningBackend(): Promise<number | undefined> {
  const { rows } = await sql<{ pid: number }>`
    select pid from pg_stat_activity
    where datname = current_database() and application_name = ${NOTICES_APPLICATION_NAME}`.execute(
    database.db,
  );
  return rows.length === 1 ? rows[0]!.pid : undefined;
}

/**
 * Runs `scenario` (given its try's number, for fresh names), again when it failed while the app's
 * listening connection was replaced: on a loaded machine a probe can take past its 2 s, and the
 * app then goes deaf, reconnects and trusts nothing it kept, which ends a session the scenario
 * keeps on purpose. A failure with the same connection throughout is the scenario's own.
 */
async function whileHeard(scenario: (attempt: number) => Promise<void>): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    await hearingNotices();
    const before = await listeningBackend();
    try {
      await scenario(attempt);
      return;
    } catch (e) {
      const after = await listeningBackend();
      if (attempt >= 1 || (before !== undefined && before === after)) throw e;
      // Said, so that a run that needs it more than now and then is seen.
      console.warn(`session cache test: listening connection ${before} became ${after}; trying once more`);
    }
  }
}

const postgres = Boolean(process.env.DATABASE_URL);

describe.runIf(postgres)('sessions between requests (PostgreSQL)', () => {
  beforeEach(() => hearingNotices(), 40_000);

  it('are kept past 2 s: a change the database does not announce is not seen, an announced one is', async () => {
    await whileHeard((n) => keptUntilAnnounced(`ana${n}`, `user:ana${n}`));
  });

  it("a user's notice evicts that user's sessions only, and groups set again unchanged send none", async () => {
    await whileHeard(async (n) => {
      const [kim, lou] = [`kim${n}`, `lou${n}`];
      const [mine, theirs] = [await t.sessionFor(kim, 'acme'), await t.sessionFor(lou, 'acme')];
      expect(await signedIn(mine)).toBe(true);
      expect(await signedIn(theirs)).toBe(true);
      await disableSilently(kim);
      await disableSilently(lou);
      t.clock.advance(10_000);
      // The same groups again (a federated sign-in with an unchanged claim): no row changes.
      await replaceGroups(database.db, kim, ['acme']);
      expect(await signedIn(mine)).toBe(true);
      await elsewhere(`select pg_notify('assetql_sessions', $1)`, [`user:${kim}`]);
      expect(await eventually(mine, false)).toBe(false);
      expect(await signedIn(theirs)).toBe(true);
    });
  });

  it('ends at once everywhere when another process disables the user, deletes the session or takes the group', async () => {
    const [a, b, c] = [
      await t.sessionFor('bo', 'acme'),
      await t.sessionFor('cy', 'acme'),
      await t.sessionFor('di', 'acme'),
    ];
    for (const sid of [a, b, c]) expect(await signedIn(sid)).toBe(true);
    await elsewhere(`update users set disabled = true where username = 'bo'`);
    await elsewhere(`delete from sessions where username = 'cy'`);
    await elsewhere(`delete from user_groups where username = 'di'`);
    // No clock advance: only the notices can end them.
    expect(await eventually(a, false)).toBe(false);
    expect(await eventually(b, false)).toBe(false);
    expect(await eventually(c, false)).toBe(false);
  });

  it("ends for the very next request when this process's own write takes it away, however late its notice", async () => {
    for (let i = 0; i < 10; i++) {
      const username = `ed${i}`;
      const sid = await t.sessionFor(username, 'acme');
      expect(await signedIn(sid)).toBe(true);
      expect(await signedIn(sid)).toBe(true);
      await takeGroupsLate(username, ['elsewhere']);
      expect(await signedIn(sid), `round ${i}`).toBe(false);
    }
  });

  it('a request while the change is not yet committed sees the session, and the next one after the commit does not', async () => {
    for (let i = 0; i < 5; i++) {
      const username = `en${i}`;
      const sid = await t.sessionFor(username, 'acme');
      expect(await signedIn(sid)).toBe(true);
      // Uncommitted, the change is not the truth yet: the session still stands, read or kept.
      await takeGroupsLate(username, ['elsewhere'], async () => {
        expect(await signedIn(sid)).toBe(true);
      });
      expect(await signedIn(sid), `round ${i}`).toBe(false);
    }
  });

  it('a slide of the idle expiry by another process sends no notice, and does not end the session here', async () => {
    const sid = await t.sessionFor('jo', 'acme');
    // The idle expiry 30 s away (brought forward: announced), then read and kept here.
    await elsewhere(`update sessions set expires_at = $1 where username = 'jo'`, [
      new Date(t.clock.now().getTime() + 30_000),
    ]);
    expect(await eventually(sid, true)).toBe(true);
    expect(await signedIn(sid)).toBe(true);
    // Another process slides it a day on (no notice); 40 s later the kept copy looks expired.
    await elsewhere(`update sessions set expires_at = expires_at + interval '1 day' where username = 'jo'`);
    t.clock.advance(40_000);
    expect(await signedIn(sid)).toBe(true);
    const { rows } = await sql<{
      n: number;
    }>`select count(*)::int as n from sessions where username = 'jo'`.execute(database.db);
    expect(rows[0]!.n).toBe(1);
  });

  it('under concurrent requests, none started after the change resolves the session', async () => {
    const sid = await t.sessionFor('fay', 'acme');
    expect(await signedIn(sid)).toBe(true);
    let changedAt = Number.POSITIVE_INFINITY;
    let stop = false;
    const late: number[] = [];
    const client = async () => {
      while (!stop) {
        const started = performance.now();
        const ok = await signedIn(sid);
        if (ok && started > changedAt) late.push(started - changedAt);
      }
    };
    const clients = Array.from({ length: 8 }, client);
    await new Promise((r) => setTimeout(r, 200));
    await takeGroupsLate('fay', []);
    changedAt = performance.now();
    await new Promise((r) => setTimeout(r, 300));
    stop = true;
    await Promise.all(clients);
    expect(late).toEqual([]);
  });

  it('are trusted for 2 s only while the listening connection is gone, and kept again once it is back', async () => {
    const sid = await t.sessionFor('gus', 'acme');
    expect(await signedIn(sid)).toBe(true);
    await elsewhere(
      `select pg_terminate_backend(pid) from pg_stat_activity
        where datname = current_database() and application_name = $1`,
      [NOTICES_APPLICATION_NAME],
    );
    await disableSilently('gus');
    // Deaf: past 2 s the session is read again, and the quiet change is seen.
    const until = Date.now() + 3_000;
    let seen = true;
    while (seen && Date.now() < until) {
      t.clock.advance(2_001);
      seen = await signedIn(sid);
    }
    expect(seen).toBe(false);
    // Back: kept again past 2 s. The connection is retried after a second and trusted once its
    // probe comes back; on a loaded machine that can take longer (and a probe that times out waits
    // 30 s for the next try), so fresh sessions are tried until one is kept, within 45 s.
    const backBy = Date.now() + 45_000;
    for (let i = 0; ; i++) {
      const username = `hal${i}`;
      const sid2 = await t.sessionFor(username, 'acme');
      expect(await signedIn(sid2)).toBe(true);
      await disableSilently(username);
      t.clock.advance(10_000);
      if (await signedIn(sid2)) {
        await elsewhere(`select pg_notify('assetql_sessions', '*')`);
        expect(await eventually(sid2, false)).toBe(false);
        break;
      }
      expect(Date.now(), 'sessions kept again after the listening connection came back').toBeLessThan(backBy);
      await new Promise((r) => setTimeout(r, 250));
    }
  }, 60_000);
});

describe.runIf(!postgres)('sessions between requests on PGlite', () => {
  it('are trusted for 2 s: a change the database does not announce is seen after that', async () => {
    const sid = await t.sessionFor('ivy', 'acme');
    expect(await signedIn(sid)).toBe(true);
    await disableSilently('ivy');
    expect(await signedIn(sid)).toBe(true);
    t.clock.advance(2_001);
    expect(await signedIn(sid)).toBe(false);
  });
});

describe('a revoked API key, in the process that revoked it', () => {
  // #36, finding 6: on the embedded database the session cache was not told, and the key kept
  // working for 2 s after `revokeAPIKey` had answered; "at once" is what docs/auth.md promises.
  it('is refused by the very next request, however soon, on either database', async () => {
    const { createUser } = await import('../../src/subgraphs/auth/users.ts');
    await createUser(database.db, t.config.secret, {
      username: 'rev',
      groups: ['acme'],
      password: 'a long enough password',
    });
    const signIn = await t.graphql<any>(
      'mutation { signIn(input: { loginUsername: "rev", password: "a long enough password", clientApplicationType: EXPLORER }) { errors { type } } }',
    );
    const sid = signIn.headers.get('x-svc-sessionid')!;
    const created = await t.graphql<any>(
      'mutation { createAPIKey(input: { apiKeyId: "etl", userGroup: "acme" }) { errors { type } apiKey { apiKeySessionId } } }',
      {},
      { 'x-svc-sessionid': sid },
    );
    const key = created.body.data.createAPIKey.apiKey.apiKeySessionId as string;
    // Used (and so kept by the process) before it is revoked.
    expect(await signedIn(key)).toBe(true);
    expect(await signedIn(key)).toBe(true);
    const revoked = await t.graphql<any>(
      'mutation { revokeAPIKey(input: { apiKeyId: "etl" }) { errors { type } } }',
      {},
      { 'x-svc-sessionid': sid },
    );
    expect(revoked.body.data.revokeAPIKey.errors).toEqual([]);
    expect(await signedIn(key)).toBe(false);
  });
});

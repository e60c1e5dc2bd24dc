/**
 * Profile definitions kept between requests (src/subgraphs/assets/profiles/cache.ts): a request
 * reads its profiles from memory while the process hears the database's change notices, and a
 * change by any process (here a second app on the same database, and plain SQL) is seen as soon
 * as its notice arrives; a change made without a notice shows that the definitions really are
 * kept. On PostgreSQL; embedded PGlite does not pass notices between connections, so there every
 * request reads its profiles (the last test checks that nothing is kept there).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed.ts';
import { NOTICES_APPLICATION_NAME } from '../../src/storage/change-notices.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { freshDatabase, onOwnConnection, type TestDatabase } from '../helpers/database.ts';

const TITLE = `{ assetProfiles { byId(profile: "well") { title } } }`;
const UPDATE = `mutation($input: UpdateAssetProfileInput) { updateAssetProfile(input: $input) { errors { type } assetProfile { title } } }`;

let database: TestDatabase;
let a: TestApp;
let b: TestApp;
let headersA: Record<string, string>;
let headersB: Record<string, string>;

beforeAll(async () => {
  database = await freshDatabase();
  a = await startTestApp({ database });
  await seedDemo(database.db, a.config);
  b = await startTestApp({ database });
  headersA = { 'x-svc-sessionid': await a.sessionFor('demo', 'demo') };
  headersB = { 'x-svc-sessionid': await b.sessionFor('demo', 'demo') };
}, 60_000);
afterAll(async () => {
  await a?.close();
  await b?.close();
  await database?.close();
});

const titleIn = async (app: TestApp, headers: Record<string, string>) =>
  (await app.graphql<{ assetProfiles: { byId: { title: string } } }>(TITLE, {}, headers)).body.data
    ?.assetProfiles.byId.title;

/** The title `app` shows once it equals `want`, or what it shows after `ms`. */
async function eventually(app: TestApp, headers: Record<string, string>, want: string, ms = 3_000) {
  const until = Date.now() + ms;
  let seen = await titleIn(app, headers);
  while (seen !== want && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 20));
    seen = await titleIn(app, headers);
  }
  return seen;
}

/**
 * Runs `text` on a connection of its own, as another process or an operator would: not through
 * the apps' `db`, whose own writes the apps hear of at once (storage/table-writes.ts).
 */
const elsewhere = (text: string, values: unknown[] = []) => onOwnConnection(database, text, values);

/** Changes the title elsewhere with triggers off for the transaction: no change notice is sent. */
async function silently(title: string) {
  await elsewhere(
    `begin; set local session_replication_role = replica;
     update asset_profiles set definition = jsonb_set(definition, '{title}', to_jsonb('${title.replaceAll("'", "''")}'::text)), title = '${title.replaceAll("'", "''")}'
       where user_group = 'demo' and profile = 'well';
     commit;`,
  );
}

const postgres = Boolean(process.env.DATABASE_URL);

describe.runIf(postgres)('profile definitions between requests (PostgreSQL)', () => {
  it('are kept: a change the database does not announce is not seen, an announced one is', async () => {
    const before = await eventually(a, headersA, 'Well');
    expect(before).toBe('Well');
    await silently('Changed quietly');
    // Kept: the process did not hear of it, so it still shows what it read.
    expect(await titleIn(a, headersA)).toBe('Well');
    // Any change announced on the channel (here by hand, as any writer's statement would) is seen.
    await elsewhere(`select pg_notify('assetql_profiles', '')`);
    expect(await eventually(a, headersA, 'Changed quietly')).toBe('Changed quietly');
    await silently('Well');
    await elsewhere(`select pg_notify('assetql_profiles', '')`);
    expect(await eventually(a, headersA, 'Well')).toBe('Well');
  });

  it("keeps the names of a group's profiles too: a profile added unannounced is not reached until announced", async () => {
    const FILTERED = (profile: string) =>
      `{ assets(profile: "${profile}") { all(first: 1, filter: { property: { name: "status", equals: "producing" } }) { edges { node { id } } } } }`;
    // A filtered page reads every profile of the group (a filter may reach any): now kept.
    expect((await a.graphql(FILTERED('well'), {}, headersA)).body.errors).toBeUndefined();
    await elsewhere(
      `begin; set local session_replication_role = replica;
       insert into asset_profiles
         select (jsonb_populate_record(null::asset_profiles, to_jsonb(p) || '{"profile": "pump"}')).*
         from asset_profiles p where user_group = 'demo' and profile = 'well';
       commit;`,
    );
    try {
      // The profile itself is read (it is not kept yet), but the names kept do not hold it.
      const unseen = await a.graphql(FILTERED('pump'), {}, headersA);
      expect(unseen.body.errors?.[0]?.message).toBe('There is no profile pump.');
      await elsewhere(`select pg_notify('assetql_profiles', '')`);
      const until = Date.now() + 3_000;
      let seen = await a.graphql(FILTERED('pump'), {}, headersA);
      while (seen.body.errors && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 20));
        seen = await a.graphql(FILTERED('pump'), {}, headersA);
      }
      expect(seen.body.errors).toBeUndefined();
    } finally {
      await elsewhere(`delete from asset_profiles where user_group = 'demo' and profile = 'pump'`);
    }
  });

  it('a change by another process reaches this one, and the changing process sees it at once', async () => {
    expect(await titleIn(a, headersA)).toBe('Well');
    expect(await titleIn(b, headersB)).toBe('Well');
    const changed = await b.graphql<{ updateAssetProfile: { assetProfile: { title: string } } }>(
      UPDATE,
      { input: { profile: 'well', title: 'Oil well' } },
      headersB,
    );
    expect(changed.body.data?.updateAssetProfile.assetProfile.title).toBe('Oil well');
    // The process that made the change: at once, no notice needed.
    expect(await titleIn(b, headersB)).toBe('Oil well');
    // The other process: when the notice arrives.
    expect(await eventually(a, headersA, 'Oil well')).toBe('Oil well');
  });

  it('the version a write leaves is read at once by its process and, once notified, by the other', async () => {
    const VERSION = `{ assetProfiles { byId(profile: "well") { version } } }`;
    const versionIn = async (app: TestApp, headers: Record<string, string>) =>
      (await app.graphql<{ assetProfiles: { byId: { version: number } } }>(VERSION, {}, headers)).body.data
        ?.assetProfiles.byId.version;
    const until = async (app: TestApp, headers: Record<string, string>, want: number) => {
      const end = Date.now() + 3_000;
      let seen = await versionIn(app, headers);
      while (seen !== want && Date.now() < end) {
        await new Promise((r) => setTimeout(r, 20));
        seen = await versionIn(app, headers);
      }
      return seen;
    };
    // Both processes keep the definition, version included.
    const version = (await versionIn(b, headersB))!;
    expect(await versionIn(a, headersA)).toBe(version);
    const VERSIONED = `mutation($input: UpdateAssetProfileInput) { updateAssetProfile(input: $input) { errors { type } assetProfile { version } } }`;
    const changed = await b.graphql<any>(
      VERSIONED,
      { input: { profile: 'well', title: 'Oil well', ifVersion: version } },
      headersB,
    );
    expect(changed.body.data.updateAssetProfile).toEqual({
      errors: [],
      assetProfile: { version: version + 1 },
    });
    expect(await versionIn(b, headersB)).toBe(version + 1);
    expect(await until(a, headersA, version + 1)).toBe(version + 1);
    // An extension's change moves it too, in the process that made it and in the other.
    const put = await a.graphql<any>(
      `mutation($input: putAssetProfileExtensionInput!) { putAssetProfileExtension(input: $input) { errors { type } assetProfile { version } } }`,
      {
        input: { profile: 'well', extension: 'cached', properties: [{ name: 'cachedNote', type: 'STRING' }] },
      },
      headersA,
    );
    expect(put.body.data.putAssetProfileExtension).toEqual({
      errors: [],
      assetProfile: { version: version + 2 },
    });
    expect(await versionIn(a, headersA)).toBe(version + 2);
    expect(await until(b, headersB, version + 2)).toBe(version + 2);
    const stale = await b.graphql<any>(
      VERSIONED,
      { input: { profile: 'well', title: 'Oil well', ifVersion: version + 1 } },
      headersB,
    );
    expect(stale.body.data.updateAssetProfile.errors).toEqual([{ type: 'VERSION_CONFLICT' }]);
    await a.graphql(
      `mutation { removeAssetProfileExtension(input: { profile: "well", extension: "cached" }) { errors { type } } }`,
      {},
      headersA,
    );
    expect(await versionIn(a, headersA)).toBe(version + 3);
  });

  it('a rolled-back change is not seen, and a direct SQL change by an operator is', async () => {
    await elsewhere(
      `begin; update asset_profiles set title = 'Never' where user_group = 'demo' and profile = 'well'; rollback;`,
    );
    expect(await titleIn(a, headersA)).toBe('Oil well');
    await elsewhere(`update asset_profiles set definition = jsonb_set(definition, '{title}', '"Well"'), title = 'Well'
              where user_group = 'demo' and profile = 'well'`);
    expect(await eventually(a, headersA, 'Well')).toBe('Well');
  });

  it('keeps nothing while its listening connection is gone, and keeps again once it is back', async () => {
    expect(await eventually(a, headersA, 'Well')).toBe('Well');
    // Both apps listen on this database; cut every listener off, as a failover or an
    // operator's pg_terminate_backend would.
    await elsewhere(
      `select pg_terminate_backend(pid) from pg_stat_activity
        where datname = current_database() and application_name = $1`,
      [NOTICES_APPLICATION_NAME],
    );
    await silently('While deaf');
    // Not kept while it cannot hear: the quiet change shows without any notice.
    expect(await eventually(a, headersA, 'While deaf')).toBe('While deaf');
    // Reconnected (within a second or two) it keeps again: a quiet change goes unseen.
    await new Promise((r) => setTimeout(r, 2_500));
    expect(await titleIn(a, headersA)).toBe('While deaf');
    await silently('Well');
    expect(await titleIn(a, headersA)).toBe('While deaf');
    await elsewhere(`select pg_notify('assetql_profiles', '')`);
    expect(await eventually(a, headersA, 'Well')).toBe('Well');
  });

  it('keeps tenants apart: one group never reads another group\u2019s kept definition', async () => {
    const other = { 'x-svc-sessionid': await a.sessionFor('demo', 'demo-east') };
    const mine = await a.graphql<{ assetProfiles: { byId: { title: string } | null } }>(TITLE, {}, headersA);
    const theirs = await a.graphql<{ assetProfiles: { byId: { title: string } | null } }>(TITLE, {}, other);
    const east = await sql<{
      title: string;
    }>`select title from asset_profiles where user_group = 'demo-east' and profile = 'well'`.execute(
      database.db,
    );
    expect(mine.body.data?.assetProfiles.byId?.title).toBe('Well');
    expect(theirs.body.data?.assetProfiles.byId?.title ?? null).toBe(east.rows[0]?.title ?? null);
  });
});

describe.runIf(!postgres)('profile definitions on PGlite', () => {
  it('are read for every request: a change the database does not announce is seen at once', async () => {
    expect(await titleIn(a, headersA)).toBe('Well');
    await silently('Changed quietly');
    expect(await titleIn(a, headersA)).toBe('Changed quietly');
    await silently('Well');
    expect(await titleIn(a, headersA)).toBe('Well');
  });
});

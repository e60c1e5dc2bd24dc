import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/shared/clock.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { ChangeRetention } from '../../src/subgraphs/events/retention.ts';
import { startDemoApp, type TestApp } from '../helpers/app.ts';

// The change log (#38): every mutation writes one entry per entity changed, in its transaction,
// with the patch, the actor and the correlation id; history and the log read them back.

let t: TestApp;
let demo: Record<string, string>;
let east: Record<string, string>;

beforeAll(async () => {
  ({ app: t, demo, east } = await startDemoApp());
});
afterAll(() => t.close());

interface Change {
  cursor: string;
  kind: string;
  entity: string;
  profile: string | null;
  entityId: string | null;
  version: number;
  actor: { kind: string; name: string; apiKeyId: string | null } | null;
  correlationId: string | null;
  patch: Record<string, unknown>[];
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

const CHANGE =
  'cursor kind entity profile entityId version actor { kind name apiKeyId } correlationId patch before after';
const LOG = `query($after: String, $first: Int, $filter: ChangeFilter) {
  changes(order: OLDEST_FIRST, after: $after, first: $first, filter: $filter) {
    edges { node { ${CHANGE} } } pageInfo { endCursor hasNextPage } } }`;

/** The newest position of the caller's log: what a test's changes come after. */
async function mark(headers = demo): Promise<string | null> {
  const r = await t.graphql<any>('{ changes(first: 1) { edges { cursor } } }', {}, headers);
  expect(r.body.errors).toBeUndefined();
  return r.body.data.changes.edges[0]?.cursor ?? null;
}

/**
 * Every change after `after`, oldest first. Oldest first reads only what no running transaction
 * can still precede, and transactions of the whole PostgreSQL cluster count (other tests'
 * databases too): it reads until it has reached the newest entry, which newest first shows at once.
 */
async function since(after: string | null, headers = demo): Promise<Change[]> {
  const newest = await mark(headers);
  const deadline = Date.now() + 15_000;
  for (;;) {
    const out: Change[] = [];
    let cursor = after;
    for (;;) {
      const r = await t.graphql<any>(LOG, { after: cursor, first: 500 }, headers);
      expect(r.body.errors).toBeUndefined();
      out.push(...r.body.data.changes.edges.map((e: { node: Change }) => e.node));
      if (!r.body.data.changes.pageInfo.hasNextPage) break;
      cursor = r.body.data.changes.pageInfo.endCursor;
    }
    if (newest === after || out.at(-1)?.cursor === newest || Date.now() > deadline) return out;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Runs a mutation and returns the changes it logged; its result must have no errors. */
async function logged(query: string, variables: Record<string, unknown>, headers = demo) {
  const before = await mark(headers);
  const r = await t.graphql<any>(query, variables, { ...headers, 'x-request-id': 'req-change-log' });
  expect(r.body.errors).toBeUndefined();
  const result = Object.values(r.body.data)[0] as { errors?: unknown[] };
  expect(result.errors ?? []).toEqual([]);
  return { result, changes: await since(before, headers) };
}

const user = { kind: 'USER', name: 'demo', apiKeyId: null };
const UPSERT = `mutation($input: UpsertAssetsInput!, $cid: String) { upsertAssets(input: $input, correlationId: $cid) {
  inserted updated errors { type message } assets { id version } } }`;

describe('the change log (#38)', () => {
  it('records each asset an upsert creates or changes, once, with its patch, actor and correlation id', async () => {
    const { result, changes } = await logged(UPSERT, {
      cid: 'client-7',
      input: {
        profile: 'site',
        assets: [
          { id: 'S-log-1', properties: { name: 'Log one', region: 'Alberta' } },
          { id: 'S-log-2', properties: { name: 'Log two' } },
        ],
      },
    });
    expect(result).toMatchObject({ inserted: 2, assets: [{ version: 1 }, { version: 1 }] });
    expect(changes.map((c) => [c.entity, c.kind, c.entityId, c.version])).toEqual([
      ['ASSET', 'CREATED', 'S-log-1', 1],
      ['ASSET', 'CREATED', 'S-log-2', 1],
    ]);
    expect(changes[0]).toMatchObject({
      profile: 'site',
      actor: user,
      correlationId: 'client-7',
      patch: [
        {
          op: 'add',
          path: '',
          value: { isDeleted: false, geometry: null, properties: { name: 'Log one', region: 'Alberta' } },
        },
      ],
      before: null,
    });

    // One changed, one the same as stored: only the changed one is an entry.
    const second = await logged(UPSERT, {
      input: {
        profile: 'site',
        assets: [
          { id: 'S-log-1', properties: { name: 'Log one', region: 'Saskatchewan' } },
          { id: 'S-log-2', properties: { name: 'Log two' } },
        ],
      },
    });
    expect(second.changes).toHaveLength(1);
    expect(second.changes[0]).toMatchObject({
      kind: 'UPDATED',
      entityId: 'S-log-1',
      version: 2,
      correlationId: 'req-change-log',
      patch: [{ op: 'replace', path: '/properties/region', value: 'Saskatchewan' }],
      before: { properties: { region: 'Alberta' } },
      after: { properties: { region: 'Saskatchewan' } },
    });

    const history = await t.graphql<any>(
      `{ assets(profile: "site") { byId(id: "S-log-1") { version history { edges { node { kind version } } } } } }`,
      {},
      demo,
    );
    expect(history.body.errors).toBeUndefined();
    expect(history.body.data.assets.byId).toEqual({
      version: 2,
      history: {
        edges: [{ node: { kind: 'UPDATED', version: 2 } }, { node: { kind: 'CREATED', version: 1 } }],
      },
    });
  });

  it("records which API key made a change, by the key's public id, and none for a session", async () => {
    const CREATE = `mutation($k: ID!) { createAPIKey(input: { apiKeyId: $k, userGroup: "demo" }) {
      errors { type } apiKey { apiKeyId apiKeySessionId } } }`;
    // Two keys of the same user, in the same group.
    const through: Record<string, Record<string, string>> = {};
    for (const k of ['log-etl', 'log-backup']) {
      const r = await t.graphql<any>(CREATE, { k }, demo);
      expect(r.body.data.createAPIKey.errors).toEqual([]);
      expect(r.body.data.createAPIKey.apiKey.apiKeyId).toBe(k);
      through[k] = { 'x-svc-sessionid': r.body.data.createAPIKey.apiKey.apiKeySessionId };
    }
    const named = (name: string) => ({
      input: { profile: 'site', assets: [{ id: 'S-log-key', properties: { name } }] },
    });
    const etl = await logged(UPSERT, named('By the ETL key'), through['log-etl']);
    const backup = await logged(UPSERT, named('By the backup key'), through['log-backup']);
    const session = await logged(UPSERT, named('By a session'));
    expect([...etl.changes, ...backup.changes, ...session.changes].map((c) => [c.kind, c.actor])).toEqual([
      ['CREATED', { kind: 'API_KEY', name: 'demo', apiKeyId: 'log-etl' }],
      ['UPDATED', { kind: 'API_KEY', name: 'demo', apiKeyId: 'log-backup' }],
      ['UPDATED', user],
    ]);
    // The id the key's listing shows and `revokeAPIKey` takes; never its secret.
    const listed = await t.graphql<any>('{ user(id: "demo") { apiKeys { apiKeyId } } }', {}, demo);
    const ids = listed.body.data.user.apiKeys.map((k: { apiKeyId: string }) => k.apiKeyId);
    expect(ids).toEqual(expect.arrayContaining(['log-etl', 'log-backup']));
    const { rows } = await sql<{ actor_key: string | null }>`
      select actor_key from changes where user_group = 'demo' and entity_id = 'S-log-key' order by tx, seq`.execute(
      t.database.db,
    );
    expect(rows.map((r) => r.actor_key)).toEqual(['log-etl', 'log-backup', null]);
    // The history of the asset tells them apart too.
    const history = await t.graphql<any>(
      `{ assets(profile: "site") { byId(id: "S-log-key") { history { edges { node { actor { kind apiKeyId } } } } } } }`,
      {},
      demo,
    );
    expect(history.body.data.assets.byId.history.edges.map((e: any) => e.node.actor)).toEqual([
      { kind: 'USER', apiKeyId: null },
      { kind: 'API_KEY', apiKeyId: 'log-backup' },
      { kind: 'API_KEY', apiKeyId: 'log-etl' },
    ]);
  });

  it('refuses a stale ifVersion with VERSION_CONFLICT, writing nothing and logging nothing', async () => {
    const before = await mark();
    const r = await t.graphql<any>(
      UPSERT,
      {
        input: {
          profile: 'site',
          assets: [
            { id: 'S-log-3', properties: { name: 'Three' }, ifVersion: 0 },
            { id: 'S-log-1', properties: { name: 'Stale' }, ifVersion: 1 },
          ],
        },
      },
      demo,
    );
    expect(r.body.data.upsertAssets.errors).toEqual([
      { type: 'VERSION_CONFLICT', message: 'Asset S-log-1 is at version 2, not 1; read it again.' },
    ]);
    expect(await since(before)).toEqual([]);
    const row = await t.database.db
      .selectFrom('assets')
      .select('id')
      .where('user_group', '=', 'demo')
      .where('id', '=', 'S-log-3')
      .execute();
    expect(row).toEqual([]);

    const ok = await logged(UPSERT, {
      input: { profile: 'site', assets: [{ id: 'S-log-1', properties: { name: 'Fresh' }, ifVersion: 2 }] },
    });
    expect(ok.changes.map((c) => [c.kind, c.version])).toEqual([['UPDATED', 3]]);
  });

  it('lets one of twenty writers at once create an asset that must not exist yet (ifVersion: 0)', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        t.graphql<any>(
          UPSERT,
          {
            input: {
              profile: 'site',
              assets: [{ id: 'S-log-race', properties: { name: `Racer ${i}` }, ifVersion: 0 }],
            },
          },
          demo,
        ),
      ),
    );
    const types = answers.map((a) => a.body.data.upsertAssets.errors[0]?.type ?? 'ok');
    expect(types.filter((x) => x === 'ok')).toHaveLength(1);
    expect(types.filter((x) => x === 'VERSION_CONFLICT')).toHaveLength(19);
    const created = (await since(null)).filter((c) => c.entityId === 'S-log-race');
    expect(created.map((c) => [c.kind, c.version])).toEqual([['CREATED', 1]]);
  });

  it('records soft and hard deletes, a restore, and nothing for a failed mutation', async () => {
    const DELETE = `mutation($input: DeleteAssetsInput!) { deleteAssets(input: $input) { deleted errors { type message } } }`;
    const soft = await logged(DELETE, { input: { profile: 'site', ids: ['S-log-2'] } });
    expect(soft.changes).toMatchObject([
      {
        kind: 'DELETED',
        entityId: 'S-log-2',
        version: 2,
        patch: [{ op: 'replace', path: '/isDeleted', value: true }],
      },
    ]);
    const restored = await logged(UPSERT, {
      input: { profile: 'site', assets: [{ id: 'S-log-2', properties: { name: 'Log two' } }] },
    });
    expect(restored.changes).toMatchObject([{ kind: 'RESTORED', version: 3 }]);
    const hard = await logged(DELETE, { input: { profile: 'site', ids: ['S-log-2'], hard: true } });
    expect(hard.changes).toMatchObject([
      {
        kind: 'DELETED',
        version: 4,
        patch: [{ op: 'remove', path: '' }],
        after: null,
        before: { isDeleted: false },
      },
    ]);

    const before = await mark();
    const bad = await t.graphql<any>(
      UPSERT,
      { input: { profile: 'site', assets: [{ id: 'S-bad', properties: { nosuch: 1 } }] } },
      demo,
    );
    expect(bad.body.data.upsertAssets.errors[0].type).not.toBe(undefined);
    expect(await since(before)).toEqual([]);
  });

  it('records profiles, extensions, views, filters, conversions and downloads', async () => {
    const profile = await logged(
      `mutation($input: UpdateAssetProfileInput) { updateAssetProfile(input: $input) { errors { type message } } }`,
      { input: { profile: 'site', title: 'Sites of the log' } },
    );
    expect(profile.changes).toMatchObject([
      {
        entity: 'ASSET_PROFILE',
        kind: 'UPDATED',
        profile: 'site',
        entityId: null,
        patch: [{ op: 'replace', path: '/title', value: 'Sites of the log' }],
      },
    ]);
    const stale = await t.graphql<any>(
      `mutation($input: UpdateAssetProfileInput) { updateAssetProfile(input: $input) { errors { type } } }`,
      { input: { profile: 'site', title: 'Never', ifVersion: 1 } },
      demo,
    );
    expect(stale.body.data.updateAssetProfile.errors).toEqual([{ type: 'VERSION_CONFLICT' }]);

    const ext = await logged(
      `mutation($input: putAssetProfileExtensionInput!) { putAssetProfileExtension(input: $input) { errors { type message } } }`,
      { input: { profile: 'site', extension: 'log', properties: [{ name: 'logged', type: 'STRING' }] } },
    );
    expect(ext.changes).toMatchObject([
      { entity: 'ASSET_PROFILE_EXTENSION', kind: 'CREATED', profile: 'site', entityId: 'log' },
    ]);
    const removed = await logged(
      `mutation($input: removeAssetProfileExtensionInput!) { removeAssetProfileExtension(input: $input) { errors { type message } } }`,
      { input: { profile: 'site', extension: 'log' } },
    );
    expect(removed.changes).toMatchObject([
      { entity: 'ASSET_PROFILE_EXTENSION', kind: 'DELETED', entityId: 'log' },
    ]);

    const VIEW = `mutation($input: UpdateAssetProfileViewConfigurationInput!) { updateAssetProfileViewConfiguration(input: $input) { errors { type message } } }`;
    const view = await logged(VIEW, { input: { profile: 'site', id: 'log-view', name: 'Logged' } });
    expect(view.changes).toMatchObject([
      { entity: 'VIEW', kind: 'CREATED', profile: 'site', entityId: 'log-view', version: 1 },
    ]);
    const renamed = await logged(VIEW, {
      input: { profile: 'site', id: 'log-view', name: 'Renamed', ifVersion: 1 },
    });
    expect(renamed.changes).toMatchObject([
      {
        entity: 'VIEW',
        kind: 'UPDATED',
        version: 2,
        patch: [{ op: 'replace', path: '/name', value: 'Renamed' }],
      },
    ]);
    const layout = await logged(
      `mutation($input: UpdateAssetProfileViewLayoutInput) { updateAssetProfileViewLayout(input: $input) { errors { type message } } }`,
      {
        input: {
          profile: 'site',
          viewConfiguration: 'log-view',
          mediaType: 'WEB',
          widgets: [{ id: 'map', layout: { x: 0, y: 0, w: 8, h: 6 }, name: 'Map', widget: 'map' }],
        },
      },
    );
    expect(layout.changes).toMatchObject([{ entity: 'VIEW', kind: 'UPDATED', version: 3 }]);
    expect(layout.changes[0]!.patch[0]).toMatchObject({ op: 'add', path: '/layouts/WEB' });

    const filter = await logged(
      `mutation($input: CreateAssetFilterInput!) { createAssetFilter(input: $input, correlationId: "f-1") { errors { type message } } }`,
      { input: { id: 'log-filter', displayName: 'Logged', profile: 'site', subProfiles: [] } },
    );
    expect(filter.changes).toMatchObject([
      {
        entity: 'SELECTION_FILTER',
        kind: 'CREATED',
        profile: null,
        entityId: 'log-filter',
        correlationId: 'f-1',
        actor: user,
      },
    ]);
    const filterUpdate = await logged(
      `mutation($input: UpdateAssetFilterInput!) { updateAssetFilter(input: $input) { errors { type message } } }`,
      { input: { id: 'log-filter', description: 'now described', ifVersion: 1 } },
    );
    expect(filterUpdate.changes).toMatchObject([
      {
        entity: 'SELECTION_FILTER',
        kind: 'UPDATED',
        version: 2,
        patch: [{ op: 'replace', path: '/description', value: 'now described' }],
      },
    ]);

    const download = await logged(
      `mutation { createAssetFilterDownload(input: { filterId: "log-filter" }) { errors { type message } download { id } } }`,
      {},
    );
    expect(download.changes).toMatchObject([
      { entity: 'DOWNLOAD', kind: 'CREATED', profile: null, actor: user },
    ]);
    const id = (download.result as any).download.id;
    const gone = await logged(
      `mutation($id: ID!) { deleteAssetDownload(id: $id) { errors { type message } } }`,
      { id },
    );
    expect(gone.changes).toMatchObject([{ entity: 'DOWNLOAD', kind: 'DELETED', entityId: id }]);
  });

  it('records a conversion as CONVERTED targets and DELETED sources, in one transaction', async () => {
    const PUT = `mutation($input: UpdateAssetProfileAssetConversionConfigurationInput!) {
      updateAssetProfileAssetConversionConfiguration(input: $input) { errors { type message } } }`;
    const recipe = await logged(PUT, {
      input: {
        profile: 'facility',
        id: 'log-promote',
        targetProfile: 'site',
        propertyMappings: [{ targetProperty: 'name', sourceProperty: 'name' }],
        deleteSource: true,
      },
    });
    expect(recipe.changes).toMatchObject([
      { entity: 'CONVERSION', kind: 'CREATED', profile: 'facility', entityId: 'log-promote' },
    ]);
    const converted = await logged(
      `mutation($input: ConvertAssetsInput!) { convertAssets(input: $input) { errors { type message } } }`,
      { input: { profile: 'facility', conversion: 'log-promote', ids: ['F-100-1'] } },
    );
    expect(converted.changes.map((c) => [c.entity, c.kind, c.profile, c.entityId])).toEqual([
      ['ASSET', 'CONVERTED', 'site', 'F-100-1'],
      ['ASSET', 'DELETED', 'facility', 'F-100-1'],
    ]);
    const asset = await t.graphql<any>(
      `{ changes(first: 1, filter: { kinds: [CONVERTED] }) { edges { node { asset { profile id displayName } } } } }`,
      {},
      demo,
    );
    expect(asset.body.errors).toBeUndefined();
    expect(asset.body.data.changes.edges[0].node.asset).toMatchObject({ profile: 'site', id: 'F-100-1' });
  });

  it("never shows one group another's changes, and refuses the signed-out", async () => {
    const eastBefore = await mark(east);
    await logged(UPSERT, {
      input: { profile: 'site', assets: [{ id: 'S-only-demo', properties: { name: 'Mine' } }] },
    });
    expect(await since(eastBefore, east)).toEqual([]);
    const all = await since(null, east);
    expect(all.length).toBeGreaterThan(0);
    expect(all.some((c) => c.entityId === 'S-only-demo' || c.entityId?.startsWith('S-log'))).toBe(false);
    // The events subgraph's mutation root is the planner's, never a client's.
    const hidden = await t.graphql<any>('mutation { _eventsMutationRoot }', {}, demo);
    expect(hidden.status).toBe(400);
    // A mutation across two subgraphs still goes where its fields are (the planner's root).
    const across = await t.graphql<any>(
      `mutation { f: createAssetFilter(input: { id: "log-across", displayName: "A", profile: "site", subProfiles: [] }) { errors { type } }
        i: createIssue(input: { displayName: "across" }) { errors { type } } }`,
      {},
      demo,
    );
    expect(across.body).toEqual({ data: { f: { errors: [] }, i: { errors: [] } } });
    const anonymous = await t.graphql<any>('{ changes { edges { cursor } } }', {}, {});
    expect(anonymous.body.errors![0]!.extensions!.code).toBe('UNAUTHENTICATED');
  });

  it('writes an entry for a change made by SQL outside assetql, with no actor', async () => {
    const before = await mark();
    await sql`update assets set properties = (properties - 'name') || '{"a/b~c": 1}' where user_group = 'demo' and profile = 'site' and id = 'S-log-1'`.execute(
      t.database.db,
    );
    // Member names are escaped as RFC 6901 says; a removed member is a remove.
    expect(await since(before)).toMatchObject([
      {
        kind: 'UPDATED',
        actor: null,
        correlationId: null,
        entityId: 'S-log-1',
        patch: [
          { op: 'add', path: '/properties/a~1b~0c', value: 1 },
          { op: 'remove', path: '/properties/name' },
        ],
      },
    ]);
    // An observation alone is not an entry.
    const after = await mark();
    await sql`update assets set observation = '{"t": 1}' where user_group = 'demo' and profile = 'site' and id = 'S-log-1'`.execute(
      t.database.db,
    );
    expect(await since(after)).toEqual([]);
  });

  it('bounds its arguments and refuses a cursor of another list or one older than the retention', async () => {
    const big = await t.graphql<any>(
      LOG,
      { filter: { ids: Array.from({ length: 101 }, (_, i) => `x${i}`) } },
      demo,
    );
    expect(big.body.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    const page = await t.graphql<any>(LOG, { first: 501 }, demo);
    expect(page.body.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    for (const cursor of [
      'nonsense',
      Buffer.from('["1","x"]').toString('base64url'),
      Buffer.from('["99999999999999999999","1"]').toString('base64url'),
    ]) {
      const r = await t.graphql<any>(LOG, { after: cursor }, demo);
      expect(r.body.errors![0]!.extensions!.code).toBe('BAD_USER_INPUT');
    }
    const first = (await since(null))[0]!;
    await sql`insert into change_horizons (user_group, tx, seq)
      select user_group, tx, seq from changes where user_group = 'demo' order by tx, seq offset 1 limit 1`.execute(
      t.database.db,
    );
    const expired = await t.graphql<any>(LOG, { after: first.cursor }, demo);
    expect(expired.body.errors![0]!.extensions!.code).toBe('CURSOR_EXPIRED');
    await sql`delete from change_horizons`.execute(t.database.db);
  });

  it('prunes what is older than the retention, and then refuses the cursors it took', async () => {
    const eastLog = await since(null, east);
    const demoCount = (await since(null)).length;
    expect(eastLog.length).toBeGreaterThan(1);
    await sql`update changes set at = now() - interval '400 days' where user_group = 'demo-east'`.execute(
      t.database.db,
    );
    const log = createLogger('silent');
    const retention = new ChangeRetention({
      db: t.database.db,
      clock: systemClock,
      log,
      days: 365,
      everyMs: 3_600_000,
    });
    try {
      expect(await retention.prune()).toBe(eastLog.length);
    } finally {
      await retention.close();
    }
    expect(await since(null, east)).toEqual([]);
    expect((await since(null)).length).toBe(demoCount);
    const expired = await t.graphql<any>(LOG, { after: eastLog[0]!.cursor }, east);
    expect(expired.body.errors![0]!.extensions!.code).toBe('CURSOR_EXPIRED');
    // The newest position pruned is no gap: resuming after it reads what came later.
    const resumed = await t.graphql<any>(LOG, { after: eastLog.at(-1)!.cursor }, east);
    expect(resumed.body.errors).toBeUndefined();
  });
});

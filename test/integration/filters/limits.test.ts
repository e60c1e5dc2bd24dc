import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../../src/demo/seed.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';

// The bounds on a filter through the API (docs/security.md "Filters"): a hostile filter is a
// client error, refused before any SQL runs, and the tenants beside it are served as usual.

const LIST = `query($f: AssetFilter) { assetProfiles { byId(profile: "well") {
  assets(first: 5, filter: $f) { edges { node { id } } } } } }`;
const CREATE = `mutation($input: CreateAssetFilterInput!) {
  createAssetFilter(input: $input) { errors { type message } assetFilter { id } } }`;

let t: TestApp;
/** The same service with the string limit raised out of the way: the filter's own bounds hold. */
let roomy: TestApp;
let demo: Record<string, string>;
let roomyDemo: Record<string, string>;

beforeAll(async () => {
  t = await startTestApp();
  await seedDemo(t.database.db, t.config);
  demo = { 'x-svc-sessionid': await t.sessionFor('demo', 'demo') };
  roomy = await startTestApp({ database: t.database, config: { maxStringLength: 10_000_000 } });
  roomyDemo = { 'x-svc-sessionid': await roomy.sessionFor('demo', 'demo') };
  // The first request of a process compiles plans and warms caches: not what is measured here.
  await t.graphql(LIST, { f: { search: 'w' } }, demo);
  await roomy.graphql(LIST, { f: { search: 'w' } }, roomyDemo);
});
afterAll(async () => {
  await roomy?.close();
  await t?.close();
});

const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i % 10}`).join(' ');
const codes = (body: any): string[] => (body.errors ?? []).map((e: any) => e.extensions?.code);

/** A client error (never SERVICE_UNAVAILABLE or INTERNAL_SERVER_ERROR), and no assets. */
function expectClientError(r: { status: number; body: any }, type?: string) {
  expect(codes(r.body), JSON.stringify(r.body).slice(0, 400)).toEqual(['BAD_USER_INPUT']);
  expect(r.body.data?.assetProfiles?.byId?.assets ?? null).toBeNull();
  if (type) expect(r.body.errors[0].extensions.type).toBe(type);
}

describe('filter limits through the API', () => {
  it('refuses a 60,000-word search with a client error, while another tenant is served', async () => {
    const sixty = words(60_000);
    const normal = await t.graphql<any>(
      LIST,
      { f: { property: { name: 'status', equals: 'producing' } } },
      demo,
    );
    expect(normal.body.errors).toBeUndefined();
    const expected = normal.body.data.assetProfiles.byId.assets.edges;
    expect(expected.length).toBeGreaterThan(0);
    // Hostile searches and ordinary queries at once, through both services.
    const hostile = Array.from({ length: 10 }, (_, i) =>
      i % 2
        ? t.graphql(LIST, { f: { search: sixty } }, demo)
        : roomy.graphql(LIST, { f: { search: sixty } }, roomyDemo),
    );
    const ordinary = Array.from({ length: 10 }, () =>
      t.graphql<any>(LIST, { f: { property: { name: 'status', equals: 'producing' } } }, demo),
    );
    const refused = await Promise.all(hostile);
    for (const r of refused) expectClientError(r);
    // At the service's string limit, or (raised) at the filter's own.
    expect(refused.some((r) => r.body.errors?.[0]?.extensions?.limit === 'maxStringLength')).toBe(true);
    expect(refused.some((r) => r.body.errors?.[0]?.extensions?.type === 'INVALID_FILTER')).toBe(true);
    for (const r of await Promise.all(ordinary)) {
      expect(r.body.errors).toBeUndefined();
      expect(r.body.data.assetProfiles.byId.assets.edges).toEqual(expected);
    }
    // 70,000 words once overflowed PostgreSQL's bind parameters into SERVICE_UNAVAILABLE.
    expectClientError(
      await roomy.graphql(LIST, { f: { search: words(70_000) } }, roomyDemo),
      'INVALID_FILTER',
    );
    const many = await roomy.graphql<any>(LIST, { f: { search: words(33) } }, roomyDemo);
    expectClientError(many, 'INVALID_FILTER');
    expect(many.body.errors![0]!.message).toBe('filter.search: may have at most 32 words, got 33');
  });

  it('refuses a big `in` list, in a query and in a saved filter', async () => {
    // Over the 1,000 items any list may hold, it is refused before the filter is read
    // (docs/security.md "Lists"); under it, by the filter's own size rule.
    const huge = Array.from({ length: 20_000 }, (_, i) => `W-${i}`);
    const refused = await roomy.graphql<any>(
      LIST,
      { f: { property: { name: 'status', in: huge } } },
      roomyDemo,
    );
    expect(refused.status).toBe(400);
    expect(refused.body.errors![0]!.extensions).toMatchObject({
      code: 'BAD_USER_INPUT',
      limit: 'maxListLength',
    });
    const big = Array.from({ length: 600 }, (_, i) => `W-${i}`);
    const r = await roomy.graphql<any>(LIST, { f: { property: { name: 'status', in: big } } }, roomyDemo);
    expectClientError(r, 'INVALID_FILTER');
    expect(r.body.errors![0]!.message).toBe('filter.property.in: the filter has more than 500 nodes');
    const saved = await roomy.graphql<any>(
      CREATE,
      { input: { id: 'big', displayName: 'Big', profile: 'well', filter: { ids: big }, subProfiles: [] } },
      roomyDemo,
    );
    expect(saved.body.data.createAssetFilter).toEqual({
      errors: [{ type: 'INVALID_FILTER', message: 'filter.ids: the filter has more than 500 nodes' }],
      assetFilter: null,
    });
  });

  it('bounds a saved filter’s description', async () => {
    const input = (description: string) => ({
      input: { id: 'described', displayName: 'D', description, profile: 'well', subProfiles: [] },
    });
    const long = await t.graphql<any>(CREATE, input('d'.repeat(20_001)), demo);
    expect(long.body.data.createAssetFilter).toEqual({
      errors: [{ type: 'INVALID_INPUT', message: 'description may have at most 20000 characters.' }],
      assetFilter: null,
    });
    const ok = await t.graphql<any>(CREATE, input('d'.repeat(20_000)), demo);
    expect(ok.body.data.createAssetFilter).toEqual({ errors: [], assetFilter: { id: 'described' } });
  });

  it('serves a filter at the limit', async () => {
    const all = await t.database.db
      .selectFrom('assets')
      .select('id')
      .where('user_group', '=', 'demo')
      .where('profile', '=', 'well')
      .orderBy('id')
      .limit(5)
      .execute();
    // The filter and its condition are 2 nodes, the ids 498: exactly 500.
    const ids = [...all.map((a) => a.id), ...Array.from({ length: 498 - all.length }, (_, i) => `nope-${i}`)];
    const r = await t.graphql<any>(LIST, { f: { ids } }, demo);
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.assetProfiles.byId.assets.edges.map((e: any) => e.node.id)).toEqual(
      all.map((a) => a.id),
    );
    const search = await t.graphql<any>(LIST, { f: { search: words(32) } }, demo);
    expect(search.body.errors).toBeUndefined();
    const over = await t.graphql<any>(LIST, { f: { ids: [...ids, 'one-more'] } }, demo);
    expectClientError(over, 'INVALID_FILTER');
  });
});

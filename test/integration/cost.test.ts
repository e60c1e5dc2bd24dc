/**
 * The cost model (GraphQL Cost Specification over the subgraphs' @cost/@listSize) and the
 * run-time bounds behind it, at the gateway and at a subgraph's own port (docs/security.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DOCUMENT_LIMITS } from '../../src/config/index.ts';
import { seedDemo } from '../../src/demo/seed.ts';
import { IDENTITY_HEADER, type Identity, IdentitySigner } from '../../src/shared/identity.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';

const SECRET = 'cost-test-secret-0123456789abcdefghijklmn';
const DEMO: Identity = {
  kind: 'session',
  username: 'demo',
  userGroup: 'demo',
  clientType: 'EXPLORER',
  sessionHash: null,
};

/** Three levels of MANY `related` under a page whose size comes from a variable. */
const THREE_LEVELS = `query($n: Int) { assets(profile: "facility") { all(first: $n) { edges { node { id
  related(relationship: "wells") { ... on AssetRelationshipMany { assets { id
    related(relationship: "equipment") { ... on AssetRelationshipMany { assets { id
      related(relationship: "sensors") { ... on AssetRelationshipMany { assets { id } } } } } } } } } } } } } }`;

/** Facility → wells → equipment: two levels of MANY `related` from one facility. */
const TWO_LEVELS = `query($id: ID!) { assets(profile: "facility") { byId(id: $id) { id
  related(relationship: "wells") { ... on AssetRelationshipMany { assets { id
    related(relationship: "equipment") { ... on AssetRelationshipMany { assets { id displayName } } } } } } } } }`;

const PAGE = `query($n: Int) { assets(profile: "well") { all(first: $n) { edges { node { id properties } } } } }`;

let database: TestDatabase;
let statements = 0;
let gateway: TestApp;
let assets: TestApp;
let headers: Record<string, string>;
const signer = new IdentitySigner(SECRET);

beforeAll(async () => {
  database = await freshDatabase({
    onConnect(client) {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      (client as unknown as { query: unknown }).query = (...args: unknown[]) => {
        statements++;
        return query(...args);
      };
    },
  });
  gateway = await startTestApp({ database, config: { secret: SECRET } });
  assets = await startTestApp({
    database,
    role: { kind: 'subgraph', name: 'assets' },
    config: { secret: SECRET },
  });
  await seedDemo(database.db, gateway.config);
  headers = { 'x-svc-sessionid': await gateway.sessionFor('demo', 'demo') };
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await assets?.close();
  await database?.close();
});

interface Answer {
  status: number;
  body: { data?: any; errors?: { message: string; extensions?: Record<string, unknown> }[] };
}

/** POSTs to the assets subgraph's own `/graphql`, as a router (or anyone at its port) would. */
async function atSubgraph(query: string, variables: Record<string, unknown> = {}): Promise<Answer> {
  const response = await assets.handle(
    new Request('http://assets.subgraph.test/graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json, application/json',
        [IDENTITY_HEADER]: await signer.sign(DEMO),
      },
      body: JSON.stringify({ query, variables }),
    }),
  );
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

function expectCostRefusal(r: Answer, maximum = DEFAULT_DOCUMENT_LIMITS.maxCost) {
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  expect(r.body.data ?? null).toBeNull();
  expect(r.body.errors).toHaveLength(1);
  expect(r.body.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', limit: 'maxCost', maximum });
  expect(r.body.errors![0]!.message).toMatch(/^The query costs \d+; at most \d+ is allowed\.$/);
}

describe('the cost of an operation', () => {
  it('refuses three levels of MANY related, the page size from a variable, at the gateway before anything runs', async () => {
    // What resolving the session costs (it may read the database); the operation adds nothing.
    let before = statements;
    await gateway.graphql('{ __typename }', {}, headers);
    const sessionOnly = statements - before;
    before = statements;
    const r = await gateway.graphql(THREE_LEVELS, { n: 2 }, headers);
    expectCostRefusal(r);
    expect(statements - before).toBeLessThanOrEqual(sessionOnly);
  });

  it('refuses an operation planned across subgraphs through the runtime’s demand control', async () => {
    const made = await gateway.graphql<any>(
      `mutation { createIssue(input: { displayName: "Pump noise", subject: { type: "asset", reference: "facility/F-100-1" } }) { issue { id } } }`,
      {},
      headers,
    );
    expect(made.body.errors).toBeUndefined();
    // The issues subgraph lists the issues; the assets subgraph resolves their subjects.
    const planned = `query($n: Int) { issues { all(first: $n) { edges { node { id subject { assetReference { asset { id
      related(relationship: "wells") { ... on AssetRelationshipMany { assets { id
        related(relationship: "equipment") { ... on AssetRelationshipMany { assets { id
          related(relationship: "sensors") { ... on AssetRelationshipMany { assets { id } } } } } } } } } } } } } } } } }`;
    expectCostRefusal(await gateway.graphql(planned, { n: 5 }, headers));
    const cheap = await gateway.graphql<any>(
      `query($n: Int) { issues { all(first: $n) { edges { node { id subject { assetReference { asset { id displayName } } } } } } } }`,
      { n: 5 },
      headers,
    );
    expect(cheap.body.errors).toBeUndefined();
    expect(cheap.body.data.issues.all.edges[0].node.subject.assetReference.asset.id).toBe('F-100-1');
  });

  it('refuses a crowd of such operations at once, and serves an honest client among them', async () => {
    const hostile = Array.from({ length: 20 }, (_, i) =>
      gateway.graphql(THREE_LEVELS, { n: 1 + i }, headers),
    );
    const honest = gateway.graphql<any>(PAGE, { n: 100 }, headers);
    for (const r of await Promise.all(hostile)) expectCostRefusal(r);
    const page = await honest;
    expect(page.body.errors).toBeUndefined();
    expect(page.body.data.assets.all.edges.length).toBeGreaterThan(0);
  });

  it('refuses the same operation sent straight to the assets subgraph', async () => {
    const before = statements;
    const r = await atSubgraph(THREE_LEVELS, { n: 2 });
    expectCostRefusal(r);
    // The identity is verified from its signature: the refusal read nothing.
    expect(statements - before).toBe(0);
  });

  it('counts the page size given in a variable, not 1', async () => {
    // Two levels from a page: within the budget for a few facilities, over it for a page of 1000.
    const two = `query($n: Int) { assets(profile: "facility") { all(first: $n) { edges { node { id
      related(relationship: "wells") { ... on AssetRelationshipMany { assets { id
        related(relationship: "equipment") { ... on AssetRelationshipMany { assets { id } } } } } } } } } } }`;
    const ok = await gateway.graphql(two, { n: 3 }, headers);
    expect(ok.status).toBe(200);
    expect(ok.body.errors).toBeUndefined();
    expectCostRefusal(await gateway.graphql(two, { n: 1000 }, headers));
    expectCostRefusal(await atSubgraph(two, { n: 1000 }));
  });

  it('serves a page of 100 assets with their properties, at the gateway and at the subgraph', async () => {
    const r = await gateway.graphql<any>(PAGE, { n: 100 }, headers);
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.assets.all.edges.length).toBeGreaterThan(0);
    expect(r.body.data.assets.all.edges[0].node.properties).toBeTypeOf('object');
    const s = await atSubgraph(PAGE, { n: 100 });
    expect(s.body.errors).toBeUndefined();
    expect(s.body.data).toEqual(r.body.data);
  });

  it('serves facility → wells → equipment through two levels of related', async () => {
    const r = await gateway.graphql<any>(TWO_LEVELS, { id: 'F-100-1' }, headers);
    expect(r.body.errors).toBeUndefined();
    const wells = r.body.data.assets.byId.related.assets;
    expect(wells.length).toBeGreaterThan(0);
    const equipment = wells.flatMap((w: any) => w.related?.assets ?? []);
    expect(equipment.length).toBeGreaterThan(0);
  });

  it('prices fragments spread into fragments once each: refused at once, anonymous or not, here or planned', async () => {
    // 12^7 paths to the session, within the depth limit: pricing walked each path, an event loop
    // held for minutes by ~250 tokens.
    const fanOut = (last: string) =>
      `{ ...F0 } ${Array.from({ length: 7 }, (_, i) => `fragment F${i} on Query { ${`...F${i + 1} `.repeat(12)}}`).join(' ')} fragment F7 on Query { ${last} }`;
    expectCostRefusal(await gateway.graphql(fanOut('session { authenticated }'), {}, {}));
    // Planned across two subgraphs it is refused too (by the depth its spreads reach there).
    const planned = await gateway.graphql<any>(
      fanOut('session { authenticated } issues { all(first: 2) { edges { node { id } } } }'),
      {},
      headers,
    );
    expect(planned.status).toBe(400);
    expect(planned.body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
    const subgraph = await assets.graphql(
      fanOut('assetProfiles { byId(profile: "well") { profile } }'),
      {},
      {
        [IDENTITY_HEADER]: signer.sign(DEMO),
      },
    );
    expectCostRefusal(subgraph);
  });
});

describe('the document limits of a subgraph', () => {
  it('are the gateway’s: a subgraph refuses a document nested deeper than maxDepth', async () => {
    const deep = `{ assets(profile: "well") { all(first: 1) { edges { node { ${'related { ... on AssetRelationshipOne { asset { '.repeat(6)} id ${'} } }'.repeat(6)} } } } } }`;
    const r = await atSubgraph(deep);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', limit: 'maxDepth' });
  });

  it('refuse more aliases than maxAliases at a subgraph', async () => {
    const many = Array.from(
      { length: DEFAULT_DOCUMENT_LIMITS.maxAliases + 1 },
      (_, i) => `a${i}: assets(profile: "well") { profile }`,
    );
    const r = await atSubgraph(`{ ${many.join(' ')} }`);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.errors![0]!.extensions).toMatchObject({ code: 'BAD_USER_INPUT', limit: 'maxAliases' });
  });
});

describe('introspection at a subgraph in production', () => {
  let production: TestApp;
  beforeAll(async () => {
    production = await startTestApp({
      database,
      role: { kind: 'subgraph', name: 'assets' },
      config: { secret: SECRET, introspection: false },
    });
  });
  afterAll(() => production?.close());

  async function ask(query: string, variables: Record<string, unknown> = {}) {
    const response = await production.handle(
      new Request('http://assets.subgraph.test/graphql', {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          [IDENTITY_HEADER]: await signer.sign(DEMO),
        },
        body: JSON.stringify({ query, variables }),
      }),
    );
    return (await response.json()) as Answer['body'];
  }

  it('refuses __schema and __type, but keeps _service { sdl } and _entities for routers', async () => {
    const schema = await ask('{ __schema { types { name } } }');
    expect(schema.data ?? null).toBeNull();
    expect(schema.errors?.[0]?.message).toMatch(/introspection/i);
    const type = await ask('{ __type(name: "Asset") { name } }');
    expect(type.errors?.[0]?.message).toMatch(/introspection/i);
    const sdl = await ask('{ _service { sdl } }');
    expect(sdl.errors).toBeUndefined();
    expect(sdl.data._service.sdl).toContain('type Asset');
    const entities = await ask(
      'query($r: [_Any!]!) { _entities(representations: $r) { ... on Asset { id displayName } } }',
      { r: [{ __typename: 'Asset', profile: 'facility', id: 'F-100-1' }] },
    );
    expect(entities.errors).toBeUndefined();
    expect(entities.data._entities[0].id).toBe('F-100-1');
  });
});

/**
 * Any Federation v2 router can serve our subgraphs (ARCHITECTURE.md): Apollo Gateway, fed
 * Apollo's own composition of the same SDLs, must answer cross-subgraph queries exactly as
 * our Hive-based gateway does. Both reach the same three subgraphs over real HTTP.
 */
import { composeServices } from '@apollo/composition';
import { ApolloGateway, RemoteGraphQLDataSource } from '@apollo/gateway';
import { ApolloServer } from '@apollo/server';
import { parse } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, SUBGRAPH_NAMES, type SubgraphName } from '../../src/config/index.ts';
import { DEMO_PROFILE_DOCUMENTS, seedDemo } from '../../src/demo/seed.ts';
import { type App, createApp, TYPE_DEFS } from '../../src/server/app.ts';
import { type Listening, listen } from '../../src/server/listen.ts';
import { ManualClock } from '../../src/shared/clock.ts';
import { IDENTITY_HEADER, type Identity, IdentitySigner } from '../../src/shared/identity.ts';
import { createLogger } from '../../src/shared/logger.ts';
import { hashSessionId, SESSION_HEADER } from '../../src/shared/session-policy.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';

const SECRET = 'apollo-parity-test-secret-0123456789abcdef';
const log = createLogger('silent');

interface Result {
  data?: unknown;
  errors?: readonly { message: string; extensions?: Record<string, unknown> }[];
}

let database: TestDatabase;
const subgraphApps: App[] = [];
const servers: Listening[] = [];
/** Our gateway (role `gateway`, reaching the subgraphs over HTTP), driven in-process. */
let ours: TestApp;
let apollo: ApolloServer;
/** The session our gateway resolves; Apollo Gateway is handed the same identity, signed. */
let sessionId: string;
let identity: Identity;

beforeAll(async () => {
  database = await freshDatabase();
  const subgraphConfig = loadConfig({ secret: SECRET, env: 'demo', logLevel: 'silent', demoData: false }, {});
  await seedDemo(database.db, subgraphConfig);

  const urls = {} as Record<SubgraphName, string>;
  for (const name of SUBGRAPH_NAMES) {
    const app = await createApp(
      subgraphConfig,
      { kind: 'subgraph', name },
      { database, migrate: false, log },
    );
    subgraphApps.push(app);
    const server = await listen(app.handle, 0, '127.0.0.1');
    servers.push(server);
    urls[name] = `${server.url}/graphql`;
  }

  // startTestApp builds its config as loadConfig({ env: 'demo', logLevel: 'silent', demoData: false, ... }, {}).
  ours = await startTestApp({
    database,
    role: { kind: 'gateway' },
    config: { subgraphUrls: urls, secret: SECRET },
    clock: new ManualClock(Date.now()),
  });

  const composed = composeServices(
    SUBGRAPH_NAMES.map((name) => ({ name, typeDefs: parse(TYPE_DEFS[name]), url: urls[name] })),
  );
  if (composed.errors) throw new Error(composed.errors.map((e) => e.message).join('\n'));

  sessionId = await ours.sessionFor('demo', 'demo');
  // What our gateway's session resolver makes of that session (the client address unknown).
  identity = {
    kind: 'session',
    username: 'demo',
    userGroup: 'demo',
    clientType: 'EXPLORER',
    sessionHash: hashSessionId(sessionId).toString('hex'),
    clientIp: null,
  };

  const signer = new IdentitySigner(SECRET);
  const quiet = { debug() {}, info() {}, warn() {}, error() {} };
  const gateway = new ApolloGateway({
    supergraphSdl: composed.supergraphSdl,
    logger: quiet,
    buildService: ({ url }) =>
      new RemoteGraphQLDataSource<{ identity?: Identity }>({
        url,
        async willSendRequest({ request, context }) {
          // Apollo Gateway knows nothing of our sessions: it forwards a test user's identity.
          if (context.identity)
            request.http?.headers.set(IDENTITY_HEADER, await signer.sign(context.identity));
        },
      }),
  });
  apollo = new ApolloServer({ gateway, logger: quiet });
  await apollo.start();
}, 120_000);

afterAll(async () => {
  await apollo?.stop();
  await ours?.close();
  await Promise.all(servers.map((s) => s.close(1000)));
  await Promise.all(subgraphApps.map((a) => a.close()));
  await database?.close();
});

async function viaOurs(
  query: string,
  variables: Record<string, unknown>,
  signedIn: boolean,
): Promise<Result> {
  const response = await ours.handle(
    new Request('http://localhost:4000/api/graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
        ...(signedIn ? { [SESSION_HEADER]: sessionId } : {}),
      },
      body: JSON.stringify({ query, variables }),
    }),
  );
  return (await response.json()) as Result;
}

async function viaApollo(
  query: string,
  variables: Record<string, unknown>,
  signedIn: boolean,
): Promise<Result> {
  const response = await apollo.executeOperation(
    { query, variables },
    { contextValue: signedIn ? { identity } : {} },
  );
  if (response.body.kind !== 'single') throw new Error('expected a single result from Apollo Server');
  return response.body.singleResult as Result;
}

/** Runs one operation through both gateways; both must succeed and give the same data. */
async function both<T = unknown>(
  query: string,
  variables: Record<string, unknown> = {},
  signedIn = true,
): Promise<T> {
  const [a, b] = await Promise.all([
    viaOurs(query, variables, signedIn),
    viaApollo(query, variables, signedIn),
  ]);
  expect(a.errors, `our gateway: ${JSON.stringify(a.errors)}`).toBeUndefined();
  expect(b.errors, `Apollo Gateway: ${JSON.stringify(b.errors)}`).toBeUndefined();
  expect(b.data).toEqual(a.data);
  return a.data as T;
}

type Edges<N> = { edges: { node: N }[] };
type SessionData = { session: { authenticated: boolean; username: string | null; userGroup: string | null } };

describe('our gateway and Apollo Gateway give the same data', () => {
  it('session, anonymous and signed in (auth subgraph)', async () => {
    const q = `{ session { username authenticated userGroup expiresAt expiresAtHard lastAuthenticatedAt clientApplicationType } config { auth { loginEnabled ssoEnabled } } }`;
    const anonymous = await both<SessionData>(q, {}, false);
    expect(anonymous.session).toMatchObject({ authenticated: false, username: null });
    const signedIn = await both<SessionData>(q);
    expect(signedIn.session).toMatchObject({ authenticated: true, username: 'demo', userGroup: 'demo' });
  });

  it('asset profiles with properties, owners and nested relationship profiles', async () => {
    const data = await both<{ assetProfiles: { all: Edges<{ profile: string; owner: unknown }> } }>(`{
      assetProfiles { all(first: 10) {
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
        edges { cursor node {
          profile title displayNameProperty displayNameTemplate secondaryDisplayNameProperty isDeletedProperty
          owner { username group }
          properties { name type title unit required default enumValues extension }
          relationships {
            relationship type profile referenceProperty referenceType lookupProperty lookupType
            assetProfile { profile title owner { username group } relationships { relationship assetProfile { profile } } }
          }
          extensions
        } }
      } }
    }`);
    expect(data.assetProfiles.all.edges.map((e) => e.node.profile)).toEqual(
      Object.keys(DEMO_PROFILE_DOCUMENTS).sort(),
    );
    expect(data.assetProfiles.all.edges[0]?.node.owner).toEqual({ username: 'demo', group: 'demo' });
  });

  it('asset → issueSubject.issues → subject.assetReference.asset (assets ⇄ issues, both ways)', async () => {
    const data = await both<{
      assets: {
        byId: { issueSubject: { issues: Edges<{ subject: { assetReference: { asset: { id: string } } } }> } };
      };
    }>(`{ assets(profile: "well") { byId(id: "W-100-1-1") {
      id profile displayName secondaryDisplayName
      issueSubject { type reference issues(first: 5) {
        pageInfo { hasNextPage endCursor }
        edges { cursor node {
          id displayName description status createdAt audit { createdAt createdBy { userId } }
          subject { type reference assetReference { profile id asset { id displayName properties(only: ["status", "uwi"]) } } }
        } }
      } }
    } } }`);
    const issues = data.assets.byId.issueSubject.issues.edges;
    expect(issues).toHaveLength(1);
    expect(issues[0]?.node.subject.assetReference.asset.id).toBe('W-100-1-1');
  });

  it('issues → subject.assetReference.asset with geometry fragments and properties(only:)', async () => {
    const data = await both<{
      issues: {
        all: Edges<{
          subject: {
            assetReference: { asset: { geometry: { type: string }; properties: Record<string, unknown> } };
          };
        }>;
      };
    }>(`{ issues { all(first: 10) { edges { node {
      displayName
      subject { assetReference { asset {
        displayName profile
        properties(only: ["depth", "status"])
        geometry { type bbox ... on GeoJSONPoint { coordinates } ... on GeoJSONPolygon { rings: coordinates } }
        assetProfile { title owner { username group } }
      } } }
    } } } } }`);
    const asset = data.issues.all.edges[0]!.node.subject.assetReference.asset;
    expect(asset.geometry.type).toBe('Point');
    expect(Object.keys(asset.properties).sort()).toEqual(['depth', 'status']);
  });

  it('pages of assets with geometry, features, issues and profile relationships', async () => {
    const q = `query($after: String) { assets(profile: "facility") {
      profile assetProfile { profile }
      all(first: 2, after: $after) {
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
        edges { cursor node {
          id displayName secondaryDisplayName isDeleted
          properties(only: ["kind", "siteId"])
          geometry { type ... on GeoJSONPoint { coordinates } }
          geoJSONFeature { id type geometry { ... on GeoJSONPoint { coordinates } } }
          issueSubject { reference issues(first: 1) { edges { node { displayName } } } }
          assetProfile { relationships { relationship type assetProfile { profile displayNameTemplate } } }
        } }
      }
    } }`;
    type Page = {
      assets: { all: Edges<unknown> & { pageInfo: { hasPreviousPage: boolean; endCursor: string | null } } };
    };
    const first = await both<Page>(q, { after: null });
    expect(first.assets.all.edges).toHaveLength(2);
    const second = await both<Page>(q, { after: first.assets.all.pageInfo.endCursor });
    expect(second.assets.all.pageInfo.hasPreviousPage).toBe(true);
  });

  it('one profile by id, its assets, and an asset by id with its issues', async () => {
    await both(`{ assetProfiles { byId(profile: "well") {
      profile owner { username group }
      assets(first: 3) { edges { node {
        id displayName
        properties(only: ["facilityId"])
        assetProfile { profile }
        issueSubject { type reference }
      } } }
      assetById(id: "W-100-1-2") { id displayName issueSubject { issues { edges { node { id } } } } }
    } } }`);
  });

  it('several subgraphs at the root, with aliases, fragments and variables', async () => {
    await both(
      `query($profile: ID!, $id: ID!) {
        me: session { username userGroup }
        well: assets(profile: $profile) { byId(id: $id) { ...AssetBits } }
        missing: assets(profile: "no-such-profile") { profile }
        nobody: assets(profile: $profile) { byId(id: "W-404") { ...AssetBits } }
        issues { all(first: 1) { edges { node { ...IssueBits } } } }
      }
      fragment AssetBits on Asset { id displayName properties(only: ["name"]) issueSubject { issues { edges { node { ...IssueBits } } } } }
      fragment IssueBits on Issue { displayName status subject { assetReference { id asset { displayName } } } }`,
      { profile: 'well', id: 'W-100-1-1' },
    );
  });

  it('geometry interface: __typename and fields common to every geometry', async () => {
    await both(`{ assets(profile: "site") { all(first: 10) { edges { node {
      id
      geometry { __typename type bbox ... on GeoJSONPoint { coordinates } ... on GeoJSONMultiPoint { points: coordinates } ... on GeoJSONGeometryCollection { geometries { type } } }
      assetProfile { relationships { assetProfile { profile relationships { profile } } } }
    } } } } }`);
  });

  it('a mutation whose result crosses into the assets subgraph', async () => {
    const m = `mutation($input: CreateIssueInput!) { createIssue(input: $input, correlationId: "parity") {
      correlationId errors { message type }
      issue { displayName status audit { createdBy { userId } } subject { type reference assetReference { asset { displayName } } } }
    } }`;
    const input = { displayName: 'Parity check', subject: { type: 'asset', reference: 'well/W-200-2-3' } };
    const [a, b] = [await viaOurs(m, { input }, true), await viaApollo(m, { input }, true)];
    expect(a.errors).toBeUndefined();
    expect(b.errors).toBeUndefined();
    expect(b.data).toEqual(a.data);
    // Both writes are visible to both gateways, in the same order.
    const listing = await both<{
      assets: { byId: { issueSubject: { issues: Edges<unknown> } } };
    }>(`{ assets(profile: "well") { byId(id: "W-200-2-3") {
      issueSubject { issues { edges { cursor node { id displayName createdAt } } } }
    } } }`);
    expect(listing.assets.byId.issueSubject.issues.edges).toHaveLength(2);
  });
});

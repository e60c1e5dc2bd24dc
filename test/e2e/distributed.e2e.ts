/**
 * The distributed form (three `serve --subgraph` processes and a `serve --gateway` process,
 * talking over HTTP) must answer exactly as the single process does, on the same database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBGRAPH_NAMES, type SubgraphName } from '../../src/config/index.ts';
import { DEMO_PROFILE_DOCUMENTS, seedDemo } from '../../src/demo/seed.ts';
import { ManualClock } from '../../src/shared/clock.ts';
import { REQUEST_ID_HEADER } from '../../src/shared/identity.ts';
import { SESSION_HEADER } from '../../src/shared/session-policy.ts';
import { openDatabase } from '../../src/storage/database.ts';
import { migrateToLatest } from '../../src/storage/migrate.ts';
import { BASE, startTestApp, type TestApp } from '../helpers/app.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';
import { lastOutput, type Served, serve, serveEnv, stop } from '../helpers/processes.ts';

const SECRET = 'distributed-e2e-secret-0123456789abcdefghij';

const children: Served[] = [];
let database: TestDatabase;
let dataDir: string | undefined;
let single: TestApp;
let gatewayUrl: string;
let sessionId: string;

/** The last lines every child wrote, to explain a failure. */
const childOutput = () => children.map((c) => lastOutput(c)).join('\n');

/** Starts `assetql serve ...args` as a child and resolves with the URL it listens at. */
async function serveChild(name: string, args: string[], env: Record<string, string>): Promise<string> {
  const served = await serve(name, args, env);
  children.push(served);
  return served.url;
}

beforeAll(async () => {
  const env: Record<string, string> = serveEnv(SECRET);
  if (process.env.DATABASE_URL) {
    database = await freshDatabase();
    env.DATABASE_URL = database.url!;
  } else {
    // This process opens the embedded database first, so it serves it on a socket in
    // DATA_DIR and the children attach to it there.
    dataDir = mkdtempSync(join(tmpdir().length < 40 ? tmpdir() : '/tmp', 'aq-e2e-'));
    const embedded = await openDatabase({ dataDir });
    expect(embedded.ownsEmbedded).toBe(true);
    await migrateToLatest(embedded.db);
    database = Object.assign(embedded, { url: undefined });
    env.DATA_DIR = dataDir;
  }
  // The clock reads now: the children use the system clock on the same sessions.
  single = await startTestApp({ database, config: { secret: SECRET }, clock: new ManualClock(Date.now()) });
  await seedDemo(database.db, single.config);

  const urls = await Promise.all(
    SUBGRAPH_NAMES.map((name) => serveChild(`subgraph ${name}`, ['--subgraph', name], env)),
  );
  const subgraphEnv = Object.fromEntries(
    SUBGRAPH_NAMES.map((name: SubgraphName, i) => [`ASSETQL_SUBGRAPH_${name.toUpperCase()}_URL`, urls[i]!]),
  );
  gatewayUrl = await serveChild('gateway', ['--gateway'], { ...env, ...subgraphEnv });
  expect(gatewayUrl).toMatch(/\/api\/graphql$/);

  // Last, so the session is fresh for both forms (the same logic as sessionFor).
  sessionId = await single.sessionFor('demo', 'demo');
}, 180_000);

afterAll(async () => {
  await Promise.all(children.map((c) => stop(c.child)));
  await single?.close();
  await database?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

interface Answer {
  status: number;
  requestId: string | null;
  body: { data?: unknown; errors?: { message: string; extensions?: Record<string, unknown> }[] };
}

type Operation = { query: string; variables?: Record<string, unknown>; signedIn?: boolean };

function request(url: string, op: Operation): Request {
  return new Request(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/graphql-response+json',
      ...(op.signedIn ? { [SESSION_HEADER]: sessionId } : {}),
    },
    body: JSON.stringify({ query: op.query, variables: op.variables ?? {} }),
  });
}

async function answer(response: Response): Promise<Answer> {
  const text = await response.text();
  let body: Answer['body'];
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`not JSON (status ${response.status}): ${text.slice(0, 500)}\n${childOutput()}`);
  }
  return { status: response.status, requestId: response.headers.get(REQUEST_ID_HEADER), body };
}

const distributed = async (op: Operation) =>
  answer(await fetch(request(gatewayUrl, op), { signal: AbortSignal.timeout(20_000) }));
const inProcess = async (op: Operation) => answer(await single.handle(request(`${BASE}/api/graphql`, op)));

/** Correlation ids are made per request; nothing else may differ between the two forms. */
function withoutCorrelationIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCorrelationIds);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        (k === 'correlationId' || k === 'requestId') && typeof v === 'string'
          ? '<correlation id>'
          : withoutCorrelationIds(v),
      ]),
    );
  }
  return value;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** For writes: each form makes its own row, so its generated id and timestamps differ. */
function withoutGenerated(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map((v) => withoutGenerated(v));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutGenerated(v, k)]));
  }
  if (typeof value !== 'string') return value;
  if (key === 'correlationId' || key === 'requestId') return '<correlation id>';
  if (key === 'createdAt' || key === 'updatedAt') return '<timestamp>';
  if (UUID.test(value)) return '<uuid>';
  return value;
}

/** Sends one operation to both forms and expects the same status and JSON. */
async function same(op: Operation, normalise: (v: unknown) => unknown = withoutCorrelationIds) {
  const d = await distributed(op);
  const s = await inProcess(op);
  const context = `${op.query}\n${childOutput()}`;
  expect({ status: d.status, body: normalise(d.body) }, context).toEqual({
    status: s.status,
    body: normalise(s.body),
  });
  return { d, s };
}

/** As `same`, for operations that must succeed. */
async function sameData<T>(op: Operation, normalise?: (v: unknown) => unknown): Promise<T> {
  const { d } = await same(op, normalise);
  expect(d.body.errors, `${JSON.stringify(d.body.errors)}\n${childOutput()}`).toBeUndefined();
  expect(d.status).toBe(200);
  return d.body.data as T;
}

type Edges<N> = { edges: { node: N }[] };
type SessionData = { session: { authenticated: boolean; username: string | null; userGroup: string | null } };
interface CreateIssueData {
  createIssue: { correlationId: string; errors: unknown[]; issue: { id: string } };
}

describe('distributed form (separate processes) and single process', () => {
  it('answer the session query alike, anonymous and signed in', async () => {
    const q = `{ session {
      username authenticated expiresAt expiresAtHard userGroup challengeName challengeParam
      lastAuthenticatedAt clientApplicationType userGroups
    } }`;
    const anonymous = await sameData<SessionData>({ query: q });
    expect(anonymous.session).toMatchObject({ authenticated: false, username: null });
    const signedIn = await sameData<SessionData>({ query: q, signedIn: true });
    expect(signedIn.session).toMatchObject({ authenticated: true, username: 'demo', userGroup: 'demo' });
  });

  it('list asset profiles with their properties and relationships alike', async () => {
    const data = await sameData<{ assetProfiles: { all: Edges<{ profile: string }> } }>({
      signedIn: true,
      query: `{ assetProfiles { all {
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
        edges { cursor node {
          profile title owner { username group }
          displayNameProperty displayNameTemplate secondaryDisplayNameProperty isDeletedProperty forceAssetStateUpdates
          properties { name type title description unit required default enumValues extension }
          relationships {
            relationship type profile referenceProperty referenceType lookupProperty lookupType title
            assetProfile { profile title relationships { relationship assetProfile { profile } } }
          }
          extensions
        } }
      } } }`,
    });
    expect(data.assetProfiles.all.edges.map((e) => e.node.profile)).toEqual(
      Object.keys(DEMO_PROFILE_DOCUMENTS).sort(),
    );
  });

  it('page through assets alike', async () => {
    const q = `query($after: String) { assets(profile: "well") {
      profile
      all(first: 7, after: $after) {
        pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
        edges { cursor node {
          id profile displayName secondaryDisplayName isDeleted modifiedAt
          properties(only: ["status", "depth", "facilityId"])
          geometry { type bbox ... on GeoJSONPoint { coordinates } }
        } }
      }
    } }`;
    const ids: string[] = [];
    let after: string | null = null;
    type Page = {
      assets: {
        all: Edges<{ id: string }> & { pageInfo: { hasNextPage: boolean; endCursor: string | null } };
      };
    };
    for (let page = 0; page < 10; page++) {
      const data: Page = await sameData<Page>({ query: q, variables: { after }, signedIn: true });
      ids.push(...data.assets.all.edges.map((e) => e.node.id));
      if (!data.assets.all.pageInfo.hasNextPage) break;
      after = data.assets.all.pageInfo.endCursor;
    }
    expect(ids).toHaveLength(24);
    expect(new Set(ids).size).toBe(24);
  });

  it('resolve an asset’s issues across subgraphs alike', async () => {
    const data = await sameData<{ assets: { byId: { issueSubject: { issues: Edges<unknown> } } } }>({
      signedIn: true,
      query: `{ assets(profile: "well") { byId(id: "W-100-1-1") {
        displayName
        issueSubject { issues { edges { node { displayName audit { createdBy { userId } } } } } }
      } } }`,
    });
    expect(data.assets.byId.issueSubject.issues.edges).toEqual([
      { node: { displayName: 'Casing pressure above threshold', audit: { createdBy: { userId: 'demo' } } } },
    ]);
  });

  it('resolve issues’ assets across subgraphs alike', async () => {
    const data = await sameData<{ issues: { all: Edges<unknown> } }>({
      signedIn: true,
      query: `{ issues { all { edges { node { subject { assetReference { asset { displayName } } } } } } } }`,
    });
    expect(data.issues.all.edges.length).toBeGreaterThan(0);
  });

  it('create an issue alike (same shape; ids and times are each form’s own)', async () => {
    const op: Operation = {
      signedIn: true,
      query: `mutation($input: CreateIssueInput!) { createIssue(input: $input) {
        correlationId errors { message type }
        issue { id displayName description status createdAt audit { createdAt createdBy { userId } }
          subject { type reference assetReference { profile id asset { displayName } } } }
      } }`,
      variables: {
        input: {
          displayName: 'Flare stack check',
          description: 'e2e',
          subject: { type: 'asset', reference: 'well/W-100-1-2' },
        },
      },
    };
    const { d, s } = await same(op, withoutGenerated);
    expect(d.body.errors).toBeUndefined();
    const created = (d.body.data as CreateIssueData).createIssue;
    const other = (s.body.data as CreateIssueData).createIssue;
    expect(created.errors).toEqual([]);
    expect(created.issue.id).toMatch(UUID);
    expect(created.issue.id).not.toBe(other.issue.id);
    // The correlation id is the request's, echoed in the response header.
    expect(created.correlationId).toBe(d.requestId);
    expect(other.correlationId).toBe(s.requestId);

    // Both writes went to the one database: each form now lists both.
    const listing = await sameData<{ assets: { byId: { issueSubject: { issues: Edges<unknown> } } } }>({
      signedIn: true,
      query: `{ assets(profile: "well") { byId(id: "W-100-1-2") { issueSubject { issues { edges { cursor node { id displayName createdAt } } } } } } }`,
    });
    expect(listing.assets.byId.issueSubject.issues.edges).toHaveLength(2);
  });

  it('serve an export link made by either form, byte for byte alike', async () => {
    const q = `{ assetProfiles { byId(profile: "well") {
      assetsExport(properties: ["name", "status", "depth"], filter: { property: { name: "status", equals: "producing" } }) {
        csvFileDownloadUrl(exportName: "wells") } } } }`;
    type Link = { assetProfiles: { byId: { assetsExport: { csvFileDownloadUrl: string } } } };
    const made = (await inProcess({ query: q, signedIn: true })).body.data as Link;
    const link = new URL(made.assetProfiles.byId.assetsExport.csvFileDownloadUrl);
    const viaGateway = await fetch(new URL(link.pathname, gatewayUrl), {
      signal: AbortSignal.timeout(20_000),
    });
    expect(viaGateway.status, childOutput()).toBe(200);
    expect(viaGateway.headers.get('content-disposition')).toBe('attachment; filename="wells.csv"');
    const local = await single.handle(new Request(link));
    const [a, b] = [await viaGateway.text(), await local.text()];
    expect(a.split('\n').length).toBeGreaterThan(2);
    expect(a).toBe(b);
    const tampered = await fetch(new URL(`${link.pathname}x`, gatewayUrl));
    expect(tampered.status).toBe(403);
  });

  it('refuse anonymous callers alike', async () => {
    const { d } = await same({ query: `{ issues { all { edges { node { id } } } } }` });
    expect(d.body.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
  });

  it('answer field errors and defaulted variables alike, each time', async () => {
    // Each sent three times: the subgraphs compile what they execute (src/execution/executors/compiled.ts),
    // and an answer with errors must not pass for one without, whatever order its keys come in.
    for (let i = 0; i < 3; i++) {
      const tooLong = await same({
        query: `{ assets(profile: "well") { profile all(first: 5000) { edges { node { id } } } } }`,
        signedIn: true,
      });
      expect(tooLong.d.body.errors?.[0]?.extensions?.serviceName).toBe('assets');
      // Located in the client's document, as in one process (#36, finding 5: the distributed
      // gateway dropped a subgraph's locations, which point into the text it was sent).
      expect((tooLong.d.body.errors?.[0] as { locations?: unknown } | undefined)?.locations).toEqual([
        { line: 1, column: 37 },
      ]);
      const defaulted = await sameData<{ assets: { profile: string } }>({
        query: `query($p: ID! = "well", $n: Int! = 2) { assets(profile: $p) { profile all(first: $n) { edges { node { id } } } } }`,
        signedIn: true,
      });
      expect(defaulted.assets.profile).toBe('well');
    }
  });

  it('reject invalid documents alike', async () => {
    const unknownField = await same({ query: `{ assets(profile: "well") { nope } }`, signedIn: true });
    expect(unknownField.d.status).toBeGreaterThanOrEqual(400);
    expect(unknownField.d.body.errors?.length).toBeGreaterThan(0);
    const syntax = await same({ query: `{ session { username `, signedIn: true });
    expect(syntax.d.body.errors?.[0]?.message).toMatch(/Syntax Error/);
    const badVariable = await same({
      query: `query($first: Int) { issues { all(first: $first) { edges { node { id } } } } }`,
      variables: { first: 'many' },
      signedIn: true,
    });
    expect(badVariable.d.body.errors?.length).toBeGreaterThan(0);
    // GraphQL over HTTP: no `data` (variables that do not coerce) is a 4xx for graphql-response+json.
    expect(badVariable.d.status).toBe(400);
  });
});

/**
 * Each subgraph as any Federation v2 router meets it: its own `/graphql`, called through its
 * fetch handler in process (Yoga's `fetch`), with the signed identity a gateway sends and the
 * `_entities(representations:)` queries a query planner makes. Every resolvable entity type
 * resolves the caller's own objects, and nothing of another tenant or for an anonymous caller.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed.ts';
import { IDENTITY_HEADER, type Identity, IdentitySigner } from '../../src/shared/identity.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';

/** One secret for the three subgraphs, as every process of a deployment shares it. */
const SECRET = 'entities-test-secret-0123456789abcdefghij';
const ISSUE_ID = '5b0c1f0e-3d4a-4a53-9a57-2d1f6b0d9e01';

const caller = (userGroup: string): Identity => ({
  kind: 'session',
  username: 'demo',
  userGroup,
  clientType: 'EXPLORER',
  sessionHash: null,
});

let database: TestDatabase;
const subgraphs = new Map<string, TestApp>();
let signer: IdentitySigner;

beforeAll(async () => {
  database = await freshDatabase();
  for (const name of ['assets', 'auth', 'issues'] as const) {
    subgraphs.set(
      name,
      await startTestApp({ database, role: { kind: 'subgraph', name }, config: { secret: SECRET } }),
    );
  }
  const any = subgraphs.get('assets')!;
  await seedDemo(database.db, any.config);
  signer = new IdentitySigner(SECRET);
}, 60_000);

afterAll(async () => {
  for (const app of subgraphs.values()) await app.close();
  await database?.close();
});

interface Answer {
  status: number;
  body: { data?: Record<string, unknown> | null; errors?: { extensions?: Record<string, unknown> }[] };
}

/** POSTs a document to one subgraph's `/graphql`, as a router does. */
async function ask(
  subgraph: string,
  query: string,
  variables: Record<string, unknown>,
  identity: Identity | null,
): Promise<Answer> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (identity) headers[IDENTITY_HEADER] = await signer.sign(identity);
  const response = await subgraphs.get(subgraph)!.handle(
    new Request(`http://${subgraph}.subgraph.test/graphql`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ query, variables }),
    }),
  );
  return { status: response.status, body: (await response.json()) as Answer['body'] };
}

/** `_entities` for `representations`, selecting `selection` on `type`. */
function entities(
  subgraph: string,
  type: string,
  selection: string,
  representations: Record<string, unknown>[],
  identity: Identity | null,
) {
  return ask(
    subgraph,
    `query ($r: [_Any!]!) { _entities(representations: $r) { ... on ${type} { ${selection} } } }`,
    { r: representations.map((r) => ({ __typename: type, ...r })) },
    identity,
  );
}

describe('assets subgraph entities', () => {
  it('resolves an Asset by profile and id, for its own tenant only', async () => {
    const key = { profile: 'well', id: 'W-100-1-1' };
    const own = await entities('assets', 'Asset', 'profile id displayName', [key], caller('demo'));
    expect(own.body.errors).toBeUndefined();
    expect(own.body.data?._entities).toEqual([
      expect.objectContaining({ ...key, displayName: expect.any(String) }),
    ]);
    const other = await entities('assets', 'Asset', 'id', [key], caller('nobody-group'));
    expect(other.body.data?._entities).toEqual([null]);
    const anonymous = await entities('assets', 'Asset', 'id', [key], null);
    expect(anonymous.body.data?._entities ?? [null]).toEqual([null]);
  });

  it('resolves an AssetProfile by name and an AssetSelectionFilter by id', async () => {
    const profile = await entities(
      'assets',
      'AssetProfile',
      'profile version',
      [{ profile: 'well' }],
      caller('demo'),
    );
    const { version } = await database.db
      .selectFrom('asset_profiles')
      .select('version')
      .where('user_group', '=', 'demo')
      .where('profile', '=', 'well')
      .executeTakeFirstOrThrow();
    expect(profile.body.data?._entities).toEqual([{ profile: 'well', version }]);
    const filter = await entities(
      'assets',
      'AssetSelectionFilter',
      'id',
      [{ id: 'equipment-attention' }],
      caller('demo'),
    );
    expect(filter.body.data?._entities).toEqual([{ id: 'equipment-attention' }]);
    const elsewhere = await entities(
      'assets',
      'AssetSelectionFilter',
      'id',
      [{ id: 'equipment-attention' }],
      caller('nobody-group'),
    );
    expect(elsewhere.body.data?._entities).toEqual([null]);
  });

  it('resolves an IssueSubject to its asset reference', async () => {
    const r = await entities(
      'assets',
      'IssueSubject',
      'type reference assetReference { profile id }',
      [{ type: 'asset', reference: 'well/W-100-1-1' }],
      caller('demo'),
    );
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data?._entities).toEqual([
      { type: 'asset', reference: 'well/W-100-1-1', assetReference: { profile: 'well', id: 'W-100-1-1' } },
    ]);
  });
});

describe('issues subgraph entities', () => {
  it('resolves an Issue by id for its tenant, and nothing for another', async () => {
    const own = await entities('issues', 'Issue', 'id displayName', [{ id: ISSUE_ID }], caller('demo'));
    expect(own.body.data?._entities).toEqual([
      { id: ISSUE_ID, displayName: 'Casing pressure above threshold' },
    ]);
    const other = await entities('issues', 'Issue', 'id', [{ id: ISSUE_ID }], caller('demo-east'));
    expect(other.body.data?._entities).toEqual([null]);
  });

  it("resolves an IssueSubject to the tenant's issues about it", async () => {
    const subject = { type: 'asset', reference: 'well/W-100-1-1' };
    const query = 'issues { edges { node { id } } }';
    const own = await entities('issues', 'IssueSubject', query, [subject], caller('demo'));
    expect(own.body.data?._entities).toEqual([{ issues: { edges: [{ node: { id: ISSUE_ID } }] } }]);
    const other = await entities('issues', 'IssueSubject', query, [subject], caller('demo-east'));
    expect(other.body.data?._entities).toEqual([{ issues: { edges: [] } }]);
  });
});

describe('auth subgraph entities', () => {
  it('resolves a User and an EntityOwner only for the user themselves', async () => {
    const self = await entities('auth', 'User', 'id username', [{ id: 'demo' }], caller('demo'));
    expect(self.body.data?._entities).toEqual([{ id: 'demo', username: 'demo' }]);
    const stranger = await entities('auth', 'User', 'id', [{ id: 'someone-else' }], caller('demo'));
    expect(stranger.body.data?._entities).toEqual([null]);
    const owner = await entities(
      'auth',
      'EntityOwner',
      'username group user { id }',
      [
        { username: 'demo', group: 'demo' },
        { username: 'someone-else', group: 'demo' },
      ],
      caller('demo'),
    );
    expect(owner.body.data?._entities).toEqual([
      { username: 'demo', group: 'demo', user: { id: 'demo' } },
      { username: 'someone-else', group: 'demo', user: null },
    ]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_LIST_LENGTH, DEFAULT_MAX_STRING_LENGTH } from '../../src/config/limits.ts';
import { MAX_DEVICE_NAME_LENGTH } from '../../src/subgraphs/auth/devices.ts';
import { createUser } from '../../src/subgraphs/auth/users.ts';
import { BASE, startTestApp, type TestApp } from '../helpers/app.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';

// Every string argument is bounded (docs/security.md "Strings"): at the gateway, in every
// subgraph on its own, and tighter where the domain has a limit (device names, usernames).

const PASSWORD = 'correct horse battery';
const SIGN_IN = `mutation($u: String!, $p: String!, $d: String, $n: String) {
  signIn(input: { loginUsername: $u, password: $p, clientApplicationType: EXPLORER, deviceKey: $d, deviceName: $n }) {
    errors { type message } session { authenticated deviceKey } } }`;

let database: TestDatabase;
let t: TestApp;
/** The issues subgraph served on its own, as in the distributed form. */
let issues: TestApp;

beforeAll(async () => {
  database = await freshDatabase();
  const generous = { points: 10_000, seconds: 60 };
  t = await startTestApp({ database, authLimits: { signIn: generous, confirmSignIn: generous } as never });
  issues = await startTestApp({ database, role: { kind: 'subgraph', name: 'issues' } });
  await createUser(database.db, t.config.secret, { username: 'dee', groups: ['acme'], password: PASSWORD });
});
afterAll(async () => {
  await issues?.close();
  await t?.close();
  await database?.close();
});

async function deviceNames(username: string): Promise<(string | null)[]> {
  const rows = await database.db
    .selectFrom('devices')
    .select('name')
    .where('username', '=', username)
    .execute();
  return rows.map((r) => r.name);
}

/** The refusal of an input over a limit: no data, BAD_USER_INPUT naming the limit, HTTP 400. */
function expectInputRefused(r: { status: number; body: any }, limit: string, maximum: number) {
  expect(r.status, JSON.stringify(r.body).slice(0, 500)).toBe(400);
  expect(r.body.data ?? null).toBeNull();
  expect(r.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', limit, maximum });
}

/** The refusal of an over-long string. */
function expectStringRefused(r: { status: number; body: any }) {
  expectInputRefused(r, 'maxStringLength', DEFAULT_MAX_STRING_LENGTH);
}

describe('device names', () => {
  const huge = 'x'.repeat(1_000_000);
  const long = 'x'.repeat(MAX_DEVICE_NAME_LENGTH + 1);

  it('refuses a 1,000,000-character name on a new device, storing nothing', async () => {
    const before = await deviceNames('dee');
    expectStringRefused(await t.graphql(SIGN_IN, { u: 'dee', p: PASSWORD, n: huge }));
    const r: any = await t.graphql(SIGN_IN, { u: 'dee', p: PASSWORD, n: long });
    expect(r.body.data.signIn).toEqual({
      errors: [
        {
          type: 'INVALID_INPUT',
          message: `deviceName may have at most ${MAX_DEVICE_NAME_LENGTH} characters.`,
        },
      ],
      session: null,
    });
    expect(await deviceNames('dee')).toEqual(before);
  });

  it('refuses it on a device whose key exists, keeping its name', async () => {
    const first: any = await t.graphql(SIGN_IN, { u: 'dee', p: PASSWORD, n: 'Laptop' });
    const deviceKey = first.body.data.signIn.session.deviceKey as string;
    expect(deviceKey).toBeTruthy();
    expectStringRefused(await t.graphql(SIGN_IN, { u: 'dee', p: PASSWORD, d: deviceKey, n: huge }));
    const r: any = await t.graphql(SIGN_IN, { u: 'dee', p: PASSWORD, d: deviceKey, n: long });
    expect(r.body.data.signIn.errors).toEqual([
      { type: 'INVALID_INPUT', message: `deviceName may have at most ${MAX_DEVICE_NAME_LENGTH} characters.` },
    ]);
    expect(await deviceNames('dee')).toContain('Laptop');
    expect((await deviceNames('dee')).every((n) => (n ?? '').length <= MAX_DEVICE_NAME_LENGTH)).toBe(true);
    // A name at the limit is kept.
    const at = 'y'.repeat(MAX_DEVICE_NAME_LENGTH);
    const ok: any = await t.graphql(SIGN_IN, { u: 'dee', p: PASSWORD, d: deviceKey, n: at });
    expect(ok.body.data.signIn.session.authenticated).toBe(true);
    expect(await deviceNames('dee')).toContain(at);
  });

  it('refuses a username longer than any account can have, as such', async () => {
    const r: any = await t.graphql(SIGN_IN, { u: 'u'.repeat(129), p: PASSWORD });
    expect(r.body.data.signIn.errors).toEqual([
      { type: 'INVALID_INPUT', message: 'loginUsername may have at most 128 characters.' },
    ]);
  });
});

describe('any string argument', () => {
  const over = 'z'.repeat(DEFAULT_MAX_STRING_LENGTH + 1);
  const CREATE = `mutation($i: CreateIssueInput!) { createIssue(input: $i) { errors { type } } }`;

  it('refuses an over-long string in a variable at the gateway, before anything runs', async () => {
    const session = { 'x-svc-sessionid': await t.sessionFor('dee', 'acme') };
    const before = await database.db
      .selectFrom('issues')
      .select((e) => e.fn.countAll().as('n'))
      .executeTakeFirst();
    const r = await t.graphql(CREATE, { i: { displayName: 'ok', description: over } }, session);
    expectStringRefused(r);
    expect(r.body.errors![0]!.message).toBe(
      `The variable $i.description has ${over.length} characters; at most ${DEFAULT_MAX_STRING_LENGTH} are allowed.`,
    );
    const after = await database.db
      .selectFrom('issues')
      .select((e) => e.fn.countAll().as('n'))
      .executeTakeFirst();
    expect(after).toEqual(before);
    // Deep inside an input object, and in an inline literal, alike.
    expectStringRefused(
      await t.graphql(
        `mutation($f: AssetFilter, $s: [AssetSelectionFilterRelationshipInput!]!) {
          createAssetFilter(input: { id: "f", displayName: "f", profile: "p", filter: $f, subProfiles: $s }) { errors { type } } }`,
        { f: { search: 'ok' }, s: [{ relationship: 'r', filter: { deep: [{ text: over }] } }] },
        session,
      ),
    );
    expectStringRefused(
      await t.graphql(
        `mutation { createIssue(input: { displayName: ${JSON.stringify(over)} }) { errors { type } } }`,
        {},
        session,
      ),
    );
  });

  it('refuses the NUL character and lone surrogates, which the database cannot take', async () => {
    const session = { 'x-svc-sessionid': await t.sessionFor('dee', 'acme') };
    const r = await t.graphql(CREATE, { i: { displayName: 'a\u0000b' } }, session);
    expect(r.status).toBe(400);
    expect(r.body.errors![0]!.message).toBe(
      'The variable $i.displayName contains the NUL character (U+0000), which is not allowed.',
    );
    // A lone surrogate is no Unicode: PostgreSQL's JSON parser would fail on it as a server error.
    const lone = await t.graphql(CREATE, { i: { displayName: 'ok', description: 'a\ud800' } }, session);
    expect(lone.status).toBe(400);
    expect(lone.body.errors![0]!.message).toBe(
      'The variable $i.description is not well-formed Unicode (it has a lone surrogate).',
    );
  });

  it('is enforced by each subgraph on its own, for variables and literals', async () => {
    const post = (query: string, variables?: unknown) =>
      issues.handle(
        new Request(`${BASE}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
          body: JSON.stringify({ query, variables }),
        }),
      );
    for (const response of [
      await post(CREATE, { i: { displayName: over } }),
      await post(
        `mutation { createIssue(input: { displayName: ${JSON.stringify(over)} }) { errors { type } } }`,
      ),
    ]) {
      const body: any = await response.json();
      expectStringRefused({ status: response.status, body });
    }
  });
});

// Every list is bounded too (docs/security.md "Lists"): no list the API takes is longer than
// 1,000 items, so a longer one is refused before it is coerced, priced or resolved.
describe('any list argument', () => {
  const FILTERED = `query($f: AssetFilter) { assets(profile: "well") { all(first: 10, filter: $f) { edges { node { id } } } } }`;
  const values = (n: number) => Array.from({ length: n }, (_, i) => `W-${i}`);

  function expectListRefused(r: { status: number; body: any }, items: number, at: string) {
    expectInputRefused(r, 'maxListLength', DEFAULT_MAX_LIST_LENGTH);
    expect(r.body.errors[0].message).toBe(
      `The ${at} has ${items} items; at most ${DEFAULT_MAX_LIST_LENGTH} are allowed.`,
    );
  }

  it('refuses a 20,000-item list in a variable at the gateway, naming where it is', async () => {
    const session = { 'x-svc-sessionid': await t.sessionFor('dee', 'acme') };
    const r = await t.graphql(FILTERED, { f: { property: { name: 'status', in: values(20_000) } } }, session);
    expectListRefused(r, 20_000, 'variable $f.property.in');
    // Deep inside lists and objects alike, and as a literal in the document.
    const nested = await t.graphql(
      FILTERED,
      { f: { and: [{ search: 'a' }, { property: { name: 'status', in: values(1_001) } }] } },
      session,
    );
    expectListRefused(nested, 1_001, 'variable $f.and[1].property.in');
    const literal = await t.graphql(
      `{ assets(profile: "well") { all(first: 10, filter: { property: { name: "status", in: ${JSON.stringify(values(1_500))} } }) { edges { node { id } } } } }`,
      {},
      session,
    );
    expectListRefused(literal, 1_500, 'list argument at line 1');
  });

  it('lets a list of the largest size the API takes through', async () => {
    const session = { 'x-svc-sessionid': await t.sessionFor('dee', 'acme') };
    const r = await t.graphql(FILTERED, { f: { property: { name: 'status', in: values(400) } } }, session);
    expect(r.body.errors?.[0]?.extensions?.limit).not.toBe('maxListLength');
    const batch = await t.graphql(
      `mutation($ids: [String!]!) { deleteAssets(profile: "well", ids: $ids) { errors { type } } }`,
      { ids: values(DEFAULT_MAX_LIST_LENGTH) },
      session,
    );
    expect(batch.body.errors?.[0]?.extensions?.limit).not.toBe('maxListLength');
  });

  it('is enforced by each subgraph on its own, but for the representations of an entity fetch', async () => {
    const assets = await startTestApp({ database, role: { kind: 'subgraph', name: 'assets' } });
    try {
      const refused = await assets.handle(
        new Request(`${BASE}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
          body: JSON.stringify({
            query: FILTERED,
            variables: { f: { property: { name: 'status', in: values(5_000) } } },
          }),
        }),
      );
      const body: any = await refused.json();
      expect(refused.status).toBe(400);
      expect(body.errors[0].extensions).toMatchObject({
        limit: 'maxListLength',
        maximum: DEFAULT_MAX_LIST_LENGTH,
      });
    } finally {
      await assets.close();
    }
    // A router asks for as many entities as its plan reached: 3,000 representations are fine.
    const response = await issues.handle(
      new Request(`${BASE}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
        body: JSON.stringify({
          query: `query($r: [_Any!]!) { _entities(representations: $r) { __typename } }`,
          variables: {
            r: Array.from({ length: 3_000 }, (_, i) => ({
              __typename: 'IssueSubject',
              type: 'asset',
              reference: `well/W-${i}`,
            })),
          },
        }),
      }),
    );
    const entitiesBody: any = await response.json();
    expect(entitiesBody.errors?.[0]?.extensions?.limit).not.toBe('maxListLength');
    expect(entitiesBody.data?._entities).toHaveLength(3_000);
  });
});

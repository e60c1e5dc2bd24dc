import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen } from '../../src/server/listen.ts';
import { ANONYMOUS, IDENTITY_HEADER, type Identity, IdentitySigner } from '../../src/shared/identity.ts';
import { openDatabase } from '../../src/storage/database.ts';
import { createUser } from '../../src/subgraphs/auth/users.ts';
import { type Sent, sent, startTestApp, type TestApp } from '../helpers/app.ts';
import { partialBodyClient, rawClient } from '../helpers/raw-clients.ts';
import {
  byId,
  counted,
  deepObject,
  ISSUES,
  PAGE,
  PAGE_OF,
  pageOf,
  post,
  RENAME_OF,
  type RouteName,
  type Routes,
  SECRET,
  SESSION,
  startRoutes,
} from '../helpers/routes.ts';

/**
 * One pipeline, every door (src/execution/README.md), with what a table of requests cannot hold
 * (test/integration/parity.test.ts has the table): many callers at once, clients that go away
 * over a real socket, a mutation whose variables are refused, a session changed at the fast door,
 * the subgraphs' own ports, limits set tight, introspection off, a statement that times out and a
 * subgraph in this process that does not answer in time.
 */

let routes: Routes;
let demo: Record<string, string>;
let east: Record<string, string>;
let facility: string;

beforeAll(async () => {
  routes = await startRoutes(['reference', 'fast', 'distributed reference', 'distributed fast']);
  ({ demo, east, facility } = routes);
}, 120_000);
afterAll(() => routes?.close());

const app = (name: RouteName) => routes.served[name]!.app;
const json = async (response: Response) => (await response.json()) as any;

/** Sends `request` to both routes three times; the same answer each time. */
async function alike(a: RouteName, b: RouteName, request: () => Request): Promise<Sent> {
  let last: Sent | undefined;
  for (let i = 0; i < 3; i++) {
    last = await sent(await app(a).handle(request()));
    expect(last).toEqual(await sent(await app(b).handle(request())));
  }
  return last!;
}

describe.each(['fast', 'distributed fast'] as const)('the %s doors, many callers at once', (route) => {
  it('answers each caller with its own tenant and variables, under 90 at once', async () => {
    const session = post({ query: '{ session { username userGroup } }' });
    for (let i = 0; i < 3; i++) await app(route).handle(session.clone());
    const before = await routes.tally(route);
    const callers = [demo, east, {}];
    const answers = await Promise.all(
      Array.from({ length: 90 }, async (_, i) => ({
        i,
        body: await json(
          await app(route).handle(post({ query: '{ session { username userGroup } }' }, callers[i % 3])),
        ),
      })),
    );
    for (const { i, body } of answers)
      expect(body.data.session).toEqual(
        [
          { username: 'demo', userGroup: 'demo' },
          { username: 'demo-east-user', userGroup: 'demo-east' },
          { username: null, userGroup: null },
        ][i % 3],
      );
    const after = await routes.tally(route);
    expect(after.door - before.door).toBe(90);
    // Distributed, the auth subgraph answered each at its own early door too.
    expect(after.early - before.early).toBe(route === 'distributed fast' ? 90 : 0);

    const ids = async (n: number, headers: Record<string, string>, at = app(route)) =>
      (
        await json(await at.handle(post({ query: PAGE_OF, variables: { p: 'well', n } }, headers)))
      ).data.assets.all.edges.map((e: any) => e.node.id);
    const expected = {
      demo: await ids(5, demo, app('reference')),
      east: await ids(5, east, app('reference')),
    };
    expect(expected.demo).not.toEqual(expected.east);
    const pages = await Promise.all(
      Array.from({ length: 90 }, async (_, i) => {
        const n = (i % 5) + 1;
        const tenant = i % 2 ? 'east' : 'demo';
        return { n, tenant, got: await ids(n, tenant === 'east' ? east : demo) };
      }),
    );
    for (const { n, tenant, got } of pages)
      expect(got).toEqual(expected[tenant as 'demo' | 'east'].slice(0, n));
  });

  it('joins and plans each tenant its own, under 80 at once', async () => {
    for (const [query, counter] of [
      [
        `{ assets(profile: "well") { all(first: 40) { edges { node { id issueSubject { ${ISSUES} } } } } } }`,
        'joined',
      ],
      [pageOf('first: 100'), 'paged'],
    ] as const) {
      const expected = {
        demo: await sent(await app('reference').handle(post({ query }, demo))),
        east: await sent(await app('reference').handle(post({ query }, east))),
      };
      expect(expected.demo.body).not.toEqual(expected.east.body);
      const before = await routes.tally(route);
      const answers = await Promise.all(
        Array.from({ length: 80 }, async (_, i) => {
          const who = i % 2 ? 'east' : 'demo';
          return {
            who,
            got: await sent(await app(route).handle(post({ query }, who === 'east' ? east : demo))),
          };
        }),
      );
      for (const { who, got } of answers) expect(got).toEqual(expected[who as 'demo' | 'east']);
      expect((await routes.tally(route))[counter] - before[counter]).toBe(80);
    }
  });
});

describe.each(['fast', 'distributed fast'] as const)('the %s doors, clients that go away', (route) => {
  it('survive clients that leave before their answer, over a real socket, and serve the next', async () => {
    const server = await listen((request, address) => app(route).handle(request, address), 0, '127.0.0.1');
    try {
      const clients = [
        rawClient(server.url, JSON.stringify({ query: PAGE }), demo, '"data"'),
        rawClient(
          server.url,
          JSON.stringify({ query: PAGE_OF, variables: { p: 'well', n: 3 } }),
          demo,
          '"data"',
        ),
        rawClient(
          server.url,
          JSON.stringify({
            query: `{ assets(profile: "well") { all(first: 200) { edges { node { id issueSubject { ${ISSUES} } } } end: __typename } } }`,
          }),
          demo,
          '"end":"',
        ),
        rawClient(server.url, JSON.stringify({ query: pageOf('first: 1000') }), demo, '"pageInfo"'),
      ];
      for (let i = 0; i < 3; i++)
        for (const once of clients) expect(await once(null)).toContain('HTTP/1.1 200');
      await Promise.all(Array.from({ length: 80 }, (_, i) => clients[i % 4]!(i % 10)));
      // Nor did clients that went away half-way through their body, however long it was.
      const body = JSON.stringify({ query: PAGE_OF, variables: { p: 'well', n: 3, pad: 'x'.repeat(2000) } });
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          partialBodyClient(server.url, '/api/graphql', body, demo, (i * 97) % body.length, 5 + i),
        ),
      );
      const before = await routes.tally(route);
      for (const once of clients) {
        const answer = await once(null);
        expect(answer).toContain('HTTP/1.1 200');
        expect(answer).not.toContain('"errors"');
      }
      // (What the clients that left asked for may still be finishing.)
      expect((await routes.tally(route)).door).toBeGreaterThanOrEqual(before.door + 4);
    } finally {
      await server.close(100);
    }
  });
});

describe.each(['fast', 'distributed fast'] as const)('the %s doors keep every per-request check', (route) => {
  it('run no mutation whose variables are refused, and send no subgraph anything for it', async () => {
    const id = `refused-variables-${route.replace(' ', '-')}`;
    const created = await app(route).graphql<any>(
      `mutation { createAssetFilter(input: { id: "${id}", displayName: "Start", profile: "well",
        filter: { property: { name: "depth", gt: 1 } }, subProfiles: [] }) { errors { type } } }`,
      undefined,
      demo,
    );
    expect(created.body.data.createAssetFilter.errors).toEqual([]);
    const rename = (variables: Record<string, unknown>) =>
      post({ query: RENAME_OF, variables: { id, ...variables } }, demo);
    for (let i = 0; i < 3; i++) await app(route).handle(rename({ name: 'Start' }));
    const sentToSubgraphs = () =>
      counted(routes.served[route]!.metrics, 'assetql_subgraph_request_duration_seconds');
    const name = async () =>
      (await app(route).graphql<any>(`{ assetFilter(id: "${id}") { displayName } }`, undefined, demo)).body
        .data.assetFilter.displayName;
    for (const refused of [
      { name: 'A', extra: Array(1_001).fill(0) },
      { name: 'B', extra: 'x'.repeat(100_001) },
      { name: 'C', extra: deepObject(40) },
      { name: 'D', id: ['not', 'an', 'id'] },
      { name: 7, extra: null },
      { name: 'E', extra: 'a\u0000b' },
    ]) {
      const before = await routes.tally(route);
      const subgraphsBefore = await sentToSubgraphs();
      const a = await sent(await app(route).handle(rename(refused)));
      // Refused at the fast door, before any subgraph is asked, as the pipeline refuses it.
      expect((await routes.tally(route)).door - before.door).toBe(1);
      expect(await sentToSubgraphs()).toBe(subgraphsBefore);
      expect(a).toEqual(await sent(await app('reference').handle(rename(refused))));
      expect(a.status).toBe(400);
      expect(JSON.parse(a.body).data ?? null).toBeNull();
      expect(await name()).toBe('Start');
    }
    const renamed = await sent(await app(route).handle(rename({ name: 'Renamed' })));
    expect(JSON.parse(renamed.body).data.updateAssetFilter.assetFilter.displayName).toBe('Renamed');
    expect(await name()).toBe('Renamed');
  });

  it('bound the body, refuse cross-site bodies and variables nested too deep', async () => {
    const query = { query: '{ __typename }' };
    for (let i = 0; i < 3; i++) await app(route).handle(post(query, demo));
    const huge = await app(route).handle(
      post({ ...query, pad: 'x'.repeat(app(route).config.documentLimits.maxBodyBytes) }, demo),
    );
    expect(huge.status).toBe(413);
    const crossSite = await app(route).handle(
      post(JSON.stringify(query), { ...demo, 'content-type': 'text/plain' }),
    );
    expect(crossSite.status).toBe(403);
    const nested = await sent(await app(route).handle(post({ ...query, variables: deepObject(40) }, demo)));
    expect(nested.status).toBe(400);
    expect(JSON.parse(nested.body).errors[0].extensions.limit).toBe('maxVariablesDepth');
  });

  it('relay a session change made at the fast door', async () => {
    const username = `fast-door-${route.replace(' ', '-')}`;
    await createUser(routes.database.db, app(route).config.secret, {
      username,
      groups: ['demo'],
      password: 'a long enough password',
    });
    const signIn = () =>
      post({
        query: `mutation { signIn(input: { loginUsername: "${username}", password: "a long enough password", clientApplicationType: EXPLORER }) { errors { type } } }`,
      });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const before = await routes.tally(route);
      const response = await app(route).handle(signIn());
      if (i === 2) expect((await routes.tally(route)).door - before.door).toBe(1);
      expect(response.headers.get('set-cookie')).toMatch(/^svc_sessionid=/);
      ids.push(response.headers.get('x-svc-sessionid')!);
    }
    expect(new Set(ids).size).toBe(3);
    const who = await app(route).graphql('{ session { username } }', undefined, {
      'x-svc-sessionid': ids[2]!,
    });
    expect(who.body.data).toEqual({ session: { username } });
  });
});

it('leaves a request from a listed CORS origin to the pipeline, for its headers', async () => {
  const withCors = await startTestApp({
    database: routes.database,
    config: { corsOrigins: ['https://app.example'] },
  });
  try {
    const ask = (origin: string) => withCors.handle(post({ query: '{ __typename }' }, { ...demo, origin }));
    for (let i = 0; i < 3; i++) await ask('https://other.example');
    const listed = await ask('https://app.example');
    expect(listed.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(listed.headers.get('access-control-allow-credentials')).toBe('true');
    expect((await ask('https://other.example')).headers.get('access-control-allow-origin')).toBeNull();
  } finally {
    await withCors.close();
  }
});

describe("a subgraph's doors: its Yoga, and its early door for our gateway", () => {
  const signer = new IdentitySigner(SECRET);
  const identity = (username: string | null, userGroup: string | null): Identity => ({
    ...ANONYMOUS,
    ...(username ? { kind: 'session', username, userGroup, clientType: 'EXPLORER' } : {}),
  });
  const signed = (username: string | null = 'demo', group: string | null = 'demo') => ({
    [IDENTITY_HEADER]: signer.sign(identity(username, group)),
  });
  /** The subgraph `name` of a route's distributed form, at its own port. */
  const to = (
    route: 'distributed reference' | 'distributed fast',
    name: string,
    body: unknown,
    headers: Record<string, string>,
  ) =>
    fetch(routes.served[route]!.subgraphs!.urls[name]!, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  const early = () =>
    counted(routes.served['distributed fast']!.subgraphs!.metrics, 'assetql_prepared_operations_total');
  const ENTITIES =
    'query($r: [_Any!]!) { _entities(representations: $r) { ... on IssueSubject { issues(first: 3) { edges { node { displayName } } } } } }';
  const cases: {
    name: string;
    subgraph: string;
    body: unknown;
    headers: () => Record<string, string>;
    /** Taken at the early door from the third sending. */
    early: boolean;
    check?: (status: number, body: any) => void;
  }[] = [
    {
      name: 'a page, signed in',
      subgraph: 'assets',
      body: { query: PAGE },
      headers: () => signed(),
      early: true,
    },
    {
      name: 'the same page, another tenant',
      subgraph: 'assets',
      body: { query: PAGE },
      headers: () => signed('demo-east-user', 'demo-east'),
      early: true,
    },
    {
      name: 'the same page, anonymous',
      subgraph: 'assets',
      body: { query: PAGE },
      headers: () => signed(null, null),
      early: true,
    },
    {
      name: 'a forged identity (401)',
      subgraph: 'assets',
      body: { query: PAGE },
      headers: () => ({ [IDENTITY_HEADER]: `${signer.sign(identity('demo', 'demo'))}x` }),
      early: false,
      check: (status) => expect(status).toBe(401),
    },
    {
      name: 'no identity (a forwarded session)',
      subgraph: 'assets',
      body: { query: PAGE },
      headers: () => demo,
      early: false,
    },
    {
      name: 'an issue page',
      subgraph: 'issues',
      body: { query: '{ issues { all(first: 2) { edges { node { id displayName } } } } }' },
      headers: () => signed(),
      early: true,
    },
    ...[
      { name: 'given', variables: { p: 'well', n: 2 } },
      { name: 'one left out', variables: { p: 'well' } },
      { name: 'that do not coerce', variables: { p: 'well', n: 'two' } },
      { name: 'a required one missing', variables: { n: 2 } },
      { name: 'over the page size', variables: { p: 'well', n: 100_000 } },
      { name: 'a string over the input limit', variables: { p: 'w'.repeat(100_001), n: 1 } },
    ].map((v) => ({
      name: `variables ${v.name}`,
      subgraph: 'assets',
      body: { query: PAGE_OF, variables: v.variables },
      headers: () => signed(),
      early: true,
    })),
    {
      name: 'variables nested 5,000 deep: refused at the subgraph too (#36, finding 2)',
      subgraph: 'assets',
      // Written out by hand: JSON.stringify would overflow this process's stack on it.
      body: `{"query": ${JSON.stringify(PAGE_OF)}, "variables": {"p": "well", "n": 1, "other": ${'{"v":'.repeat(5_000)}{}${'}'.repeat(5_000)}}}`,
      headers: () => signed(),
      early: true,
      check: (status, body) => {
        expect(status).toBe(400);
        expect(body.errors[0].extensions.limit).toBe('maxVariablesDepth');
      },
    },
    {
      name: 'variables of 2.1 MB: refused at the subgraph too (#36, finding 2)',
      subgraph: 'assets',
      body: { query: PAGE_OF, variables: { p: 'well', n: 1, other: Array(300).fill('x'.repeat(7_000)) } },
      headers: () => signed(),
      early: true,
      check: (status, body) => {
        expect(status).toBe(400);
        expect(body.errors[0].extensions.limit).toBe('maxVariablesBytes');
      },
    },
    {
      name: 'variables as a list',
      subgraph: 'assets',
      body: { query: PAGE_OF, variables: ['well', 2] },
      headers: () => signed(),
      early: false,
    },
    {
      name: 'an entities request, as the gateway joins an asset with its issues',
      subgraph: 'issues',
      body: {
        query: ENTITIES,
        variables: { r: [{ __typename: 'IssueSubject', type: 'asset', reference: 'facility/F-1' }] },
      },
      headers: () => signed(),
      early: true,
    },
    {
      name: "an entities request of 3 MB of representations (a router's, not held to the variables bound)",
      subgraph: 'issues',
      body: () => ({
        query: ENTITIES,
        variables: {
          r: Array.from({ length: 25_000 }, (_, i) => ({
            __typename: 'IssueSubject',
            type: 'asset',
            reference: `well/W-${i}-${'p'.repeat(40)}`,
          })),
        },
      }),
      headers: () => signed(),
      early: true,
      check: (status, body) => {
        expect(status).toBe(200);
        expect(body.data._entities).toHaveLength(25_000);
      },
    },
    ...(
      [
        ['a long list', Array.from({ length: 5_000 }, (_, i) => `p${i}`), 'maxListLength'],
        ['3 MB of strings', Array.from({ length: 400 }, () => 'x'.repeat(7_500)), 'maxVariablesBytes'],
      ] as const
    ).map(([what, r, limit]) => ({
      name: `${what} beside another operation's representations: not exempt (#36)`,
      subgraph: 'assets',
      body: {
        query: `query A($r: [_Any!]!) { _entities(representations: $r) { __typename } }
          query B($r: [String!]) { assets(profile: "well") { all(first: 1) { edges { node { id properties(only: $r) } } } } }`,
        operationName: 'B',
        variables: { r },
      },
      headers: () => signed(),
      early: true,
      check: (status: number, body: any) => {
        expect(status).toBe(400);
        expect(body.errors[0].extensions.limit).toBe(limit);
      },
    })),
    {
      name: 'variables with a forwarded session (another router): Yoga',
      subgraph: 'assets',
      body: { query: PAGE_OF, variables: { p: 'well', n: 2 } },
      headers: () => demo,
      early: false,
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const body = typeof c.body === 'function' ? (c.body as () => unknown)() : c.body;
      for (let i = 0; i < 3; i++) {
        const before = await early();
        const a = await sent(await to('distributed fast', c.subgraph, body, c.headers()));
        const taken = (await early()) - before;
        const b = await sent(await to('distributed reference', c.subgraph, body, c.headers()));
        expect(a).toEqual(b);
        if (i === 2) {
          expect(taken).toBe(c.early ? 1 : 0);
          c.check?.(a.status, JSON.parse(a.body));
        }
      }
    });
  }

  it('survives requests that go away half-way through their body, and serves the next', async () => {
    const body = JSON.stringify({ query: PAGE });
    const url = routes.served['distributed fast']!.subgraphs!.urls.assets!;
    await to('distributed fast', 'assets', { query: PAGE }, signed());
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        partialBodyClient(url, '/graphql', body, signed(), Math.floor(body.length / 2), 5 + i),
      ),
    );
    const after = await to('distributed fast', 'assets', { query: PAGE }, signed());
    expect(after.status).toBe(200);
    expect((await json(after)).errors).toBeUndefined();
  });
});

describe('with introspection off, no error spells the schema out (#36, finding 3)', () => {
  let off: Routes;
  beforeAll(async () => {
    off = await startRoutes(['reference', 'fast', 'distributed fast'], { introspection: false }, routes);
  }, 60_000);
  afterAll(() => off?.close());

  for (const [name, body] of [
    [
      'an input field misspelt',
      {
        query:
          'query($f: AssetFilter) { assets(profile: "well") { all(filter: $f) { edges { node { id } } } } }',
        variables: { f: { id: ['x'] } },
      },
    ],
    [
      'an enum value misspelt',
      {
        query:
          'mutation($s: IssueStatus) { createIssue(input: { displayName: "x", status: $s }) { errors { type } } }',
        variables: { s: 'OPN' },
      },
    ],
    ['a field misspelt', { query: '{ sesion { authenticated } }' }],
    ['the schema asked for', { query: '{ __schema { queryType { name } } }' }],
  ] as const) {
    it(name, async () => {
      for (const route of ['fast', 'distributed fast'] as const) {
        const last = await (async () => {
          let answer: Sent | undefined;
          for (let i = 0; i < 3; i++) {
            answer = await sent(await off.served[route]!.app.handle(post(body, demo)));
            expect(answer).toEqual(await sent(await off.served.reference!.app.handle(post(body, demo))));
          }
          return answer!;
        })();
        expect(JSON.parse(last.body).errors.length).toBeGreaterThan(0);
        expect(last.body).not.toMatch(/Did you mean/);
      }
    });
  }
});

describe('with limits set tight, every route refuses alike', () => {
  /** Routes over the same database with `documentLimits`, and `check` on each answer of the row. */
  const tight = (limits: Record<string, number>) => {
    let at: Routes;
    beforeAll(async () => {
      at = await startRoutes(
        ['reference', 'joined', 'pages', 'fast', 'distributed fast'],
        { documentLimits: limits },
        routes,
      );
    }, 60_000);
    afterAll(() => at?.close());
    return (query: string) => async () => {
      let last: Sent | undefined;
      for (const route of ['joined', 'pages', 'fast', 'distributed fast'] as const)
        for (let i = 0; i < 3; i++) {
          last = await sent(await at.served[route]!.app.handle(post({ query }, demo)));
          expect(last, `${route}, sending ${i + 1}`).toEqual(
            await sent(await at.served.reference!.app.handle(post({ query }, demo))),
          );
        }
      return JSON.parse(last!.body);
    };
  };

  describe('a cost limit the two requests of a join pass one by one, not together', () => {
    const alikeAt = tight({ maxCost: 310 });
    const wellsWithIssues = (n: number) =>
      `{ assets(profile: "well") { all(first: ${n}) { edges { node { id issueSubject { issues(first: 5) { edges { node { id } } } } } } } } }`;
    it('answers what fits', async () => {
      expect((await alikeAt(wellsWithIssues(5))()).data.assets.all.edges).toHaveLength(5);
    });
    it('refuses a sum over the limit', async () => {
      expect((await alikeAt(wellsWithIssues(100))()).errors[0].extensions).toMatchObject({
        limit: 'maxCost',
        maximum: 310,
      });
    });
    it('answers a sum only the join’s own pricing finds over the limit', async () => {
      expect((await alikeAt(wellsWithIssues(24))()).data.assets.all.edges).toHaveLength(24);
    });
  });

  describe('a response budget around a join', () => {
    const alikeAt = tight({ maxFields: 100, maxAliases: 200 });
    it('answers and refuses the same requests as the planner, around the limit', async () => {
      const outcomes = new Set<string>();
      for (let k = 70; k <= 95; k += 5) {
        const ids = Array.from({ length: k }, (_, i) => `i${i}: id`).join(' ');
        const body = await alikeAt(
          byId(
            `${ids} related(relationship: "wells") { ... on AssetRelationshipMany { assets { id } } } issueSubject { issues(first: 1) { edges { node { id } } } }`,
            facility,
          ),
        )();
        outcomes.add(body.errors?.[0]?.extensions?.code ?? 'data');
      }
      expect(outcomes).toEqual(new Set(['data', 'RESPONSE_TOO_LARGE']));
    });
  });

  describe('a response budget a page of ten ids fits exactly', () => {
    // A page of ten ids is charged 2 + 2 × 10 fields (`all`, `edges`, then `node` and `id` per edge).
    const alikeAt = tight({ maxFields: 22 });
    const ids = (n: number) => `{ assets(profile: "well") { all(first: ${n}) { edges { node { id } } } } }`;
    it('answers a page that fits', async () => {
      expect((await alikeAt(ids(10))()).data.assets.all.edges).toHaveLength(10);
    });
    it('refuses one more row', async () => {
      expect((await alikeAt(ids(11))()).errors[0].extensions.code).toBe('RESPONSE_TOO_LARGE');
    });
  });
});

describe('a subgraph in this process that does not answer in time (#36)', () => {
  it('is answered GATEWAY_TIMEOUT on the direct route, as planned, and the process serves the next', async () => {
    const query = pageOf('first: 1000', 'id displayName properties');
    for (const flags of [{}, { directExecution: false }]) {
      const slow = await startTestApp({
        database: routes.database,
        config: { secret: SECRET, upstreamTimeoutMs: 1, ...flags },
      });
      try {
        const answer = await slow.graphql<any>(query, undefined, demo);
        expect(JSON.stringify(answer.body.errors)).toContain('GATEWAY_TIMEOUT');
        const next = await slow.graphql<any>('{ __typename }', undefined, demo);
        expect(next.body).toEqual({ data: { __typename: 'Query' } });
      } finally {
        await slow.close();
      }
    }
  });
});

// PGlite runs one statement at a time on the JavaScript thread: no other connection can hold a
// lock, and no timer cancels a statement.
describe.runIf(process.env.DATABASE_URL)('a planned page whose statement fails (PostgreSQL)', () => {
  it('is answered as the resolvers answer it, and not run again', async () => {
    const { database } = routes;
    const timed = async () =>
      Object.assign(await openDatabase({ url: database.url! }, { statementTimeoutMs: 300 }), {
        url: database.url,
      });
    const apps: TestApp[] = [
      await startTestApp({ database: await timed(), config: { secret: SECRET } }),
      await startTestApp({ database: await timed(), config: { secret: SECRET, plannedQueries: false } }),
    ];
    const holder = await database.pool.connect();
    try {
      const query = pageOf('first: 5');
      for (const a of apps) expect((await a.handle(post({ query }, demo))).status).toBe(200);
      await holder.query('begin');
      await holder.query('lock table assets in access exclusive mode');
      const [a, b] = [
        await sent(await apps[0]!.handle(post({ query }, demo))),
        await sent(await apps[1]!.handle(post({ query }, demo))),
      ];
      expect(a).toEqual(b);
      expect(JSON.parse(a.body).errors.map((e: any) => e.extensions.code)).toEqual(['TIMEOUT']);
    } finally {
      await holder.query('rollback').catch(() => {});
      holder.release();
      for (const a of apps) await a.close();
    }
  });
});

describe('same answers, single and distributed', () => {
  it('a session query', async () => {
    await alike('fast', 'distributed fast', () => post({ query: SESSION }, demo));
  });
});

describe('a subgraph not reached, or refusing the gateway, is answered alike by every route (#36)', () => {
  let apps: { reference: TestApp; fast: TestApp }[] = [];
  let closeSubgraphs: () => Promise<void>;
  beforeAll(async () => {
    const secret = `${SECRET}-of-the-subgraphs`;
    // Subgraphs keyed by a secret of their own: a gateway's signed identity does not verify (401).
    const { serveSubgraphs } = await import('../helpers/app.ts');
    const others = await serveSubgraphs({ database: routes.database, config: { secret } });
    closeSubgraphs = others.close;
    const fast = routes.served['distributed fast']!.subgraphs!.urls;
    for (const auth of ['http://127.0.0.1:9/graphql', others.urls.auth!]) {
      const urls = { ...fast, auth };
      const gateway = (flags: Record<string, unknown>) =>
        startTestApp({
          database: routes.database,
          role: { kind: 'gateway' },
          config: { secret: SECRET, subgraphUrls: urls, ...flags },
        });
      apps.push({ reference: await gateway({ directExecution: false }), fast: await gateway({}) });
    }
  }, 60_000);
  afterAll(async () => {
    for (const pair of apps) {
      await pair.reference.close();
      await pair.fast.close();
    }
    apps = [];
    await closeSubgraphs?.();
  });

  /** An answer with its correlation ids left out: they differ between any two requests. */
  const shown = async (app: TestApp, query: string) => {
    const s = await sent(
      await app.handle(post({ query }, { ...demo, accept: 'application/graphql-response+json' })),
    );
    return { ...s, body: s.body.replace(/"requestId":"[^"]+"/g, '"requestId":"…"') };
  };

  for (const query of [
    '{ session { authenticated } }',
    '{ a: session { authenticated } b: session { username } }',
    'query Q { ...S } fragment S on Query { session { authenticated } }',
  ])
    it(query, async () => {
      for (const [i, pair] of apps.entries())
        for (let sending = 0; sending < 3; sending++) {
          const expected = await shown(pair.reference, query);
          expect(
            await shown(pair.fast, query),
            `${i ? 'refusing' : 'not reached'}, sending ${sending + 1}`,
          ).toEqual(expected);
          const body = JSON.parse(expected.body);
          expect(body.errors.map((e: any) => e.extensions.code)).toContain('SERVICE_UNAVAILABLE');
          expect(Object.values(body.data)).toEqual(body.errors.map(() => null));
        }
    });
});

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { TYPE_DEFS } from '../../server/app.ts';
import { ANONYMOUS } from '../../shared/identity.ts';
import { DirectPlanner, type PlannableSubgraph, remoteSubgraph } from './use-direct-execution.ts';

/** Planning reads only the schema and the SDL. */
function subgraph(name: string, typeDefs: string): PlannableSubgraph {
  return { name, typeDefs, schema: buildSubgraphSchema({ typeDefs: parse(typeDefs) }) };
}

const ours = (['assets', 'auth', 'issues'] as const).map((name) => subgraph(name, TYPE_DEFS[name]));
const planner = new DirectPlanner(ours);
const planned = (query: string, operationName?: string) =>
  planner.plan(parse(query), operationName)?.name ?? null;

describe('which subgraph answers an operation alone', () => {
  it('sends a single-subgraph query or mutation to its subgraph', () => {
    expect(
      planned(`{ assets(profile: "well") { all(first: 5) { edges { node { id displayName } } } } }`),
    ).toBe('assets');
    expect(planned(`{ session { username authenticated } }`)).toBe('auth');
    expect(planned(`{ issues { all(first: 1) { edges { node { id } } } } }`)).toBe('issues');
    expect(
      planned(
        `mutation { signIn(input: { loginUsername: "a", password: "b", clientApplicationType: EXPLORER }) { errors { type } } }`,
      ),
    ).toBe('auth');
  });

  it('plans an operation that needs a field of another subgraph', () => {
    // Asset.issueSubject is the assets subgraph's; IssueSubject.issues is the issues subgraph's.
    expect(
      planned(
        `{ assets(profile: "well") { byId(id: "W-1") { issueSubject { issues(first: 1) { edges { node { id } } } } } } }`,
      ),
    ).toBeNull();
    // Root fields of two subgraphs.
    expect(planned(`{ session { username } issues { all(first: 1) { edges { node { id } } } } }`)).toBeNull();
  });

  it('keeps introspection of the supergraph with the gateway', () => {
    expect(planned(`{ __schema { types { name } } }`)).toBeNull();
    expect(planned(`{ __type(name: "Asset") { name } session { username } }`)).toBeNull();
    expect(planned(`{ __typename session { username } }`)).toBe('auth');
  });

  it('decides for the operation named, once per document', () => {
    const document = parse(`
      query Mine { session { username } }
      query Wells { assets(profile: "well") { all(first: 1) { edges { node { id } } } } }
      query Both { session { username } issues { all { edges { node { id } } } } }`);
    expect(planner.plan(document, 'Mine')?.name).toBe('auth');
    expect(planner.plan(document, 'Wells')?.name).toBe('assets');
    expect(planner.plan(document, 'Both')).toBeNull();
    expect(planner.plan(document, 'Mine')).toBe(planner.plan(document, 'Mine'));
  });

  it('never executes locally a field the subgraph marks @external or @requires', () => {
    const shop = subgraph(
      'shop',
      `extend schema @link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key", "@external", "@requires"])
      type Query { product: Product }
      type Product @key(fields: "id") { id: ID! weight: Int price: Int @external shipping: Int @requires(fields: "price") }`,
    );
    const alone = new DirectPlanner([shop]);
    expect(alone.plan(parse(`{ product { id weight } }`))?.name).toBe('shop');
    expect(alone.plan(parse(`{ product { id price } }`))).toBeNull();
    expect(alone.plan(parse(`{ product { shipping } }`))).toBeNull();
    expect(alone.plan(parse(`{ product { ...F } } fragment F on Product { price }`))).toBeNull();
  });

  it('leaves subscriptions and deferred fragments to the planner', () => {
    expect(planned(`{ session { ... @defer { username } } }`)).toBeNull();
  });
});

describe('a subgraph reached over HTTP', () => {
  it('passes an answer on unparsed only when it has no errors, whatever order its keys come in', async () => {
    const bodies = [
      '{"data":{"session":{"username":"x"}}}',
      '{"data":null,"errors":[{"message":"stopped","extensions":{"code":"RESPONSE_TOO_LARGE"}}]}',
      '{"data":{"session":null},"errors":[{"message":"bad","path":["session"]}]}',
      '{"errors":[{"message":"first"}],"data":null}',
    ];
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        const body = bodies[Number(request.headers['x-body'] ?? 0)]!;
        response.writeHead(200, { 'content-type': 'application/json' }).end(body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
    const remote = remoteSubgraph({ name: 'auth', typeDefs: TYPE_DEFS.auth, url }, 5_000);
    try {
      const answers = [];
      for (const [i] of bodies.entries()) {
        const { result } = await remote.execute({
          document: parse('{ session { username } }'),
          identity: ANONYMOUS,
          signedIdentity: () => 'token',
          requestId: 'r',
          traceHeaders: { 'x-body': String(i) },
        });
        answers.push(result);
      }
      expect(answers[0]!.errors).toBeUndefined();
      expect(answers[0]!.data).toEqual({ session: { username: 'x' } });
      expect(answers.slice(1).map((a) => a.errors?.map((e) => e.message))).toEqual([
        ['stopped'],
        ['bad'],
        ['first'],
      ]);
      expect(answers[2]!.errors![0]!.path).toEqual(['session']);
    } finally {
      await remote.close?.();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

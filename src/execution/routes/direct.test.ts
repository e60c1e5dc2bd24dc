import { buildSubgraphSchema } from '@apollo/subgraph';
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { TYPE_DEFS } from '../../server/app.ts';
import { Operations } from '../operation.ts';
import { DirectRoutes, type PlannableSubgraph } from './direct.ts';

/** Planning reads only the schema and the SDL. */
function subgraph(name: string, typeDefs: string): PlannableSubgraph {
  return { name, typeDefs, schema: buildSubgraphSchema({ typeDefs: parse(typeDefs) }) };
}

const ours = (['assets', 'auth', 'issues'] as const).map((name) => subgraph(name, TYPE_DEFS[name]));
const routes = new DirectRoutes(ours);
const operations = new Operations();
const planned = (query: string, operationName?: string) =>
  routes.decide(operations.of(parse(query), operationName))?.name ?? null;

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

  it('decides for the operation named', () => {
    const document = parse(`
      query Mine { session { username } }
      query Wells { assets(profile: "well") { all(first: 1) { edges { node { id } } } } }
      query Both { session { username } issues { all { edges { node { id } } } } }`);
    const decide = (name: string) => routes.decide(operations.of(document, name));
    expect(decide('Mine')?.name).toBe('auth');
    expect(decide('Wells')?.name).toBe('assets');
    expect(decide('Both')).toBeNull();
  });

  it('never executes locally a field the subgraph marks @external or @requires', () => {
    const shop = subgraph(
      'shop',
      `extend schema @link(url: "https://specs.apollo.dev/federation/v2.6", import: ["@key", "@external", "@requires"])
      type Query { product: Product }
      type Product @key(fields: "id") { id: ID! weight: Int price: Int @external shipping: Int @requires(fields: "price") }`,
    );
    const alone = new DirectRoutes([shop]);
    const decide = (query: string) => alone.decide(operations.of(parse(query), null));
    expect(decide(`{ product { id weight } }`)?.name).toBe('shop');
    expect(decide(`{ product { id price } }`)).toBeNull();
    expect(decide(`{ product { shipping } }`)).toBeNull();
    expect(decide(`{ product { ...F } } fragment F on Product { price }`)).toBeNull();
  });

  it('leaves subscriptions and deferred fragments to the planner', () => {
    expect(planned(`{ session { ... @defer { username } } }`)).toBeNull();
  });
});

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { buildSchema, type DocumentNode, type FragmentDefinitionNode, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { estimateCost } from './cost.ts';
import { Operations } from './operation.ts';

/** The same operation record for the same parsed document, as a place keeps it. */
const operations = new Operations();
const op = (document: DocumentNode) => operations.of(document, null);

const schema = buildSchema(`
  directive @listSize(assumedSize: Int, slicingArguments: [String!], sizedFields: [String!]) on FIELD_DEFINITION
  type Query {
    item: Item
    items(first: Int): [Item] @listSize(slicingArguments: ["first"])
    paged(first: Int = 7, tag: String, ids: [Int]): [Item] @listSize(slicingArguments: ["first"])
    sized(required: Int!, size: Int): [Item] @listSize(slicingArguments: ["size"])
  }
  type Item { id: Int detail: Detail }
  type Detail { size: Int }
`);

/** Fragment F0 spreads F1 four times, F1 spreads F2 four times, …; the last selects `item`. */
function fanOut(levels: number, last = 'item { id }') {
  const fragments = Array.from(
    { length: levels },
    (_, i) => `fragment F${i} on Query { ${`...F${i + 1} `.repeat(4)}}`,
  );
  return parse(`{ ...F0 } ${fragments.join(' ')} fragment F${levels} on Query { ${last} }`);
}

describe('estimateCost', () => {
  it('prices a document spreading fragments into fragments in time of its length, not of its paths', () => {
    // 4^16 paths to one object each (walking them took an hour): the price is exact, and the last
    // fragment is read once, not once per path.
    const document = fanOut(16);
    const last = document.definitions.at(-1) as FragmentDefinitionNode;
    let reads = 0;
    const { selections } = last.selectionSet;
    Object.defineProperty(last, 'selectionSet', {
      value: {
        ...last.selectionSet,
        get selections() {
          reads += 1;
          if (reads > 100) throw new Error('the fragment was walked once per path');
          return selections;
        },
      },
    });
    expect(estimateCost(schema, op(document), {})).toBe(4 ** 16);
    expect(reads).toBe(1);
  });

  it('scales a fragment by the lists above it and the sizes its fields get', () => {
    const document = parse(`query($n: Int) { items(first: $n) { ...I } item { ...I } }
      fragment I on Item { id detail { size } }`);
    // items: n objects, each with a detail; item: one, with its detail.
    expect(estimateCost(schema, op(document), { n: 10 })).toBe(10 * 2 + 2);
    expect(estimateCost(schema, op(document), { n: 3 })).toBe(3 * 2 + 2);
  });

  it('prices an operation with variables by the values its slicing arguments read, each time', () => {
    const document = parse(`query($n: Int, $tag: String, $ids: [Int]) {
      paged(first: $n, tag: $tag, ids: $ids) { id } item { id } }`);
    const cost = (v: Record<string, unknown>) => estimateCost(schema, op(document), v);
    // Absent takes the default (7); null gives no size (1); other values their own.
    expect(cost({})).toBe(7 + 1);
    expect(cost({ n: null })).toBe(1 + 1);
    expect(cost({ n: 10, tag: 'a' })).toBe(10 + 1);
    expect(cost({ n: 10, tag: 'b', ids: [1, 2] })).toBe(10 + 1);
    expect(cost({ n: 3, ids: [1] })).toBe(3 + 1);
    // More distinct sizes than are remembered: still each its own price.
    for (let n = 0; n < 200; n++) expect(cost({ n, tag: String(n) })).toBe(n + 1);
    expect(cost({})).toBe(7 + 1);
  });

  it('notes what an operation reads only from a pricing whose arguments all coerced', () => {
    // The first pricing fails on `required` (null) before reading `$m`: were that noted, the
    // next requests' `$m` would be left out of the key, and every size after it priced alike.
    const document = parse('query($n: Int, $m: Int) { sized(required: $n, size: $m) { id } }');
    const cost = (v: Record<string, unknown>) => estimateCost(schema, op(document), v);
    expect(cost({ n: null, m: 5 })).toBe(1);
    expect(cost({ n: 2, m: 5 })).toBe(5);
    expect(cost({ n: 2, m: 50 })).toBe(50);
    expect(cost({ n: 2, m: 500 })).toBe(500);
  });

  it('keys a variable named like an Object.prototype member by its own value: absent, null', () => {
    const text = 'query($constructor: Int) { paged(first: $constructor) { id } }';
    const document = parse(text);
    const cost = (v: Record<string, unknown>) => estimateCost(schema, op(document), v);
    // Absent takes the argument's default (7), null gives no size (1).
    expect(cost({ constructor: null })).toBe(1);
    expect(cost({})).toBe(7);
    expect(estimateCost(schema, op(parse(text)), {})).toBe(7);
  });

  it("keeps other arguments' variables only by whether they are given, never their text", () => {
    // A cursor is no size: a megabyte of it for each of 64 pricings keeps nothing, and every new
    // cursor is priced from what was kept.
    const document = parse('query($n: Int, $tag: String) { paged(first: $n, tag: $tag) { id } }');
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 64; i++)
      expect(estimateCost(schema, op(document), { n: 10, tag: `${i}`.padEnd(1_000_000, 'x') })).toBe(10);
    gc();
    expect(process.memoryUsage().heapUsed - before).toBeLessThan(10_000_000);
    // The one a size is given by, when it is text, is priced every time instead.
    expect(estimateCost(schema, op(document), { n: 3, tag: null })).toBe(3);
  });

  it("prices a variable left to the operation's default at that default, as it runs", () => {
    const document = parse('query($n: Int = 5000) { items(first: $n) { id } }');
    expect(estimateCost(schema, op(document), {})).toBe(5000);
    expect(estimateCost(schema, op(document), { n: 2 })).toBe(2);
    expect(estimateCost(schema, op(document), {})).toBe(5000);
  });
});

describe('estimateCost of a router’s entity fetch', () => {
  it('prices the representations by their number, once per number, whatever they hold', () => {
    const schema = buildSchema(
      `scalar _Any union _Entity = Item type Item { id: ID! } type Query { _entities(representations: [_Any!]!): [_Entity]! }`,
    );
    const record = op(parse('query($r: [_Any!]!) { _entities(representations: $r) { ... on Item { id } } }'));
    const of = (n: number, tag: string) =>
      Array.from({ length: n }, (_, i) => ({ __typename: 'Item', id: `${tag}${i}` }));
    expect(estimateCost(schema, record, { r: of(3, 'a') })).toBe(3);
    expect(estimateCost(schema, record, { r: of(3, 'b') })).toBe(3);
    expect(estimateCost(schema, record, { r: of(500, 'c') })).toBe(500);
    expect(estimateCost(schema, record, {})).toBe(1);
  });
});

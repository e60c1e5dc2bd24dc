import { buildSchema, type FragmentDefinitionNode, parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { estimateCost } from './cost.ts';

const schema = buildSchema(`
  directive @listSize(assumedSize: Int, slicingArguments: [String!], sizedFields: [String!]) on FIELD_DEFINITION
  type Query { item: Item items(first: Int): [Item] @listSize(slicingArguments: ["first"]) }
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
    expect(estimateCost(schema, document, undefined, {})).toBe(4 ** 16);
    expect(reads).toBe(1);
  });

  it('scales a fragment by the lists above it and the sizes its fields get', () => {
    const document = parse(`query($n: Int) { items(first: $n) { ...I } item { ...I } }
      fragment I on Item { id detail { size } }`);
    // items: n objects, each with a detail; item: one, with its detail.
    expect(estimateCost(schema, document, undefined, { n: 10 })).toBe(10 * 2 + 2);
    expect(estimateCost(schema, document, undefined, { n: 3 })).toBe(3 * 2 + 2);
  });
});

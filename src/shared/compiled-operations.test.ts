import { buildSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { recursiveInputTypes } from './subgraph.ts';

describe('recursiveInputTypes', () => {
  it('finds the input types that reach a cycle, and only those', () => {
    const schema = buildSchema(`
      input Filter { and: [Filter!] not: Filter related: Related name: String }
      input Related { some: Filter }
      input Outer { filter: Filter }
      input Flat { a: String b: [Int!] }
      input UsesFlat { flat: Flat }
      type Query { f(filter: Filter, flat: UsesFlat, outer: Outer): Int }
    `);
    expect([...recursiveInputTypes(schema)].sort()).toEqual(['Filter', 'Outer', 'Related']);
  });
});

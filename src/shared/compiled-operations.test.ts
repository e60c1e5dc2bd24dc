import { makeExecutableSchema } from '@graphql-tools/schema';
import { buildSchema, GraphQLError, parse } from 'graphql';
import { createYoga } from 'graphql-yoga';
import { describe, expect, it, vi } from 'vitest';
import { CompiledOperations, recursiveInputTypes, useCompiledExecution } from './compiled-operations.ts';

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

describe('CompiledOperations', () => {
  const schema = makeExecutableSchema({
    typeDefs: `
      input Filter { and: [Filter!] name: String }
      enum Size { SMALL LARGE }
      type Item { id: ID! size: Size! label(upper: Boolean = false): String! broken: String }
      type Query { items(first: Int!, size: Size): [Item!]! filtered(filter: Filter): Int }
    `,
    resolvers: {
      Query: {
        items: (_: unknown, { first, size }: { first: number; size?: string }) =>
          Array.from({ length: first }, (_, i) => ({ id: `i${i}`, size: size ?? 'SMALL' })),
        filtered: () => 1,
      },
      Item: {
        label: (item: { id: string }, { upper }: { upper: boolean }) =>
          upper ? item.id.toUpperCase() : item.id,
        broken: () => {
          throw new GraphQLError('broken on purpose', { extensions: { code: 'BROKEN' } });
        },
      },
    },
  });

  it('compiles each operation of a document once, and keeps it', () => {
    const operations = new CompiledOperations(schema);
    const document = parse('{ items(first: 2) { id } }');
    const compiled = operations.get(document, undefined);
    expect(compiled).not.toBeNull();
    expect(operations.get(document, undefined)).toBe(compiled);
    const two = parse('query A { items(first: 1) { id } } query B { items(first: 2) { id } }');
    expect(operations.get(two, 'A')).not.toBe(operations.get(two, 'B'));
    expect(operations.get(two, 'A')).toBe(operations.get(two, 'A'));
  });

  it('never compiles an operation taking a recursive input type', () => {
    const operations = new CompiledOperations(schema);
    const document = parse('query ($f: Filter) { filtered(filter: $f) }');
    for (let i = 0; i < 3; i++) expect(operations.get(document, undefined)).toBeNull();
  });

  it('answers over HTTP as graphql-js does once compiled: data, field errors, variable errors', async () => {
    const operations = new CompiledOperations(schema);
    const get = vi.spyOn(operations, 'get');
    const compiledYoga = createYoga({ schema, logging: false, plugins: [useCompiledExecution(operations)] });
    const plainYoga = createYoga({ schema, logging: false });
    const query = `query ($n: Int!, $s: Size, $u: Boolean) {
      items(first: $n, size: $s) { id size label(upper: $u) ...F } }
      fragment F on Item { ... on Item { again: broken } broken }`;
    const send = async (yoga: typeof plainYoga, variables: Record<string, unknown>) => {
      const response = await yoga.fetch('http://subgraph/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      });
      return { status: response.status, body: await response.json() };
    };
    const cases = [{ n: 3, s: 'LARGE', u: true }, { n: 2 }, { n: 'three' }, { s: 'HUGE', n: 1 }];
    const expected = await Promise.all(cases.map((v) => send(plainYoga, v)));
    for (let round = 0; round < 3; round++)
      for (const [i, v] of cases.entries()) expect(await send(compiledYoga, v)).toEqual(expected[i]);
    // Every execution found its operation compiled.
    expect(get.mock.results.map((r) => r.value === null)).toEqual(new Array(cases.length * 3).fill(false));
    expect(expected[0]!.body.data.items).toHaveLength(3);
    expect(expected[0]!.body.errors[0]).toMatchObject({
      message: 'broken on purpose',
      locations: [{ line: 3 }],
    });
    expect(expected[2]!.body.errors[0].message).toMatch(/\$n/);
  });
});

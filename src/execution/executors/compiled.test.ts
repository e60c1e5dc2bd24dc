import { makeExecutableSchema } from '@graphql-tools/schema';
import {
  buildSchema,
  type DocumentNode,
  type ExecutionResult,
  GraphQLError,
  GraphQLScalarType,
  type OperationDefinitionNode,
  parse,
} from 'graphql';
import { createYoga } from 'graphql-yoga';
import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_DOCUMENT_LIMITS } from '../../config/index.ts';
import { createLogger } from '../../shared/logger.ts';
import { Operations } from '../operation.ts';
import { SubgraphExecution } from '../subgraph.ts';
import {
  CompiledOperations,
  expandedFields,
  MAX_COMPILED_FIELDS,
  recursiveInputTypes,
  settled,
} from './compiled.ts';

/** The same record for the same parsed document, as a place keeps it. */
const records = new Operations();
const op = (document: DocumentNode, name?: string) => records.of(document, name);

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
      scalar Weird
      type Item { id: ID! size: Size! label(upper: Boolean = false): String! broken: String echo(text: String!): String }
      type Query {
        items(first: Int!, size: Size): [Item!]!
        filtered(filter: Filter): Int
        must: String!
        weird: Weird
      }
    `,
    resolvers: {
      Weird: new GraphQLScalarType({
        name: 'Weird',
        serialize: () => {
          throw new Error('secret detail of a server fault');
        },
      }),
      Query: {
        must: () => null,
        weird: () => 1,
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
    const compiled = operations.get(op(document));
    expect(compiled).not.toBeNull();
    expect(operations.get(op(document))).toBe(compiled);
    const two = parse('query A { items(first: 1) { id } } query B { items(first: 2) { id } }');
    expect(operations.get(op(two, 'A'))).not.toBe(operations.get(op(two, 'B')));
    expect(operations.get(op(two, 'A'))).toBe(operations.get(op(two, 'A')));
  });

  it('never compiles an operation taking a recursive input type', () => {
    const operations = new CompiledOperations(schema);
    const document = parse('query ($f: Filter) { filtered(filter: $f) }');
    for (let i = 0; i < 3; i++) expect(operations.get(op(document))).toBeNull();
  });

  it('answers over HTTP as graphql-js does once compiled: data, field errors, variable errors', async () => {
    const get = vi.spyOn(CompiledOperations.prototype, 'forRequest');
    const execution = new SubgraphExecution({
      name: 'test',
      schema,
      documentLimits: DEFAULT_DOCUMENT_LIMITS,
      introspection: true,
      maxStringLength: 100_000,
      log: createLogger('silent'),
    });
    const compiledYoga = createYoga({ schema, logging: false, plugins: execution.plugins(true, (c) => c) });
    const plainYoga = createYoga({ schema, logging: false });
    const queries = [
      `query ($n: Int!, $s: Size, $u: Boolean) {
      items(first: $n, size: $s) { id size label(upper: $u) ...F } }
      fragment F on Item { ... on Item { again: broken } broken }`,
      'query ($n: Int! = 2, $s: Size = LARGE) { items(first: $n, size: $s) { id size } }',
      '{ must }',
      '{ weird }',
      'query ($t: String = "d") { items(first: 1) { echo(text: $t) } }',
    ];
    const send = async (yoga: typeof plainYoga, query: string, variables: Record<string, unknown>) => {
      const response = await yoga.fetch('http://subgraph/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      });
      return { status: response.status, body: await response.json() };
    };
    const cases = [
      [0, { n: 3, s: 'LARGE', u: true }],
      [0, { n: 2 }],
      [0, { n: 'three' }],
      [0, { s: 'HUGE', n: 1 }],
      [1, {}],
      [1, { n: 1 }],
      [2, {}],
      [3, {}],
      [4, { t: null }],
      [4, { t: 'x' }],
    ] as const;
    const expected = await Promise.all(cases.map(([q, v]) => send(plainYoga, queries[q]!, v)));
    for (let round = 0; round < 3; round++)
      for (const [i, [q, v]] of cases.entries())
        expect(await send(compiledYoga, queries[q]!, v), `${queries[q]} ${JSON.stringify(v)}`).toEqual(
          expected[i],
        );
    // Compiled wherever graphql-js would not refuse the variables or fill in a default.
    expect(get.mock.results.filter((r) => r.value !== null).length).toBeGreaterThanOrEqual(3 * 5);
    expect(expected[0]!.body.data.items).toHaveLength(3);
    expect(expected[0]!.body.errors[0]).toMatchObject({
      message: 'broken on purpose',
      locations: [{ line: 3 }],
    });
    expect(expected[2]!.body.errors[0].message).toMatch(/\$n/);
    expect(expected[4]!.body.data.items).toEqual([
      { id: 'i0', size: 'LARGE' },
      { id: 'i1', size: 'LARGE' },
    ]);
    // A fault of the server, not the client's: masked (Yoga's default mask here).
    expect(expected[6]!.body.errors[0].message).toBe('Unexpected error.');
    expect(expected[7]!.body.errors[0].message).toBe('Unexpected error.');
    expect(expected[8]!.body.errors[0].message).toMatch(/Argument "text" of non-null type/);
  });

  it('keeps an invalid argument the client’s error, and makes any other error of its own a fault', async () => {
    const operations = new CompiledOperations(schema);
    const run = async (text: string, variables: Record<string, unknown>, made?: ExecutionResult) => {
      const document = parse(text);
      const result = settled(
        made ?? ((await operations.get(op(document))!.query(undefined, {}, variables)) as ExecutionResult),
        document,
        document.definitions[0] as OperationDefinitionNode,
      );
      expect(Object.keys(result)[0], JSON.stringify(result)).toBe('errors');
      return result.errors![0]!;
    };
    // As graphql-jit reports an argument the variables made invalid (validation keeps such
    // documents from it here, but not every router validates alike): no original error.
    const argument = await run(
      'query ($t: String) { items(first: 1) { echo(text: $t) } }',
      {},
      {
        data: { items: [{ echo: null }] },
        errors: [
          new GraphQLError('Argument "text" of non-null type "String!" must not be null.', {
            path: ['items', 0, 'echo'],
          }),
        ],
      },
    );
    expect(argument.message).toMatch(/^Argument "text" of non-null type/);
    expect(argument.originalError).toBeFalsy();
    expect(argument.locations).toEqual([{ line: 1, column: 51 }]); // at `$t`
    const nonNull = await run('{ items(first: 1) { id } must }', {});
    expect(nonNull.message).toMatch(/^Cannot return null for non-nullable field/);
    expect(nonNull.originalError).toBeInstanceOf(Error);
    expect(nonNull.locations).toEqual([{ line: 1, column: 26 }]); // at `must`
  });

  it('leaves operations with many fields, fragments expanded, to graphql-js; counts in linear time', () => {
    const operations = new CompiledOperations(schema);
    // Twelve spreads of the next fragment on each of seven levels: 12^7 fields expanded.
    const levels = Array.from(
      { length: 7 },
      (_, k) =>
        `fragment F${k} on Item { ${Array.from({ length: 12 }, (_, i) => (k < 6 ? `...F${k + 1}` : `a${i}: id`)).join(' ')} }`,
    );
    const fanOut = parse(`{ items(first: 1) { ...F0 } } ${levels.join(' ')}`);
    const operation = fanOut.definitions[0] as OperationDefinitionNode;
    const started = performance.now();
    expect(expandedFields(fanOut, operation, MAX_COMPILED_FIELDS)).toBe(MAX_COMPILED_FIELDS + 1);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(operations.get(op(fanOut))).toBeNull();
    const wide = parse(
      `{ items(first: 1) { ${Array.from({ length: MAX_COMPILED_FIELDS }, (_, i) => `a${i}: id`).join(' ')} } }`,
    );
    expect(expandedFields(wide, wide.definitions[0] as OperationDefinitionNode, MAX_COMPILED_FIELDS)).toBe(
      MAX_COMPILED_FIELDS + 1,
    );
    const fits = parse(
      `{ items(first: 1) { ${Array.from({ length: MAX_COMPILED_FIELDS - 1 }, (_, i) => `a${i}: id`).join(' ')} } }`,
    );
    expect(expandedFields(fits, fits.definitions[0] as OperationDefinitionNode, MAX_COMPILED_FIELDS)).toBe(
      MAX_COMPILED_FIELDS,
    );
    expect(operations.get(op(fits))).not.toBeNull();
  });
});

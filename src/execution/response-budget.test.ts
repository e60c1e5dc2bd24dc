import { buildSchema, type ExecutionResult, execute, type GraphQLObjectType, parse } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { describe, expect, it } from 'vitest';
import { chargeFieldsResolved, ResponseBudget } from './response-budget.ts';

const LIMITS = { maxFields: 1_000_000, maxRelated: 1_000, maxErrors: 1_000 };

/** A schema whose `items(n)` lists n objects, each with a nested object, counted by the budget. */
function schemaWithLog(log: string[]) {
  const schema = buildSchema(`
    type Query { items(n: Int!): [Item] }
    type Item { id: Int name: String detail: Detail }
    type Detail { size: Int }
  `);
  const fields = (type: string) => (schema.getType(type) as GraphQLObjectType).getFields();
  fields('Query').items!.resolve = (_, { n }) => Array.from({ length: n as number }, (_, id) => ({ id }));
  fields('Item').name!.resolve = (item: { id: number }) => {
    log.push(`item ${item.id}`);
    return `item ${item.id}`;
  };
  fields('Item').detail!.resolve = (item: { id: number }) => ({ size: item.id * 2 });
  chargeFieldsResolved(schema);
  return schema;
}

const DOCUMENT = parse('query ($n: Int!) { items(n: $n) { id name detail { size } } }');

/** Runs `run`, noting each turn of the event loop it lets happen while it executes. */
async function withTurns(log: string[], run: () => Promise<ExecutionResult>) {
  let done = false;
  const tick = () => {
    if (done) return;
    log.push('turn');
    setImmediate(tick);
  };
  setImmediate(tick);
  const result = await run();
  done = true;
  return result;
}

/** The longest run of items resolved between two turns of the loop. */
function longestStretch(log: readonly string[]) {
  let longest = 0;
  let run = 0;
  for (const entry of log) {
    run = entry === 'turn' ? 0 : run + 1;
    longest = Math.max(longest, run);
  }
  return longest;
}

const engines = {
  'graphql-js': (schema: ReturnType<typeof schemaWithLog>, n: number, budget: ResponseBudget) =>
    execute({
      schema,
      document: DOCUMENT,
      variableValues: { n },
      contextValue: { budget },
    }) as Promise<ExecutionResult>,
  'graphql-jit': (schema: ReturnType<typeof schemaWithLog>, n: number, budget: ResponseBudget) => {
    const query = compileQuery(schema, DOCUMENT);
    if (!isCompiledQuery(query)) throw new Error('did not compile');
    return Promise.resolve(query.query(undefined, { budget }, { n }));
  },
};

describe.each(Object.entries(engines))('a large response on %s', (_name, run) => {
  it('is resolved in slices, with the event loop turning between them, and answers the same', async () => {
    const log: string[] = [];
    const schema = schemaWithLog(log);
    const budget = new ResponseBudget(LIMITS, 300);
    const result = await withTurns(log, () => run(schema, 3_000, budget));
    // 3,000 items, each charged for its 3 fields and its `detail` for 1: 12,000 fields, 40 slices
    // of 300.
    expect(budget.turns).toBeGreaterThanOrEqual(39);
    // A slice of 300 fields holds at most 100 items: no stretch resolves more before the loop
    // turns.
    expect(longestStretch(log)).toBeLessThanOrEqual(100);

    const unsliced: string[] = [];
    const whole = await run(
      schemaWithLog(unsliced),
      3_000,
      new ResponseBudget(LIMITS, Number.POSITIVE_INFINITY),
    );
    expect(result).toEqual(whole);
    expect(result.data?.items).toHaveLength(3_000);
  });

  it('lets an ordinary response run to its end without a turn', async () => {
    const log: string[] = [];
    const budget = new ResponseBudget(LIMITS);
    const result = await withTurns(log, () => run(schemaWithLog(log), 100, budget));
    expect(result.errors).toBeUndefined();
    expect(budget.turns).toBe(0);
    expect(log.filter((e) => e === 'turn')).toEqual([]);
  });

  it('still stops a response over its field budget with the one typed error', async () => {
    const budget = new ResponseBudget({ maxFields: 5_000, maxRelated: 1_000, maxErrors: 1_000 }, 300);
    await run(schemaWithLog([]), 3_000, budget);
    expect(budget.error?.extensions.code).toBe('RESPONSE_TOO_LARGE');
  });
});

/** A connection whose `node` and `info` are plain properties: no resolver of their own. */
function connectionSchema() {
  const schema = buildSchema(`
    type Query { page: Page }
    type Page { edges: [Edge] info: Info }
    type Edge { node: Node }
    type Node { id: Int meta: Meta }
    type Meta { a: Int b: Int }
    type Info { more: Boolean }
  `);
  (schema.getType('Query') as GraphQLObjectType).getFields().page!.resolve = () => ({
    edges: Array.from({ length: 10 }, (_, id) => ({ node: { id, meta: { a: id, b: id } } })),
    info: { more: true },
  });
  chargeFieldsResolved(schema);
  return schema;
}

describe.each([
  ['fields', '{ page { edges { node { id meta { a b } } } info { more } } }'],
  [
    'fragments',
    '{ page { edges { node { ...N } } ...I } } fragment N on Node { id meta { a b } } fragment I on Page { info { more } }',
  ],
])('objects read as properties (%s)', (_name, text) => {
  const document = parse(text);
  // page: edges, info and info's more (3); each of 10 edges: node, and node's id, meta, a, b (5).
  const exact = 3 + 10 * 5;
  const engines = {
    'graphql-js': (schema: ReturnType<typeof connectionSchema>, budget: ResponseBudget) =>
      execute({ schema, document, contextValue: { budget } }) as Promise<ExecutionResult>,
    'graphql-jit': (schema: ReturnType<typeof connectionSchema>, budget: ResponseBudget) => {
      const query = compileQuery(schema, document);
      if (!isCompiledQuery(query)) throw new Error('did not compile');
      return Promise.resolve(query.query(undefined, { budget }, {}));
    },
  };
  it.each(Object.entries(engines))('are charged with their parent, exactly, on %s', async (_engine, run) => {
    const schema = connectionSchema();
    // Read as properties, not through a resolver per row.
    expect((schema.getType('Edge') as GraphQLObjectType).getFields().node!.resolve).toBeUndefined();
    const within = new ResponseBudget({ maxFields: exact, maxRelated: 1_000, maxErrors: 1_000 });
    const result = await run(schema, within);
    expect(result.errors).toBeUndefined();
    expect(within.error).toBeUndefined();
    const over = new ResponseBudget({ maxFields: exact - 1, maxRelated: 1_000, maxErrors: 1_000 });
    await run(schema, over);
    expect(over.error?.extensions.code).toBe('RESPONSE_TOO_LARGE');
  });
});

describe('a field whose implementations return different types', () => {
  // Holder.thing is Plain on H1 (whose `inner` is a plain property) and Wrapped on H2 (whose
  // `inner` has a resolver): one field node, counted per type it returned.
  const schema = buildSchema(`
    type Query { holders: [Holder] }
    interface Holder { thing: Thing }
    interface Thing { id: Int inner: Inner }
    type Inner { a: Int b: Int }
    type Plain implements Thing { id: Int inner: Inner }
    type Wrapped implements Thing { id: Int inner: Inner }
    type H1 implements Holder { thing: Plain }
    type H2 implements Holder { thing: Wrapped }
  `);
  const fields = (type: string) => (schema.getType(type) as GraphQLObjectType).getFields();
  const inner = { a: 1, b: 2 };
  fields('Query').holders!.resolve = () => [
    { __typename: 'H2', thing: { __typename: 'Wrapped', id: 0, inner } },
    ...Array.from({ length: 9 }, (_, id) => ({
      __typename: 'H1',
      thing: { __typename: 'Plain', id, inner },
    })),
  ];
  fields('H1').thing!.resolve = (h: { thing: unknown }) => h.thing;
  fields('H2').thing!.resolve = (h: { thing: unknown }) => h.thing;
  fields('Wrapped').inner!.resolve = (w: { inner: unknown }) => w.inner;
  chargeFieldsResolved(schema);
  const document = parse('{ holders { thing { id inner { a b } } } }');
  // holders: 10 × thing; H2's thing: id, inner (2), its inner charging a, b (2); each of 9 H1's
  // thing: id, inner and inner's a, b (4).
  const exact = 10 + 2 + 2 + 9 * 4;

  it('is charged for each type it returns, the first one seen not standing for the others', async () => {
    const within = new ResponseBudget({ maxFields: exact, maxRelated: 1_000, maxErrors: 1_000 });
    expect((await execute({ schema, document, contextValue: { budget: within } })).errors).toBeUndefined();
    const over = new ResponseBudget({ maxFields: exact - 1, maxRelated: 1_000, maxErrors: 1_000 });
    await execute({ schema, document, contextValue: { budget: over } });
    expect(over.error?.extensions.code).toBe('RESPONSE_TOO_LARGE');
  });
});

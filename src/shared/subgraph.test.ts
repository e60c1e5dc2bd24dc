import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { systemClock } from './clock.ts';
import { ANONYMOUS, IdentitySigner } from './identity.ts';
import { createLogger } from './logger.ts';
import { createSubgraph } from './subgraph.ts';

describe('executeLocally', () => {
  const calls: unknown[] = [];
  const subgraph = createSubgraph({
    name: 'echo',
    typeDefs: 'scalar JSONObject\ntype Query { echo(o: JSONObject, n: Int): String }',
    resolvers: {
      Query: {
        echo: (_: unknown, args: unknown) => {
          calls.push(args);
          return JSON.stringify(args);
        },
      },
    },
    extendContext: (base) => base,
    signer: new IdentitySigner('subgraph-test-secret-0123456789abcdef'),
    log: createLogger('silent'),
    clock: systemClock,
  });
  const run = (query: string, variableValues: Record<string, unknown>, variablesCoerced: boolean) =>
    subgraph.executeLocally({
      document: parse(query),
      variableValues,
      identity: ANONYMOUS,
      requestId: 'r',
      variablesCoerced,
    });

  it("coerces a custom scalar's variables itself, even when the caller has coerced them", async () => {
    // The supergraph's coercion is not this schema's for a custom scalar (or an enum): only
    // built-in scalars are taken as coerced (LocalOperation.variablesCoerced).
    for (const variablesCoerced of [false, true]) {
      calls.length = 0;
      const { result } = await run('query($o: JSONObject) { echo(o: $o) }', { o: [1] }, variablesCoerced);
      expect(result.errors?.[0]?.message).toMatch(/\$o/);
      expect(result.errors?.[0]?.extensions?.http).toEqual({ status: 400 });
      expect(calls).toEqual([]);
    }
  });

  it('coerces built-in scalars unless the caller has', async () => {
    calls.length = 0;
    const { result } = await run('query($n: Int) { echo(n: $n) }', { n: 'x' }, false);
    expect(result.errors?.[0]?.extensions?.http).toEqual({ status: 400 });
    expect(calls).toEqual([]);
    const ok = await run(
      'query($n: Int, $o: JSONObject) { echo(n: $n, o: $o) }',
      { n: 2, o: { a: 1 } },
      true,
    );
    expect(JSON.parse(String(ok.result.data?.echo))).toEqual({ n: 2, o: { a: 1 } });
  });
});

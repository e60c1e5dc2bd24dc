import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DOCUMENT_LIMITS } from '../config/index.ts';
import { systemClock } from '../shared/clock.ts';
import { ANONYMOUS, IdentitySigner } from '../shared/identity.ts';
import { createLogger } from '../shared/logger.ts';
import { createSubgraph } from './index.ts';

describe('executeLocally', () => {
  const calls: unknown[] = [];
  const subgraph = createSubgraph({
    name: 'echo',
    typeDefs: 'scalar JSONObject\ntype Query { echo(o: JSONObject, n: Int, s: String): String }',
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
    requestLimits: { documentLimits: DEFAULT_DOCUMENT_LIMITS, introspection: true, maxStringLength: 5 },
  });
  const run = (query: string, variableValues: Record<string, unknown>, checked: boolean) =>
    subgraph.executeLocally({
      document: parse(query),
      variableValues,
      identity: ANONYMOUS,
      requestId: 'r',
      checked,
    });

  it('coerces the variables to its own types, whether or not the caller has checked them', async () => {
    // The caller's coercion (the gateway's, to the supergraph's types) is not taken for this one's.
    for (const checked of [false, true]) {
      calls.length = 0;
      const object = await run('query($o: JSONObject) { echo(o: $o) }', { o: [1] }, checked);
      expect(object.result.errors?.[0]?.message).toMatch(/\$o/);
      expect(object.result.errors?.[0]?.extensions?.http).toEqual({ status: 400 });
      const int = await run('query($n: Int) { echo(n: $n) }', { n: 'x' }, checked);
      expect(int.result.errors?.[0]?.extensions?.http).toEqual({ status: 400 });
      expect(calls).toEqual([]);
    }
    const ok = await run(
      'query($n: Int, $o: JSONObject) { echo(n: $n, o: $o) }',
      { n: 2, o: { a: 1 } },
      true,
    );
    expect(JSON.parse(String(ok.result.data?.echo))).toEqual({ n: 2, o: { a: 1 } });
  });

  it('holds the variables to its input limits unless the caller has admitted them under the same', async () => {
    calls.length = 0;
    const refused = await run('query($s: String) { echo(s: $s) }', { s: 'too long' }, false);
    expect(refused.result.errors?.[0]?.extensions).toMatchObject({ limit: 'maxStringLength', maximum: 5 });
    expect(calls).toEqual([]);
    const trusted = await run('query($s: String) { echo(s: $s) }', { s: 'too long' }, true);
    expect(JSON.parse(String(trusted.result.data?.echo))).toEqual({ s: 'too long' });
  });
});

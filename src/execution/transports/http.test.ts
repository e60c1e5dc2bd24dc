import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { TYPE_DEFS } from '../../server/app.ts';
import { ANONYMOUS } from '../../shared/identity.ts';
import { Operations } from '../operation.ts';
import { remoteSubgraph } from './http.ts';

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
    const remote = remoteSubgraph({ name: 'auth', typeDefs: TYPE_DEFS.auth, url });
    const operation = new Operations().of(parse('{ session { username } }'), null);
    try {
      const answers = [];
      for (const [i] of bodies.entries()) {
        const { result } = await remote.execute({
          operation,
          variables: {},
          caller: { identity: ANONYMOUS, signedIdentity: () => 'token', requestId: 'r' },
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

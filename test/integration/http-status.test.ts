import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHQL_PATH } from '../../src/gateway/gateway.ts';
import { BASE, startTestApp, type TestApp } from '../helpers/app.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';

// A request the server cannot take as it is (a body that is not JSON, no body, a document or
// argument over a limit) is answered 400 whatever the Accept header, by the gateway and by each
// subgraph (docs/security.md "HTTP status"). GraphQL over HTTP lets a server answer such
// requests 200 under `application/json`; assetql does not, so that the status alone tells a
// client, a proxy or a log that the request was wrong.

const ACCEPTS = ['application/json', '*/*', 'application/graphql-response+json', undefined] as const;

let database: TestDatabase;
let gateway: TestApp;
const subgraphs: Record<string, TestApp> = {};
/** What the gateway and the subgraphs log at warn and above, as JSON lines. */
const logged: string[] = [];
const log = pino({ level: 'warn' }, { write: (line: string) => void logged.push(line) });

beforeAll(async () => {
  database = await freshDatabase();
  gateway = await startTestApp({
    database,
    log,
    config: { documentLimits: { maxDepth: 3 }, maxStringLength: 1000 },
  });
  for (const name of ['assets', 'auth', 'issues'] as const)
    subgraphs[name] = await startTestApp({
      database,
      log,
      role: { kind: 'subgraph', name },
      config: { maxStringLength: 1000 },
    });
});
afterAll(async () => {
  for (const app of Object.values(subgraphs)) await app.close();
  await gateway?.close();
  await database?.close();
});

function post(app: TestApp, path: string, accept: string | undefined, body: string | undefined) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (accept) headers.accept = accept;
  return app.handle(new Request(`${BASE}${path}`, { method: 'POST', headers, body }));
}

const CASES: [string, string | undefined, string?][] = [
  ['a malformed JSON body', '{"query": "{ __typename }"'],
  ['no body', undefined],
  ['a JSON body that is not an object', '[1, 2'],
  [
    'an over-long string argument',
    JSON.stringify({ query: `{ __type(name: "${'x'.repeat(1001)}") { name } }` }),
  ],
];

/** What every refusal looks like: 400, a JSON body with errors and no data, nothing internal. */
async function expectRefused(response: Response, label: string) {
  const text = await response.text();
  expect(response.status, `${label}: ${text.slice(0, 300)}`).toBe(400);
  const body = JSON.parse(text);
  expect(body.data ?? null, label).toBeNull();
  expect(body.errors?.length, label).toBeGreaterThan(0);
  expect(text).not.toMatch(/originalError|stack|SyntaxError: /);
}

describe('HTTP status of refused requests', () => {
  for (const accept of ACCEPTS) {
    describe(`with Accept ${accept ?? '(none)'}`, () => {
      it('the gateway answers 400', async () => {
        for (const [label, body] of CASES)
          await expectRefused(await post(gateway, GRAPHQL_PATH, accept, body), label);
        const deep = JSON.stringify({ query: '{ session { user { devices { deviceKey } } } }' });
        await expectRefused(await post(gateway, GRAPHQL_PATH, accept, deep), 'a document over maxDepth');
      });

      it('each subgraph answers 400', async () => {
        for (const [name, app] of Object.entries(subgraphs))
          for (const [label, body] of CASES)
            await expectRefused(await post(app, '/graphql', accept, body), `${name}: ${label}`);
      });

      it('a good request is still 200', async () => {
        const body = JSON.stringify({ query: '{ __typename }' });
        const r = await post(gateway, GRAPHQL_PATH, accept, body);
        expect(r.status).toBe(200);
        expect(await r.json()).toEqual({ data: { __typename: 'Query' } });
        for (const app of Object.values(subgraphs))
          expect((await post(app, '/graphql', accept, body)).status).toBe(200);
      });
    });
  }
});

describe('malformed JSON in a GET’s variables or extensions', () => {
  // Only a GET carries them in a query string: a form POST is refused before it is read (CSRF, 403).
  const requests = (path: string): [string, Request][] =>
    (['variables', 'extensions'] as const).map((name) => [
      name,
      new Request(`${BASE}${path}?query=${encodeURIComponent('{ __typename }')}&${name}=notjson`),
    ]);

  it('is the client’s mistake: 400 BAD_REQUEST naming the parameter, nothing logged as an error', async () => {
    const apps: [string, TestApp, string][] = [
      ['gateway', gateway, GRAPHQL_PATH],
      ...Object.entries(subgraphs).map(([name, app]): [string, TestApp, string] => [name, app, '/graphql']),
    ];
    const before = logged.length;
    for (const [appName, app, path] of apps)
      for (const [name, request] of requests(path)) {
        const response = await app.handle(request);
        const text = await response.text();
        expect(response.status, `${appName}: ${name}: ${text}`).toBe(400);
        expect(JSON.parse(text), `${appName}: ${name}`).toEqual({
          errors: [{ message: `${name} is not valid JSON.`, extensions: { code: 'BAD_REQUEST' } }],
        });
      }
    const errors = logged.slice(before).filter((line) => (JSON.parse(line) as { level: number }).level >= 50);
    expect(errors).toEqual([]);
  });
});

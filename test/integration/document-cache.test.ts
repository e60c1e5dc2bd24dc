import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHQL_PATH } from '../../src/gateway/gateway.ts';
import { BASE, startTestApp, type TestApp } from '../helpers/app.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';

// Parsed documents are kept between requests within a bound on what they hold, not only on
// their number (src/execution/document-cache.ts): Yoga's default kept 1,024 of any size, so about
// 600 different documents of 10,000 tokens (5 MB each once parsed), or a thousand different
// 4-MB bodies, ran the process out of memory. Shown here on the heap itself, through the
// gateway and through a subgraph's own port.

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapAfterGc(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

const DOCUMENTS = 40;
const MB = 1024 * 1024;

/** A document of about 10,000 tokens, different for each `i`; it fails validation. */
const manyTokens = (i: number) => `{ ${Array.from({ length: 9_990 }, (_, j) => `f${i}_${j}`).join(' ')} }`;

/** A 3.6-MB string argument, different for each `i`; refused by the string length limit. */
const longString = (i: number) =>
  `{ assets(profile: "well") { all(first: 1, filter: { search: "${`w${i} `.repeat(900_000).trimEnd()}" }) { edges { node { id } } } } }`;

let database: TestDatabase;
let gateway: TestApp;
let subgraph: TestApp;

beforeAll(async () => {
  database = await freshDatabase();
  gateway = await startTestApp({ database });
  subgraph = await startTestApp({ database, role: { kind: 'subgraph', name: 'assets' } });
});
afterAll(async () => {
  await subgraph?.close();
  await gateway?.close();
  await database?.close();
});

async function send(app: TestApp, path: string, query: string) {
  const response = await app.handle(
    new Request(`${BASE}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query }),
    }),
  );
  return {
    status: response.status,
    body: (await response.json()) as { errors?: { extensions?: { code?: string } }[] },
  };
}

describe.each([
  ['the gateway', () => gateway, GRAPHQL_PATH],
  ['a subgraph', () => subgraph, '/graphql'],
] as const)('%s keeps no large document between requests', (_, app, path) => {
  it.each([
    ['documents of 10,000 tokens', manyTokens, 'GRAPHQL_VALIDATION_FAILED'],
    ['documents carrying a 3.6-MB string', longString, 'BAD_USER_INPUT'],
  ] as const)(
    '%s',
    async (_, document, code) => {
      // Once, so that what every request leaves behind (schemas, compiled rules) is there already.
      await send(app(), path, document(-1));
      const before = heapAfterGc();
      for (let i = 0; i < DOCUMENTS; i++) {
        const { body } = await send(app(), path, document(i));
        expect(body.errors?.[0]?.extensions?.code).toBe(code);
      }
      const grown = (heapAfterGc() - before) / MB;
      // Kept by count, 40 such documents hold 150-200 MB.
      expect(grown).toBeLessThan(40);
    },
    120_000,
  );
});

describe.each([
  ['the gateway', () => gateway, GRAPHQL_PATH],
  ['a subgraph', () => subgraph, '/graphql'],
] as const)('%s keeps no document that fails validation', (_, app, path) => {
  it('sent twice each (so that it would be kept), with 101 errors each', async () => {
    const invalid = (i: number) => `{ ${Array.from({ length: 101 }, (_, j) => `u${i}_${j}`).join(' ')} }`;
    await send(app(), path, invalid(-1));
    const before = heapAfterGc();
    for (let i = 0; i < 300; i++) {
      for (let k = 0; k < 2; k++) {
        const { body } = await send(app(), path, invalid(i));
        expect(body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_VALIDATION_FAILED');
      }
    }
    const grown = (heapAfterGc() - before) / MB;
    // Kept with their validation errors (about 3 KB each), 300 such documents hold about 100 MB.
    expect(grown).toBeLessThan(40);
  }, 120_000);
});

it('answers a document it keeps as the first time, and its parse error too', async () => {
  const query = '{ __typename }';
  for (let i = 0; i < 3; i++) {
    expect((await send(gateway, GRAPHQL_PATH, query)).body).toEqual({ data: { __typename: 'Query' } });
    const broken = await send(gateway, GRAPHQL_PATH, '{ __typename');
    expect(broken.body.errors?.[0]?.extensions?.code).toBe('GRAPHQL_PARSE_FAILED');
  }
});

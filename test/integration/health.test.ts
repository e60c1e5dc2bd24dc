/**
 * Every process answers `/healthz` and `/readyz` alike, whatever it serves: the gateway (alone
 * or with the subgraphs in one process) and each subgraph on its own. A probe configured once
 * works for all of them (docs/operations.md).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBGRAPH_NAMES } from '../../src/config/index.ts';
import { BASE, startTestApp, type TestApp } from '../helpers/app.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';

let database: TestDatabase;
const apps: { name: string; app: TestApp }[] = [];

beforeAll(async () => {
  database = await freshDatabase();
  apps.push({ name: 'single process', app: await startTestApp({ database }) });
  for (const name of SUBGRAPH_NAMES)
    apps.push({
      name: `subgraph ${name}`,
      app: await startTestApp({ database, role: { kind: 'subgraph', name } }),
    });
});

afterAll(async () => {
  for (const { app } of apps) await app.close();
  await database?.close();
});

async function probe(app: TestApp, path: string) {
  const r = await app.handle(new Request(`${BASE}${path}`));
  return { status: r.status, type: r.headers.get('content-type'), body: await r.text() };
}

describe('health and readiness', () => {
  it('/healthz answers 200 with {"status":"ok"} as JSON on every kind of process', async () => {
    for (const { name, app } of apps) {
      expect({ name, ...(await probe(app, '/healthz')) }).toEqual({
        name,
        status: 200,
        type: 'application/json',
        body: '{"status":"ok"}',
      });
    }
  });

  it('/readyz answers 200 with {"status":"ready"} as JSON on every kind of process', async () => {
    for (const { name, app } of apps) {
      expect({ name, ...(await probe(app, '/readyz')) }).toEqual({
        name,
        status: 200,
        type: 'application/json',
        body: '{"status":"ready"}',
      });
    }
  });
});

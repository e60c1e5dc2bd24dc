import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';

let database: TestDatabase;
let one: TestApp;
let two: TestApp;

beforeAll(async () => {
  database = await freshDatabase();
  one = await startTestApp({ database, config: { corsOrigins: ['https://app.example'] } });
  two = await startTestApp({
    database,
    config: { corsOrigins: ['https://app.example', 'https://admin.example:8443'] },
  });
});
afterAll(async () => {
  await one.close();
  await two.close();
  await database.close();
});

const preflight = (origin: string) =>
  new Request('http://localhost:4000/api/graphql', {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type, x-svc-sessionid',
    },
  });
const post = (origin: string) =>
  new Request('http://localhost:4000/api/graphql', {
    method: 'POST',
    headers: { origin, 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ session { authenticated } }' }),
  });

const corsHeaders = (r: Response) =>
  Object.fromEntries([...r.headers].filter(([name]) => name.startsWith('access-control-')));

describe('CORS with ASSETQL_CORS_ORIGINS', () => {
  it.each([
    ['one origin listed', () => one, 'https://app.example'],
    ['two origins listed', () => two, 'https://admin.example:8443'],
  ])('%s: grants a listed origin credentials and lets it read x-svc-sessionid', async (_, app, origin) => {
    expect(corsHeaders(await app().handle(preflight(origin)))).toMatchObject({
      'access-control-allow-origin': origin,
      'access-control-allow-credentials': 'true',
      'access-control-allow-headers': 'content-type, x-svc-sessionid',
    });
    expect(corsHeaders(await app().handle(post(origin)))).toEqual({
      'access-control-allow-origin': origin,
      'access-control-allow-credentials': 'true',
      'access-control-expose-headers': 'x-svc-sessionid',
    });
  });

  it.each([
    ['one origin listed', () => one],
    ['two origins listed', () => two],
  ])('%s: answers an unlisted origin no CORS header at all', async (_, app) => {
    for (const origin of [
      'https://evil.example',
      'null',
      'https://app.example.evil.example',
      'http://app.example',
    ]) {
      expect(corsHeaders(await app().handle(preflight(origin))), origin).toEqual({});
      const r = await app().handle(post(origin));
      expect(corsHeaders(r), origin).toEqual({});
      expect(r.status).toBe(200);
    }
  });
});

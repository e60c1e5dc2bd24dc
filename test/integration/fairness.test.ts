/**
 * Fairness between tenants (docs/security.md#fairness-between-tenants): while tenants contend
 * for a busy process, one that has had more than its share runs one request at a time and the
 * rest of its burst waits (bounded) or is refused with 429, while the other tenant's requests
 * start at once. Here "busy" is any utilisation at all (`busyAbove` at its smallest), so that the
 * outcome does not depend on the machine's speed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE, startTestApp, type TestApp } from '../helpers/app.ts';

const SESSION = `{ session { username userGroup } }`;
const MAX_QUEUED = 2;

let app: TestApp;
let heavy: Record<string, string>;
let light: Record<string, string>;

beforeAll(async () => {
  app = await startTestApp({
    config: { fairness: { busyAbove: 0.000_001, maxQueued: MAX_QUEUED, maxWaitMs: 20_000 } },
  });
  heavy = { 'x-svc-sessionid': await app.sessionFor('heavy-user', 'heavy') };
  light = { 'x-svc-sessionid': await app.sessionFor('light-user', 'light') };
});
afterAll(() => app?.close());

/** Makes `heavy` the tenant over its share: it has run several requests, `light` one. */
async function contend() {
  for (let i = 0; i < 6; i++) expect((await app.graphql(SESSION, {}, heavy)).status).toBe(200);
  expect((await app.graphql(SESSION, {}, light)).status).toBe(200);
}

describe('fairness between tenants', () => {
  it('queues and then refuses a burst of the tenant over its share, and lets the other through', async () => {
    await contend();
    const burst = Array.from({ length: 10 }, () => app.graphql(SESSION, {}, heavy));
    const other = await app.graphql<{ session: { userGroup: string } }>(SESSION, {}, light);
    expect(other.status).toBe(200);
    expect(other.body.data?.session.userGroup).toBe('light');

    const answers = await Promise.all(burst);
    const refused = answers.filter((a) => a.status === 429);
    const served = answers.filter((a) => a.status === 200);
    // At most `maxQueued` wait; the others are refused at once, and nothing fails otherwise.
    expect(refused.length).toBeGreaterThanOrEqual(10 - MAX_QUEUED);
    expect(served.length + refused.length).toBe(10);
    for (const r of refused) {
      expect(r.headers.get('retry-after')).toBe('1');
      expect(r.body).toEqual({
        errors: [
          {
            message: 'Too many requests from this tenant while the server is busy; try again shortly.',
            extensions: { code: 'REQUEST_RATE_LIMITED' },
          },
        ],
      });
    }
    // The waiting ones ran once the other tenant went quiet: the tenant is alone again.
    expect(served.length).toBe(MAX_QUEUED);
    expect(
      served.every((s) => (s.body.data as { session: { userGroup: string } }).session.userGroup === 'heavy'),
    ).toBe(true);
  });

  it('forgets a waiting request whose client goes away, and never runs it', async () => {
    await contend();
    const aborts = Array.from({ length: MAX_QUEUED }, () => new AbortController());
    const waiting = aborts.map((abort) =>
      app.handle(
        new Request(`${BASE}/api/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...heavy },
          // A mutation would show if it ran: an issue would be opened.
          body: JSON.stringify({
            query:
              'mutation { createIssue(input: { displayName: "left while waiting" }) { errors { type } } }',
          }),
          signal: abort.signal,
        }),
      ),
    );
    await new Promise((r) => setTimeout(r, 50));
    for (const abort of aborts) abort.abort();
    const gone = await Promise.all(
      waiting.map((w) =>
        w.then(
          (r) => r.status,
          () => 'aborted',
        ),
      ),
    );
    for (const g of gone) expect([499, 'aborted']).toContain(g);
    // Their places are free again: the tenant may queue as many as before, none refused at once.
    await contend();
    const again = await Promise.all(
      Array.from({ length: MAX_QUEUED }, () => app.graphql(SESSION, {}, heavy)),
    );
    expect(again.map((a) => a.status)).toEqual(Array(MAX_QUEUED).fill(200));
    const issues = await app.graphql<{ issues: { all: { edges: unknown[] } } }>(
      '{ issues { all { edges { node { id } } } } }',
      {},
      heavy,
    );
    expect(issues.body.data?.issues.all.edges).toEqual([]);
  });

  it("does not let a slow upload hold its tenant's turn: bodies are read before it", async () => {
    // Default sharing (busyAbove 0.5), short waits; a signed-in tenant active meanwhile.
    const own = await startTestApp({
      database: app.database,
      config: { fairness: { maxQueued: MAX_QUEUED, maxWaitMs: 1_000 } },
    });
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const QUERY = '{ config { auth { loginEnabled } } }';
    /** A request without a session (every such caller is one tenant) whose body takes `ms` to arrive. */
    const slowUpload = (ms: number) =>
      own.handle(
        new Request(`${BASE}/api/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: new ReadableStream<Uint8Array>(
            {
              async pull(controller) {
                await sleep(ms);
                controller.enqueue(new TextEncoder().encode(JSON.stringify({ query: QUERY })));
                controller.close();
              },
            },
            { highWaterMark: 0 },
          ),
          duplex: 'half',
        } as RequestInit),
      );
    let active = true;
    const other = { 'x-svc-sessionid': await own.sessionFor('light-user', 'light') };
    const pinging = (async () => {
      while (active) {
        await own.graphql(SESSION, {}, other);
        await sleep(100);
      }
    })();
    try {
      await sleep(50);
      // One slow upload (were its upload counted, the tenant would be over its share), then
      // another still arriving while signed-out callers come: they are served, not held behind it.
      expect((await slowUpload(1_200)).status).toBe(200);
      const held = slowUpload(3_000);
      await sleep(100);
      const others = await Promise.all(Array.from({ length: 3 }, () => own.graphql(QUERY)));
      expect(others.map((r) => r.status)).toEqual([200, 200, 200]);
      expect((await held).status).toBe(200);
    } finally {
      active = false;
      await pinging;
      await own.close();
    }
  });

  it('is off with busyAbove 1: a burst of one tenant is served whole', async () => {
    const off = await startTestApp({ database: app.database, config: { fairness: { busyAbove: 1 } } });
    try {
      const h = { 'x-svc-sessionid': await off.sessionFor('heavy-user', 'heavy') };
      const l = { 'x-svc-sessionid': await off.sessionFor('light-user', 'light') };
      for (let i = 0; i < 6; i++) await off.graphql(SESSION, {}, h);
      await off.graphql(SESSION, {}, l);
      const answers = await Promise.all(Array.from({ length: 10 }, () => off.graphql(SESSION, {}, h)));
      expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    } finally {
      await off.close();
    }
  });

  it('refuses settings out of range, naming the variable', async () => {
    const { loadConfig } = await import('../../src/config/index.ts');
    expect(() => loadConfig({}, { ASSETQL_FAIRNESS: '{ "busyAbove": 0 }' })).toThrow(/ASSETQL_FAIRNESS/);
    expect(() => loadConfig({}, { ASSETQL_FAIRNESS: '{ "maxQueue": 3 }' })).toThrow(/ASSETQL_FAIRNESS/);
    expect(loadConfig({}, {}).fairness).toEqual({ busyAbove: 0.5, maxQueued: 64, maxWaitMs: 10_000 });
  });
});

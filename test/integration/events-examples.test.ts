import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Change, follow } from '../../examples/events/subscriber.ts';
import { type Delivered, webhookReceiver } from '../../examples/events/webhook-receiver.ts';
import { seedDemo } from '../../src/demo/seed.ts';
import { type Listening, listen } from '../../src/server/listen.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// The examples of docs/events.md, run against a served assetql (#38): the Node subscriber that
// resumes by Last-Event-ID when its connection drops, and the webhook receiver that verifies.

let t: TestApp;
let api: Listening;
let session: string;
const delivered: Delivered[] = [];
const receiver = webhookReceiver('whsec_placeholder', () => {});
let hookServer: ReturnType<typeof webhookReceiver> | undefined;
/** The Last-Event-ID of each request that resumed a stream. */
const resumes: string[] = [];

beforeAll(async () => {
  // The receiver's port is allow-listed: it listens on loopback, which webhooks may not reach otherwise.
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const port = (receiver.address() as AddressInfo).port;
  receiver.close();
  t = await startTestApp({ config: { webhooks: { allowedHosts: [`127.0.0.1:${port}`] } } });
  await seedDemo(t.database.db, t.config);
  session = await t.sessionFor('demo', 'demo');
  api = await listen(
    (request, address) => {
      const resumedAt = request.headers.get('last-event-id');
      if (resumedAt) resumes.push(resumedAt);
      return t.handle(request, address);
    },
    0,
    '127.0.0.1',
  );
  const made = await t.graphql<any>(
    'mutation($url: String!) { createWebhook(input: { url: $url, filter: { ids: ["EX-HOOK"] } }) { secret errors { type } } }',
    { url: `http://127.0.0.1:${port}/hooks` },
    { 'x-svc-sessionid': session },
  );
  expect(made.body.data.createWebhook.errors).toEqual([]);
  hookServer = webhookReceiver(made.body.data.createWebhook.secret, (d) => delivered.push(d));
  await new Promise<void>((r) => hookServer!.listen(port, '127.0.0.1', r));
});
afterAll(async () => {
  await api.close(100);
  hookServer?.close();
  await t.close();
});

async function write(id: string) {
  const r = await t.graphql<any>(
    'mutation($input: UpsertAssetsInput!) { upsertAssets(input: $input) { errors { message } } }',
    { input: { profile: 'site', assets: [{ id, properties: { name: id } }] } },
    { 'x-svc-sessionid': session },
  );
  expect(r.body.data.upsertAssets.errors).toEqual([]);
}

async function until(done: () => boolean, what: string) {
  const deadline = Date.now() + 10_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`not yet: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

it('the subscriber example resumes by Last-Event-ID when its connection drops: every change once, in order', async () => {
  const got: Change[] = [];
  const stop = new AbortController();
  const following = follow({
    url: `${api.url}/api/graphql`,
    session,
    filter: { kinds: ['CREATED'], profiles: ['site'] },
    signal: stop.signal,
    onChange: (c) => void got.push(c),
  });
  await new Promise((r) => setTimeout(r, 300));
  for (let i = 0; i < 5; i++) await write(`EX-${i}`);
  await until(() => got.length === 5, 'the first five');
  // The connection drops (a proxy's timeout, a network blip); changes go on meanwhile.
  api.server.closeAllConnections();
  for (let i = 5; i < 10; i++) await write(`EX-${i}`);
  await until(() => got.length >= 10, 'all ten');
  await new Promise((r) => setTimeout(r, 300));
  stop.abort();
  const last = await following;
  expect(got.map((c) => c.entityId)).toEqual(Array.from({ length: 10 }, (_, i) => `EX-${i}`));
  // It did come back, after the last change it had handled.
  expect(resumes).toEqual([got[4]!.cursor]);
  expect(last).toBe(got[9]!.cursor);
});

it('the webhook receiver example verifies a delivery and refuses a forged one', async () => {
  await write('EX-HOOK');
  await until(() => delivered.length === 1, 'the delivery');
  expect(delivered[0]).toMatchObject({ type: 'change.created', data: { entityId: 'EX-HOOK' } });
  const port = (hookServer!.address() as AddressInfo).port;
  const forged = await fetch(`http://127.0.0.1:${port}/hooks`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': 'msg_forged',
      'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
      'webhook-signature': 'v1,bm90IGEgc2lnbmF0dXJl',
    },
    body: JSON.stringify({ type: 'change.deleted', data: { entityId: 'EX-HOOK' } }),
  });
  expect(forged.status).toBe(401);
  expect(delivered).toHaveLength(1);
});

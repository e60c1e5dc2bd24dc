import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { seedDemo } from '../../src/demo/seed.ts';
import { groupOf, prefixOf, subjectOf } from '../../src/subgraphs/events/relay.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

// The change log relayed to NATS JetStream (#38): one stream, a subject per group, each change
// once and in the log's order, its JSON as docs/events.md gives it; a relay that dies between
// publishing and moving on publishes nothing twice into the stream.
//
// Needs nats-server with JetStream (`nats-server -js`) at ASSETQL_TEST_NATS_URL or 127.0.0.1:4222.

const URL = process.env.ASSETQL_TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
// A stream of this run's own: other runs on the same server have groups of the same names.
const STREAM = `ASSETQL_TEST_${process.pid}_${Math.random().toString(36).slice(2, 8).toUpperCase()}`;

let t: TestApp;
let nc: NatsConnection;
let demo: Record<string, string>;
let east: Record<string, string>;

beforeAll(async () => {
  try {
    nc = await connect({ servers: URL, timeout: 3_000 });
  } catch (e) {
    throw new Error(
      `this test needs nats-server with JetStream (nats-server -js) at ${URL}: ${(e as Error).message}`,
    );
  }
  t = await startTestApp({ config: { natsUrl: URL, natsStream: STREAM } });
  await seedDemo(t.database.db, t.config);
  demo = { 'x-svc-sessionid': await t.sessionFor('demo', 'demo') };
  east = { 'x-svc-sessionid': await t.sessionFor('demo', 'demo-east') };
});
afterAll(async () => {
  await t?.close();
  if (nc) {
    await (await jetstreamManager(nc)).streams.delete(STREAM).catch(() => {});
    await nc.close();
  }
});

async function write(id: string, headers: Record<string, string>) {
  const r = await t.graphql<any>(
    'mutation($input: UpsertAssetsInput!) { upsertAssets(input: $input) { errors { message } } }',
    { input: { profile: 'site', assets: [{ id, properties: { name: id } }] } },
    headers,
  );
  expect(r.body.data.upsertAssets.errors).toEqual([]);
}

interface Message {
  subject: string;
  msgId: string | undefined;
  body: { group: string; cursor: string; kind: string; entityId: string | null; after: unknown };
}

/** Every message of the stream, in its order. */
async function readAll(): Promise<Message[]> {
  const js = jetstream(nc);
  const consumer = await js.consumers.get(STREAM);
  const info = await (await jetstreamManager(nc)).streams.info(STREAM);
  const out: Message[] = [];
  if (info.state.messages === 0) return out;
  const messages = await consumer.fetch({ max_messages: info.state.messages, expires: 5_000 });
  for await (const m of messages) {
    out.push({ subject: m.subject, msgId: m.headers?.get('Nats-Msg-Id'), body: m.json() });
    if (out.length === info.state.messages) break;
  }
  return out;
}

async function until(done: () => Promise<boolean>, what: string) {
  const deadline = Date.now() + 15_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`not yet: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

it('names a subject per group, any group name', () => {
  const prefix = prefixOf('ASSETQL_CHANGES');
  expect(prefix).toBe('assetql.changes');
  for (const group of ['demo', 'demo-east', 'acme.corp', 'a b*>c', 'ümlaut']) {
    const subject = subjectOf(prefix, group);
    expect(subject.slice(prefix.length + 1)).toMatch(/^[A-Za-z0-9_~-]+$/);
    expect(groupOf(prefix, subject)).toBe(group);
  }
});

it("publishes each change once, in the log's order, on its group's subject; a relay that published but did not move on publishes nothing twice", async () => {
  const tag = Math.random().toString(36).slice(2, 8);
  for (let i = 0; i < 30; i++) await write(`NATS-${tag}-${i}`, i % 3 === 0 ? east : demo);
  const ours = (all: Message[]) => all.filter((m) => m.body.entityId?.startsWith(`NATS-${tag}-`));
  await until(async () => ours(await readAll()).length >= 30, 'thirty messages');
  const all = await readAll();
  const mine = ours(all);
  expect(mine).toHaveLength(30);
  for (const m of mine) {
    expect(m.subject).toBe(subjectOf(prefixOf(STREAM), m.body.group));
    expect(m.msgId).toBe(`${m.body.group}:${m.body.cursor}`);
    expect(m.body).toMatchObject({ kind: 'CREATED', after: { properties: { name: m.body.entityId } } });
    const i = Number(m.body.entityId!.split('-').at(-1));
    expect(m.body.group).toBe(i % 3 === 0 ? 'demo-east' : 'demo');
  }
  // Each group's messages in its log's order.
  for (const [group, headers] of [
    ['demo', demo],
    ['demo-east', east],
  ] as const) {
    const log = await t.graphql<any>(
      'query($ids: [ID!]) { changes(order: OLDEST_FIRST, first: 500, filter: { ids: $ids }) { edges { cursor } } }',
      { ids: mine.filter((m) => m.body.group === group).map((m) => m.body.entityId) },
      headers,
    );
    expect(mine.filter((m) => m.body.group === group).map((m) => m.body.cursor)).toEqual(
      log.body.data.changes.edges.map((e: { cursor: string }) => e.cursor),
    );
  }
  // The relay died after publishing the last ten of demo's, before moving on: it publishes them
  // again, and JetStream drops them by their ids.
  const count = all.length;
  const demoMine = mine.filter((m) => m.body.group === 'demo');
  const back = demoMine.at(-10)!;
  const [tx, seq] = JSON.parse(Buffer.from(back.body.cursor, 'base64url').toString()) as [string, string];
  await sql`update change_relay_positions set tx = ${tx}::xid8, seq = ${seq}::bigint - 1 where user_group = 'demo'`.execute(
    t.database.db,
  );
  await write(`NATS-${tag}-after`, demo);
  await until(async () => (await readAll()).length === count + 1, 'the one new message');
  // It did read past them again (it moves on only after JetStream acknowledged them): published
  // twice, kept once.
  const newest = ours(await readAll()).at(-1)!;
  const [ntx, nseq] = JSON.parse(Buffer.from(newest.body.cursor, 'base64url').toString()) as [string, string];
  const { rows } = await sql<{ tx: string; seq: string }>`
    select tx::text as tx, seq::text as seq from change_relay_positions where user_group = 'demo'`.execute(
    t.database.db,
  );
  expect(rows[0]).toEqual({ tx: ntx, seq: nseq });
  const again = ours(await readAll());
  expect(again.map((m) => m.body.entityId)).toEqual([
    ...mine.map((m) => m.body.entityId),
    `NATS-${tag}-after`,
  ]);
});

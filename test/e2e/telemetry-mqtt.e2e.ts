/**
 * Readings in over MQTT (#39, docs/telemetry.md): a Mosquitto of the test's own, configured as the
 * docs say (password file, ACL, nothing dropped for an absent bridge), and `assetql serve` with
 * ASSETQL_MQTT_URL on PostgreSQL. Devices publish with MQTT.js at QoS 1.
 *
 * - Nothing lost: readings published while the server is killed (`kill -9`) and started again
 *   are all stored, each once.
 * - A poisoned message between good ones goes to the dead letter with its reason; the good ones
 *   are stored.
 * - The broker's ACL keeps a device to its group's topics.
 *
 * Needs PostgreSQL (DATABASE_URL or 127.0.0.1:5432, user postgres) and Debian's mosquitto.
 */
import { sql } from 'kysely';
import mqtt from 'mqtt';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';
import { type Broker, startMosquitto } from '../helpers/mosquitto.ts';
import { lastOutput, type Served, serve, serveEnv, stop } from '../helpers/processes.ts';

const SECRET = 'telemetry-mqtt-e2e-secret-0123456789abcdef';
const USERS = { bridge: 'bridge-pass', 'demo-device': 'device-pass', 'east-device': 'east-pass' };
const ACL = `
user bridge
topic read assetql/#
topic write assetql-dead-letter/#
topic read assetql-dead-letter/#

user demo-device
topic write assetql/demo/#

user east-device
topic write assetql/east/#
`;

let database: TestDatabase;
let broker: Broker;
let server: Served | undefined;
let wells: string[] = [];

const env = () =>
  serveEnv(SECRET, {
    DATABASE_URL: database.url!,
    ASSETQL_DEMO_DATA: 'true',
    ASSETQL_MQTT_URL: broker.url('bridge', USERS.bridge),
    ASSETQL_MQTT_CLIENT_ID: 'bridge-e2e',
  });

async function startServer(name: string): Promise<Served> {
  server = await serve(name, [], env(), 60_000);
  return server;
}

beforeAll(async () => {
  process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
  try {
    database = await freshDatabase();
  } catch (e) {
    throw new Error(`this test needs PostgreSQL (DATABASE_URL or 127.0.0.1:5432): ${(e as Error).message}`);
  }
  broker = await startMosquitto(USERS, ACL);
  await startServer('server');
  const { rows } = await sql<{ id: string }>`
    select id from assets where user_group = 'demo' and profile = 'well' order by id`.execute(database.db);
  wells = rows.map((r) => r.id);
}, 120_000);

afterAll(async () => {
  if (server) await stop(server.child);
  await broker?.close();
  await database?.close();
}, 60_000);

async function device(user: keyof typeof USERS) {
  return mqtt.connectAsync(broker.url(user, USERS[user]), {
    protocolVersion: 5,
    clientId: `${user}-${Math.random().toString(36).slice(2, 8)}`,
    reconnectPeriod: 0,
  });
}

/** Readings of `property` stored for the demo wells: `asset/at` to value. */
async function stored(property: string): Promise<Map<string, number>> {
  const { rows } = await sql<{ asset_id: string; at: Date; num: number }>`
    select s.asset_id, r.at, r.num from observation_series s join observation_readings r on r.series = s.id
    where s.user_group = 'demo' and s.profile = 'well' and s.property = ${property}`.execute(database.db);
  return new Map(rows.map((r) => [`${r.asset_id}/${r.at.toISOString()}`, r.num]));
}

async function waitFor(what: string, check: () => Promise<boolean>, ms = 60_000) {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until)
      throw new Error(`${what} did not happen within ${ms} ms\n${server ? lastOutput(server) : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('MQTT ingest', () => {
  it('stores every acknowledged reading exactly once, though the server is killed midway', async () => {
    const client = await device('demo-device');
    const N = 12_000;
    const base = Date.parse('2026-11-28T00:00:00Z');
    const acked = new Map<string, number>();
    const sends: Promise<void>[] = [];
    let killed: Promise<void> | undefined;
    for (let i = 0; i < N; i++) {
      const id = wells[i % wells.length]!;
      const at = new Date(base + i * 1000).toISOString();
      const payload = JSON.stringify({ at, values: { rate: i } });
      sends.push(
        client.publishAsync(`assetql/demo/well/${id}/scada`, payload, { qos: 1 }).then(() => {
          acked.set(`${id}/${at}`, i);
        }),
      );
      // A third of the way in, the server dies; it is started again at two thirds.
      if (i === Math.floor(N / 3)) {
        const s = server!;
        s.child.kill('SIGKILL');
        killed = new Promise((r) => s.child.once('exit', () => r()));
      }
      if (i === Math.floor((2 * N) / 3)) {
        await killed;
        await startServer('server (again)');
      }
      if (i % 500 === 0) await Promise.all(sends.splice(0));
    }
    await Promise.all(sends);
    await client.endAsync();
    expect(acked.size).toBe(N);
    await waitFor('every acknowledged reading stored', async () => (await stored('rate')).size >= N);
    const got = await stored('rate');
    expect(got.size).toBe(N);
    for (const [k, v] of acked) expect(got.get(k), k).toBe(v);
    // Each observation counted once on the dataset, though some were delivered twice.
    const { rows } = await sql<{ n: string }>`
      select observation_count as n from asset_dataset_stats
      where user_group = 'demo' and profile = 'well' and dataset = 'scada'`.execute(database.db);
    expect(Number(rows[0]!.n)).toBeGreaterThanOrEqual(N);
  }, 180_000);

  it('sends a poisoned message to the dead letter with its reason, and stores the good ones around it', async () => {
    const watcher = await device('bridge');
    const dead: { topic: string; body: any }[] = [];
    watcher.on('message', (topic, payload) => dead.push({ topic, body: JSON.parse(String(payload)) }));
    // The bridge's own user may read its dead letters (a second session of it, another client id).
    await watcher.subscribeAsync('assetql-dead-letter/#', { qos: 1 });
    const client = await device('demo-device');
    const [w1, w2] = wells as [string, string];
    const at = (s: number) => new Date(Date.parse('2026-11-28T12:00:00Z') + s * 1000).toISOString();
    const good = (s: number) => JSON.stringify({ at: at(s), values: { poison: s } });
    const messages: [string, string | Buffer][] = [
      [`assetql/demo/well/${w1}/scada`, good(1)],
      [`assetql/demo/well/${w1}/scada`, '{"at": "2026-11-28T12:00:02Z", "values": {'],
      [`assetql/demo/well/${w1}/scada`, good(3)],
      ['assetql/demo/well/no-such-well/scada', good(4)],
      [`assetql/demo/well/${w2}/scada`, JSON.stringify({ at: at(5), values: { depth: 'deep' } })],
      [
        `assetql/demo/well/${w2}/scada`,
        JSON.stringify({ at: at(6), values: { poison: 'x'.repeat(300_000) } }),
      ],
      ['assetql/demo/nope/x/scada', good(7)],
      // PostgreSQL takes no NUL in text: refused before the database, never retried.
      [`assetql/demo/well/${w1}/scada`, JSON.stringify({ at: at(10), values: { poison: 'a\u0000b' } })],
      [
        `assetql/demo/well/${w2}/scada`,
        JSON.stringify([
          { at: at(8), values: { poison: 8 } },
          { at: at(9), values: { poison: 9 } },
        ]),
      ],
    ];
    for (const [topic, payload] of messages) await client.publishAsync(topic, payload, { qos: 1 });
    await client.endAsync();
    await waitFor('six dead letters', async () => dead.length >= 6, 30_000);
    await waitFor('the good readings stored', async () => (await stored('poison')).size >= 4, 30_000);
    expect(
      dead
        .map((d) => [d.topic, d.body.reason])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0])) || String(a[1]).localeCompare(String(b[1]))),
    ).toEqual(
      [
        [`assetql-dead-letter/demo/well/${w1}/scada`, 'bad-json'],
        [`assetql-dead-letter/demo/well/${w1}/scada`, 'bad-input'],
        ['assetql-dead-letter/demo/well/no-such-well/scada', 'unknown-asset'],
        [`assetql-dead-letter/demo/well/${w2}/scada`, 'too-large'],
        [`assetql-dead-letter/demo/well/${w2}/scada`, 'wrong-type'],
        ['assetql-dead-letter/demo/nope/x/scada', 'unknown-profile'],
      ].sort((a, b) => String(a[0]).localeCompare(String(b[0])) || String(a[1]).localeCompare(String(b[1]))),
    );
    // A dead letter carries the message as it came.
    const json = dead.find((d) => d.body.reason === 'bad-json')!;
    expect(Buffer.from(json.body.payload, 'base64').toString()).toBe(messages[1]![1]);
    expect(json.body.topic).toBe(`assetql/demo/well/${w1}/scada`);
    const got = await stored('poison');
    expect([...got.values()].sort((a, b) => a - b)).toEqual([1, 3, 8, 9]);
    await watcher.endAsync();
  }, 60_000);

  it("keeps a device to its group's topics: a reading published into another group is refused by the broker", async () => {
    const client = await device('east-device');
    const w = wells[0]!;
    // MQTT 5: the broker answers a publication the ACL denies with "not authorized" (0x87).
    const refused = await client
      .publishAsync(
        `assetql/demo/well/${w}/scada`,
        JSON.stringify({ at: '2026-11-28T13:00:00Z', values: { intruder: 1 } }),
        {
          qos: 1,
        },
      )
      .then(
        (packet) => (packet as { reasonCode?: number } | undefined)?.reasonCode ?? 0,
        (e: { code?: number }) => e.code ?? -1,
      );
    expect(refused).toBe(0x87);
    await client.endAsync();
    // And a wrong password does not connect at all.
    await expect(
      mqtt.connectAsync(broker.url('demo-device', 'wrong'), { protocolVersion: 5, reconnectPeriod: 0 }),
    ).rejects.toThrow();
    // A good reading of the demo device goes through meanwhile; the intruder's never arrives.
    const ok = await device('demo-device');
    await ok.publishAsync(
      `assetql/demo/well/${w}/scada`,
      JSON.stringify({ at: '2026-11-28T13:00:01Z', values: { intruder: 2 } }),
      {
        qos: 1,
      },
    );
    await ok.endAsync();
    await waitFor('the demo reading stored', async () => (await stored('intruder')).size >= 1, 30_000);
    expect([...(await stored('intruder')).values()]).toEqual([2]);
  }, 60_000);
});

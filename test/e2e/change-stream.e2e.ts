/**
 * Exactly once across failure (#38): a client subscribed to the change stream, while concurrent
 * writers make 10,000 changes through another `assetql serve` on the same PostgreSQL, receives
 * every change exactly once and in cursor order, though the process serving its stream is killed
 * (`kill -9`) midway and the client resumes at a new one by `Last-Event-ID`. In four forms: one
 * `assetql serve`; the distributed form (the gateway is killed, the subgraphs stay); one
 * `assetql serve` with the log relayed to NATS JetStream (`ASSETQL_NATS_URL`); and the `hive-gateway`
 * CLI over the subgraphs (killed, the subgraphs stay), configured as docs/routers.md says.
 *
 * Needs PostgreSQL: DATABASE_URL, or the server at 127.0.0.1:5432 (user postgres), where the test
 * makes a database of its own; and for the NATS form nats-server with JetStream at
 * ASSETQL_TEST_NATS_URL or 127.0.0.1:4222.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBGRAPH_NAMES } from '../../src/config/index.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';
import {
  exited,
  lastOutput,
  ROOT,
  type Served,
  serve,
  serveEnv,
  signInDemo,
  startHiveGateway,
  stop,
} from '../helpers/processes.ts';
import { type SseEvent, SseReader } from '../helpers/sse.ts';

const SECRET = 'change-stream-e2e-secret-0123456789abcdef';
const WRITERS = 4;
const BATCHES = 25;
const PER_BATCH = 100;
const TOTAL = WRITERS * BATCHES * PER_BATCH;

let database: TestDatabase;
const children: Served[] = [];

beforeAll(async () => {
  process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
  try {
    database = await freshDatabase();
  } catch (e) {
    throw new Error(
      `this test needs PostgreSQL (DATABASE_URL or 127.0.0.1:5432, user postgres): ${(e as Error).message}`,
    );
  }
}, 60_000);

afterAll(async () => {
  await Promise.all(children.map((c) => stop(c.child)));
  await database?.close();
}, 60_000);

const NATS_URL = process.env.ASSETQL_TEST_NATS_URL ?? 'nats://127.0.0.1:4222';
// A stream of this run's own: other runs on the same server have groups of the same names.
const NATS_STREAM = `ASSETQL_E2E_${process.pid}_${Math.random().toString(36).slice(2, 8).toUpperCase()}`;

const env = (extra: Record<string, string> = {}) =>
  serveEnv(SECRET, { DATABASE_URL: database.url!, ASSETQL_DEMO_DATA: 'true', ...extra });

async function start(name: string, args: string[] = [], extra: Record<string, string> = {}): Promise<Served> {
  const served = await serve(name, args, env(extra), 60_000);
  children.push(served);
  return served;
}

/** What serves the client's stream, and how a new one is started after a kill. */
interface Form {
  /** Starts whatever stays up across the kill (the distributed form's subgraphs). */
  prepare?(): Promise<void>;
  /** Starts the process the client's stream goes to. */
  streamer(name: string): Promise<Served>;
  /** The writers' server's settings. */
  writerEnv?: Record<string, string>;
  /**
   * Whether each event's SSE `id` is its cursor. Hive Gateway writes no `id`: the client resumes
   * from the last `cursor` it read, by the same header (docs/routers.md).
   */
  sseIds?: false;
}

const ONE_PROCESS: Form = { streamer: (name) => start(name) };

const subgraphUrls: Record<string, string> = {};
const DISTRIBUTED: Form = {
  async prepare() {
    const served = await Promise.all(
      SUBGRAPH_NAMES.map((name) => start(`subgraph ${name}`, ['--subgraph', name])),
    );
    SUBGRAPH_NAMES.forEach((name, i) => {
      subgraphUrls[`ASSETQL_SUBGRAPH_${name.toUpperCase()}_URL`] = served[i]!.url;
    });
  },
  streamer: (name) => start(`gateway (${name})`, ['--gateway'], subgraphUrls),
};

/**
 * The distributed form's subgraphs behind the `hive-gateway` CLI, configured as docs/routers.md
 * says (examples/routers/hive-gateway.config.ts).
 */
let supergraph = '';
const HIVE: Form = {
  async prepare() {
    await DISTRIBUTED.prepare!();
    const args = SUBGRAPH_NAMES.flatMap((n) => [
      '--subgraph-url',
      `${n}=${subgraphUrls[`ASSETQL_SUBGRAPH_${n.toUpperCase()}_URL`]}`,
    ]);
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['src/cli/bin.ts', 'supergraph', ...args],
      {
        cwd: ROOT,
        env: serveEnv(SECRET),
      },
    );
    supergraph = join(
      mkdtempSync(join(tmpdir().length < 40 ? tmpdir() : '/tmp', 'aq-hive-')),
      'supergraph.graphql',
    );
    writeFileSync(supergraph, stdout);
  },
  async streamer(name) {
    const served = await startHiveGateway(`hive-gateway (${name})`, supergraph);
    children.push(served);
    return served;
  },
  sseIds: false,
};

const NATS = { ASSETQL_NATS_URL: NATS_URL, ASSETQL_NATS_STREAM: NATS_STREAM };
const WITH_NATS: Form = {
  async prepare() {
    try {
      const nc = await connect({ servers: NATS_URL, timeout: 3_000 });
      await nc.close();
    } catch (e) {
      throw new Error(
        `this form needs nats-server with JetStream (nats-server -js) at ${NATS_URL}: ${(e as Error).message}`,
      );
    }
  },
  streamer: (name) => start(name, [], NATS),
  writerEnv: NATS,
};

async function open(url: string, session: string, lastEventId?: string): Promise<SseReader> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'text/event-stream',
      'x-svc-sessionid': session,
      ...(lastEventId ? { 'last-event-id': lastEventId } : {}),
    },
    body: JSON.stringify({
      query: 'subscription { changes(filter: { profiles: ["site"], kinds: [CREATED] }) { cursor entityId } }',
    }),
  });
  expect(response.status).toBe(200);
  return new SseReader(response);
}

afterAll(async () => {
  const nc = await connect({ servers: NATS_URL, timeout: 3_000 }).catch(() => undefined);
  if (!nc) return;
  await (await jetstreamManager(nc)).streams.delete(NATS_STREAM).catch(() => {});
  await nc.close();
});

describe.each([
  ['one assetql serve', ONE_PROCESS, 'one'],
  ['the distributed form (its gateway killed)', DISTRIBUTED, 'distributed'],
  ['one assetql serve with NATS JetStream', WITH_NATS, 'nats'],
  ['Hive Gateway (killed) over the subgraphs', HIVE, 'hive'],
] as const)('%s', (_, form, tag) => {
  it(
    `delivers each of ${TOTAL} changes of concurrent writers once, in order, across a kill -9 of the stream's server`,
    () => exactlyOnce(form, tag),
    300_000,
  );
});

/** The scenario through `form`; `tag` keeps its assets apart from the other forms'. */
async function exactlyOnce(form: Form, tag: string): Promise<void> {
  await form.prepare?.();
  const writer = await start('writer', [], form.writerEnv);
  let streamer = await form.streamer('streamer');
  const session = await signInDemo(writer.url);
  expect(session).not.toBe('');

  const got: { cursor: string; entityId: string; id: string | undefined }[] = [];
  let reader = await open(streamer.url, session);
  const writing = Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      for (let b = 0; b < BATCHES; b++) {
        const assets = Array.from({ length: PER_BATCH }, (_, i) => ({
          id: `KILL-${tag}-${w}-${b}-${i}`,
          properties: { name: `Kill ${w} ${b} ${i}` },
        }));
        const r = await fetch(writer.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-svc-sessionid': session },
          body: JSON.stringify({
            query:
              'mutation($input: UpsertAssetsInput!) { upsertAssets(input: $input) { inserted errors { message } } }',
            variables: { input: { profile: 'site', assets } },
          }),
        });
        const body = (await r.json()) as any;
        expect(body.data?.upsertAssets, JSON.stringify(body)).toMatchObject({
          inserted: PER_BATCH,
          errors: [],
        });
      }
    }),
  );

  const read = async (until: number) => {
    while (got.length < until) {
      const e = await reader.next(30_000);
      if (!e) throw new Error(`the stream ended after ${got.length}\n${lastOutput(streamer)}`);
      if (e.event !== 'next') continue;
      expect(e.data.errors, `${JSON.stringify(e.data)}\n${lastOutput(streamer)}`).toBeUndefined();
      got.push({ ...e.data.data.changes, id: e.id });
    }
  };
  await read(TOTAL / 4);
  // The stream's server dies without a word, the writers going on; the client finds another.
  streamer.child.kill('SIGKILL');
  await exited(streamer.child);
  await reader.cancel();
  streamer = await form.streamer('streamer, again');
  const last = got.at(-1)!;
  reader = await open(streamer.url, session, form.sseIds === false ? last.cursor : last.id);
  await read(TOTAL);
  await writing;
  // Nothing of the 10,000 came again after them, and no error. (Whatever else comes is shown.)
  const after: SseEvent[] = [];
  for (
    let e = await reader.next(1_000).catch(() => undefined);
    e;
    e = await reader.next(1_000).catch(() => undefined)
  )
    after.push(e);
  if (after.length) process.stdout.write(`after the ${TOTAL}: ${JSON.stringify(after).slice(0, 2000)}\n`);
  const shown = `${JSON.stringify(after).slice(0, 2000)}\n${lastOutput(streamer)}`;
  expect(
    after.filter((e) => e.data?.errors),
    shown,
  ).toEqual([]);
  const again = after.filter(
    (e) => e.event === 'next' && got.some((g) => g.entityId === e.data?.data?.changes?.entityId),
  );
  expect(again, shown).toEqual([]);
  await reader.cancel();

  if (form.sseIds !== false) expect(got.every((g) => g.id === g.cursor)).toBe(true);
  expect(new Set(got.map((g) => g.entityId)).size).toBe(TOTAL);
  // In cursor order: the log's own order, oldest first.
  const log: string[] = [];
  for (let after: string | null = null; ; ) {
    const r: Response = await fetch(writer.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-svc-sessionid': session },
      body: JSON.stringify({
        query: `query($after: String) { changes(order: OLDEST_FIRST, first: 500, after: $after, filter: { profiles: ["site"], kinds: [CREATED] }) {
          edges { cursor } pageInfo { hasNextPage endCursor } } }`,
        variables: { after },
      }),
    });
    const page: { edges: { cursor: string }[]; pageInfo: { hasNextPage: boolean; endCursor: string } } = (
      (await r.json()) as any
    ).data.changes;
    log.push(...page.edges.map((e: { cursor: string }) => e.cursor));
    if (!page.pageInfo.hasNextPage) break;
    after = page.pageInfo.endCursor;
  }
  const first = log.indexOf(got[0]!.cursor);
  expect(got.map((g) => g.cursor)).toEqual(log.slice(first, first + TOTAL));
  // The next form starts with servers of its own.
  await Promise.all(children.splice(0).map((c) => stop(c.child)));
}

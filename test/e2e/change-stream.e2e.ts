/**
 * Exactly once across failure (#38): a client subscribed to the change stream of one
 * `assetql serve`, while concurrent writers make 10,000 changes through another on the same
 * PostgreSQL, receives every change exactly once and in cursor order, though the process serving
 * its stream is killed (`kill -9`) midway and the client resumes at a new one by `Last-Event-ID`.
 *
 * Needs PostgreSQL: DATABASE_URL, or the server at 127.0.0.1:5432 (user postgres), where the test
 * makes a database of its own.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';
import { exited, lastOutput, type Served, serve, serveEnv, signInDemo, stop } from '../helpers/processes.ts';
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

const env = () => serveEnv(SECRET, { DATABASE_URL: database.url!, ASSETQL_DEMO_DATA: 'true' });

async function start(name: string): Promise<Served> {
  const served = await serve(name, [], env(), 60_000);
  children.push(served);
  return served;
}

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

it(`delivers each of ${TOTAL} changes of concurrent writers once, in order, across a kill -9 of the stream's server`, async () => {
  const writer = await start('writer');
  let streamer = await start('streamer');
  const session = await signInDemo(writer.url);
  expect(session).not.toBe('');

  const got: { cursor: string; entityId: string; id: string | undefined }[] = [];
  let reader = await open(streamer.url, session);
  const writing = Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      for (let b = 0; b < BATCHES; b++) {
        const assets = Array.from({ length: PER_BATCH }, (_, i) => ({
          id: `KILL-${w}-${b}-${i}`,
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
  streamer = await start('streamer, again');
  reader = await open(streamer.url, session, got.at(-1)!.id);
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

  expect(got.every((g) => g.id === g.cursor)).toBe(true);
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
}, 300_000);

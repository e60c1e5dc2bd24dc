/**
 * The three subgraphs on PostgreSQL behind routers that are not ours — the real `hive-gateway`
 * CLI and Apollo Gateway, each configured exactly as docs/routers.md shows (the files in
 * examples/routers/) — answer a signed-in client as our own gateway does, with the session
 * carried by header and by cookie; and one client's guessing does not lock out another.
 *
 * Needs PostgreSQL: DATABASE_URL, or the server at 127.0.0.1:5432 (user postgres), where the test
 * makes a database of its own.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SUBGRAPH_NAMES } from '../../src/config/index.ts';
import { seedDemo } from '../../src/demo/seed.ts';
import { ManualClock } from '../../src/shared/clock.ts';
import { BASE, startTestApp, type TestApp } from '../helpers/app.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';
import {
  freePort,
  lastOutput,
  ROOT,
  type Served,
  serve,
  serveEnv,
  spawnGraphql,
  startHiveGateway,
  stop,
} from '../helpers/processes.ts';
import {
  type Answer,
  type Carrier,
  type Client,
  headersOf,
  keep,
  normalised,
  SCRIPT,
} from '../helpers/session-script.ts';
import { SseReader } from '../helpers/sse.ts';

const SECRET = 'routers-e2e-secret-0123456789abcdefghijkl';
const run = promisify(execFile);
/** Low enough that the burst below is short; the subgraphs' own limit, whatever router is in front. */
const SIGN_IN_LIMIT = 8;

interface Router {
  name: string;
  url: string;
  served: Pick<Served, 'name' | 'child' | 'output'>;
}

const children: Pick<Served, 'name' | 'child' | 'output'>[] = [];
let database: TestDatabase;
let ours: TestApp;
let workDir: string;
const routers: Router[] = [];

const childOutput = () => children.map((c) => lastOutput(c, 15)).join('\n');

/** Spawns `command` and resolves once it answers at `url`; rejects with its output otherwise. */
async function spawnRouter(name: string, command: string[], env: Record<string, string>, url: string) {
  const served = await spawnGraphql(name, command, env, url);
  children.push(served);
  return { name, url, served };
}

beforeAll(async () => {
  // PostgreSQL: the subgraphs are separate processes on one database.
  process.env.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/postgres';
  try {
    database = await freshDatabase();
  } catch (e) {
    throw new Error(
      `this test needs PostgreSQL (DATABASE_URL or 127.0.0.1:5432, user postgres): ${(e as Error).message}`,
    );
  }
  ours = await startTestApp({ database, config: { secret: SECRET }, clock: new ManualClock(Date.now()) });
  await seedDemo(database.db, ours.config);

  // The subgraphs trust two proxies: the load balancer that appends the client's address (this
  // test plays it) and the router that appends the balancer's.
  const env = serveEnv(SECRET, {
    DATABASE_URL: database.url!,
    ASSETQL_TRUST_PROXY: '2',
    ASSETQL_BASE_URL: BASE,
    ASSETQL_RATE_LIMITS: JSON.stringify({ signIn: { points: SIGN_IN_LIMIT, seconds: 300 } }),
  });
  const subgraphs = await Promise.all(
    SUBGRAPH_NAMES.map(async (name) => {
      const served = await serve(`subgraph ${name}`, ['--subgraph', name], env);
      children.push(served);
      return [name, served.url] as const;
    }),
  );

  // The supergraph, as docs/routers.md makes it.
  workDir = mkdtempSync(join(tmpdir().length < 40 ? tmpdir() : '/tmp', 'aq-routers-'));
  const supergraph = join(workDir, 'supergraph.graphql');
  const { stdout } = await run(
    process.execPath,
    ['src/cli/bin.ts', 'supergraph', ...subgraphs.flatMap(([n, u]) => ['--subgraph-url', `${n}=${u}`])],
    { cwd: ROOT, env: serveEnv(SECRET) },
  );
  writeFileSync(supergraph, stdout);

  const routerEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
  const apolloPort = await freePort();
  routers.push(
    ...(await Promise.all([
      startHiveGateway('hive-gateway', supergraph).then((served) => {
        children.push(served);
        return { name: 'hive-gateway', url: served.url, served };
      }),
      spawnRouter(
        'apollo-gateway',
        ['examples/routers/apollo-gateway.ts'],
        { ...routerEnv, SUPERGRAPH: supergraph, PORT: String(apolloPort) },
        `http://127.0.0.1:${apolloPort}/`,
      ),
    ])),
  );
}, 180_000);

afterAll(async () => {
  await Promise.all(children.map((c) => stop(c.child)));
  await ours?.close();
  await database?.close();
  if (workDir) rmSync(workDir, { recursive: true, force: true });
}, 60_000);

async function ask(target: Router | 'ours', client: Client, query: string, variables = {}): Promise<Answer> {
  const init = { method: 'POST', headers: headersOf(client), body: JSON.stringify({ query, variables }) };
  const response =
    target === 'ours'
      ? await ours.handle(new Request(`${BASE}/api/graphql`, init), '127.0.0.1')
      : await fetch(target.url, { ...init, signal: AbortSignal.timeout(20_000) });
  const text = await response.text();
  let body: Answer['body'];
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`not JSON (${response.status}): ${text.slice(0, 300)}\n${childOutput()}`);
  }
  keep(client, response.headers);
  return { headers: response.headers, body };
}

describe.each(['hive-gateway', 'apollo-gateway'])('behind %s', (routerName) => {
  const router = () => routers.find((r) => r.name === routerName)!;

  it.each<Carrier>(['header', 'cookie'])(
    'a scripted session carried by %s answers as through our gateway',
    async (carrier) => {
      // An address of its own per run: the sign-in limit is low here.
      const address = `203.0.113.${routerName.length * 2 + (carrier === 'header' ? 0 : 1)}`;
      const viaRouter: Client = { carrier, session: undefined, address };
      const viaOurs: Client = { carrier, session: undefined, address };
      for (const step of SCRIPT) {
        const theirs = await ask(router(), viaRouter, step.query, step.variables);
        const mine = await ask('ours', viaOurs, step.query, step.variables);
        expect(normalised(theirs.body), `${step.name}\n${childOutput()}`).toEqual(normalised(mine.body));
        expect(theirs.body.errors, step.name).toBeUndefined();
        if (['signIn', 'setSessionUserGroup', 'reauthenticate', 'signOut'].includes(step.name)) {
          // The same session headers as our gateway's, but for the session ID itself.
          const shape = (a: Answer, id: string | undefined) => ({
            header: a.headers.get('x-svc-sessionid') === null ? null : '<id>',
            // Max-Age counts down to the hard expiry: our gateway's clock here is stopped at start.
            cookies: a.headers
              .getSetCookie()
              .map((c) => (id ? c.replace(id, '<id>') : c).replace(/Max-Age=[1-9]\d+/, 'Max-Age=<seconds>')),
          });
          expect(shape(theirs, viaRouter.session), step.name).toEqual(shape(mine, viaOurs.session));
        }
      }
      // The cleared cookie emptied the jar (a header client forgets its ID itself).
      if (carrier === 'cookie') expect(viaRouter.session).toBeUndefined();
    },
  );

  it.runIf(routerName === 'hive-gateway')(
    'carries the change subscription over SSE: live, resumed after a cursor or Last-Event-ID, ended at sign-out',
    async () => {
      const client: Client = { carrier: 'header', session: undefined, address: '203.0.113.90' };
      const signedIn = await ask(router(), client, SCRIPT[0]!.query);
      expect(signedIn.body.errors).toBeUndefined();
      const open = async (extra: Record<string, string> = {}, after?: string) => {
        const response = await fetch(router().url, {
          method: 'POST',
          headers: { ...headersOf(client), accept: 'text/event-stream', ...extra },
          body: JSON.stringify({
            query:
              'subscription($after: String) { changes(after: $after) { cursor kind entityId asset { displayName } } }',
            variables: { after },
          }),
        });
        expect(response.status).toBe(200);
        return new SseReader(response);
      };
      const write = async (id: string) => {
        const r = await ask(
          'ours',
          { carrier: 'header', session: await ours.sessionFor('demo', 'demo'), address: '127.0.0.1' },
          'mutation($input: UpsertAssetsInput!) { upsertAssets(input: $input) { errors { message } } }',
          { input: { profile: 'site', assets: [{ id, properties: { name: id } }] } },
        );
        expect(r.body.errors).toBeUndefined();
      };
      const next = async (reader: SseReader) => {
        const [e] = await reader.take(1);
        expect(e!.data.errors, childOutput()).toBeUndefined();
        return e!.data.data.changes as { cursor: string; entityId: string; asset: { displayName: string } };
      };
      const live = await open();
      // Written by another process (this one) on the same database: the subgraph's process hears
      // of it by the database's notice, well within its 5-s safety read.
      const started = Date.now();
      await write('HIVE-1');
      const first = await next(live);
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(first).toMatchObject({ entityId: 'HIVE-1', asset: { displayName: 'HIVE-1' } });
      await live.cancel();
      await write('HIVE-2');
      await write('HIVE-3');
      const byHeader = await open({ 'last-event-id': first.cursor });
      expect((await next(byHeader)).entityId).toBe('HIVE-2');
      await byHeader.cancel();
      const byArgument = await open({}, first.cursor);
      expect((await next(byArgument)).entityId).toBe('HIVE-2');
      expect((await next(byArgument)).entityId).toBe('HIVE-3');
      await ask(router(), client, 'mutation { signOut { errors { type } } }');
      const end = await byArgument.next(2_000);
      expect(end!.data.errors[0].extensions.code).toBe('SESSION_ENDED');
      await byArgument.cancel();
    },
  );

  it('one address guessing passwords does not lock out another', async () => {
    const stranger: Client = {
      carrier: 'header',
      session: undefined,
      address: `198.51.100.${routerName.length}`,
    };
    const burst = await Promise.all(
      Array.from({ length: SIGN_IN_LIMIT + 4 }, (_, i) =>
        ask(
          router(),
          stranger,
          `mutation { signIn(input: { loginUsername: "stranger-${routerName}-${i}", password: "nope", clientApplicationType: EXPLORER }) { errors { type } } }`,
        ),
      ),
    );
    const types = burst.map((a) => a.body.data?.signIn.errors[0]?.type);
    expect(
      types.filter((t) => t === 'LIMIT_EXCEEDED'),
      childOutput(),
    ).toHaveLength(4);
    const neighbour: Client = { carrier: 'cookie', session: undefined, address: '198.51.100.200' };
    const signedIn = await ask(router(), neighbour, SCRIPT[0]!.query);
    expect(signedIn.body.data.signIn.session).toMatchObject({ authenticated: true, username: 'demo' });
    expect(neighbour.session).toBeTruthy();
    // The stranger stays limited, with the right password too.
    const stillLimited = await ask(router(), { ...stranger }, SCRIPT[0]!.query);
    expect(stillLimited.body.data.signIn.errors[0].type).toBe('LIMIT_EXCEEDED');
  });

  // The subgraphs enforce the document limits themselves: a document over the depth (20), alias
  // (30) or cost limit is refused through any router as our gateway refuses it, before any
  // resolver runs.
  const overLimits: [limit: string, query: string, variables: Record<string, unknown>][] = [
    [
      'depth',
      `{ assets(profile: "equipment") { all(first: 1) { edges { node { ${Array.from({
        length: 12,
      }).reduce<string>(
        (inner) =>
          `id related(relationship: "facility") { ... on AssetRelationshipOne { asset { ${inner} } } }`,
        'id',
      )} } } } } }`,
      {},
    ],
    [
      'aliases',
      `{ assets(profile: "well") { ${Array.from({ length: 31 }, (_, i) => `a${i}: byId(id: "W-${i}") { id }`).join(' ')} } }`,
      {},
    ],
    [
      'cost',
      `query($n: Int) { assets(profile: "facility") { all(first: $n) { edges { node { id
        related(relationship: "wells") { ... on AssetRelationshipMany { assets { id
          related(relationship: "equipment") { ... on AssetRelationshipMany { assets { id
            related(relationship: "sensors") { ... on AssetRelationshipMany { assets { id } } } } } } } } } } } } } }`,
      { n: 100 },
    ],
  ];
  it.each(overLimits)(
    'refuses a document over the %s limit, as our gateway does',
    async (_limit, query, variables) => {
      const client: Client = { carrier: 'header', session: undefined, address: '203.0.113.90' };
      const mine = await ask('ours', { ...client }, query, variables);
      const theirs = await ask(router(), { ...client }, query, variables);
      expect(mine.body.errors?.[0]?.extensions?.code).toBeTruthy();
      // A router answers a refused subgraph fetch with its root field null: nothing was resolved.
      expect(Object.values(theirs.body.data ?? {}).every((v) => v === null)).toBe(true);
      expect(theirs.body.errors?.[0]?.extensions?.code).toBe(mine.body.errors?.[0]?.extensions?.code);
    },
  );
});

import { type Config, loadConfig, SUBGRAPH_NAMES } from '../../src/config/index.ts';
import { type App, createApp, type Role } from '../../src/server/app.ts';
import { type Listening, listen } from '../../src/server/listen.ts';
import { type Clock, ManualClock } from '../../src/shared/clock.ts';
import { createLogger, type Logger } from '../../src/shared/logger.ts';
import type { Metrics } from '../../src/shared/metrics.ts';
import type { AuthLimits } from '../../src/subgraphs/auth/limits.ts';
import { addGroups, findUser, insertUser } from '../../src/subgraphs/auth/repository/users.ts';
import { openSession } from '../../src/subgraphs/auth/sessions.ts';
import { freshDatabase, type TestDatabase } from './database.ts';

export interface GraphQLResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: {
    data?: T | null;
    errors?: { message: string; extensions?: Record<string, unknown>; locations?: unknown }[];
  };
}

export interface TestApp {
  config: Config;
  database: TestDatabase;
  clock: ManualClock;
  /** Serves a request as if it came from `remoteAddress` (the TCP peer) @default none */
  handle(request: Request, remoteAddress?: string): Promise<Response>;
  /** Takes an HTTP upgrade (GraphQL over WebSocket), for a test that serves the app on a port. */
  upgrade: App['upgrade'];
  /** POSTs a GraphQL document to /api/graphql in-process. */
  graphql<T = Record<string, unknown>>(
    query: string,
    variables?: Record<string, unknown>,
    headers?: Record<string, string>,
  ): Promise<GraphQLResponse<T>>;
  /**
   * A signed-in session opened by the code sign-in opens it with, for tests of everything that
   * is not sign-in itself. Returns the session ID to send in `x-svc-sessionid`.
   */
  sessionFor(username: string, userGroup: string, options?: { clientType?: string }): Promise<string>;
  close(): Promise<void>;
}

export const BASE = 'http://localhost:4000';

/** Makes `username` (without a password) a member of `userGroup`, as `assetql users add` would. */
export async function ensureMember(
  database: TestDatabase,
  username: string,
  userGroup: string,
): Promise<void> {
  if (!(await findUser(database.db, username))) await insertUser(database.db, { username });
  await addGroups(database.db, username, [userGroup]);
}

export async function startTestApp(
  options: {
    role?: Role;
    config?: Record<string, unknown>;
    database?: TestDatabase;
    clock?: ManualClock;
    authLimits?: AuthLimits;
    /** Where the app logs @default silent (TEST_LOG_LEVEL to see it) */
    log?: Logger;
    /** Where the app's metrics go @default off */
    metrics?: Metrics;
  } = {},
): Promise<TestApp> {
  const database = options.database ?? (await freshDatabase());
  const clock = options.clock ?? new ManualClock(new Date('2026-11-22T12:00:00Z'));
  const config = loadConfig({ logLevel: 'silent', env: 'demo', demoData: false, ...options.config }, {});
  const app = await createApp(config, options.role ?? { kind: 'single' }, {
    database,
    clock: clock as Clock,
    log: options.log ?? createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
    migrate: false,
    authLimits: options.authLimits,
    metrics: options.metrics,
  });
  const handle = (request: Request, remoteAddress?: string) => app.handle(request, remoteAddress);
  return {
    config,
    database,
    clock,
    handle,
    upgrade: (request, socket, head) => app.upgrade(request, socket, head),
    async graphql(query, variables, headers = {}) {
      const response = await handle(
        new Request(`${BASE}/api/graphql`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/graphql-response+json',
            ...headers,
          },
          body: JSON.stringify({ query, variables }),
        }),
      );
      return { status: response.status, headers: response.headers, body: await response.json() };
    },
    async sessionFor(username, userGroup, o = {}) {
      await ensureMember(database, username, userGroup);
      const session = await openSession(database.db, clock.now(), {
        kind: 'session',
        username,
        group: userGroup,
        clientType: o.clientType ?? 'EXPLORER',
      });
      return session.id;
    },
    async close() {
      await app.close();
      if (!options.database) await database.close();
    },
  };
}

export interface DemoApp {
  app: TestApp;
  /** Headers of a signed-in demo user acting in group `demo`, and in `demo-east`. */
  demo: Record<string, string>;
  east: Record<string, string>;
}

/** A test app with the demo tenant loaded and sessions for both demo groups. */
export async function startDemoApp(): Promise<DemoApp> {
  const { seedDemo } = await import('../../src/demo/seed.ts');
  const app = await startTestApp();
  await seedDemo(app.database.db, app.config);
  return {
    app,
    demo: { 'x-svc-sessionid': await app.sessionFor('demo', 'demo') },
    east: { 'x-svc-sessionid': await app.sessionFor('demo', 'demo-east') },
  };
}

/** The distributed form's subgraphs, each an app of its own served over HTTP on a free port. */
export interface ServedSubgraphs {
  /** Each subgraph's GraphQL URL, by name: what a gateway's `subgraphUrls` takes. */
  urls: Record<string, string>;
  close(): Promise<void>;
}

export async function serveSubgraphs(options: {
  database: TestDatabase;
  config?: Record<string, unknown>;
  metrics?: Metrics;
}): Promise<ServedSubgraphs> {
  const served: { app: TestApp; server: Listening }[] = [];
  const urls: Record<string, string> = {};
  for (const name of SUBGRAPH_NAMES) {
    const app = await startTestApp({
      database: options.database,
      role: { kind: 'subgraph', name },
      config: options.config,
      metrics: options.metrics,
    });
    const server = await listen((request, address) => app.handle(request, address), 0, '127.0.0.1');
    served.push({ app, server });
    urls[name] = `${server.url}/graphql`;
  }
  return {
    urls,
    async close() {
      for (const { app, server } of served) {
        await server.close(100);
        await app.close();
      }
    },
  };
}

/** What a client sees of an answer, for comparing two servers' answers to the same request. */
export interface Sent {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** {@link Sent} of `response`; the correlation id and the date differ between any two answers. */
export async function sent(response: Response): Promise<Sent> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    if (key !== 'x-request-id' && key !== 'date') headers[key] = value;
  });
  return { status: response.status, headers, body: await response.text() };
}

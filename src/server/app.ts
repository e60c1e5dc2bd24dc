import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { sql } from 'kysely';
import { type Config, SUBGRAPH_NAMES, type SubgraphName } from '../config/index.ts';
import { type SubgraphDefinition, supergraphOf } from '../gateway/composition.ts';
import { createGateway, type InProcessFetch } from '../gateway/gateway.ts';
import { graphqlOverWebSocket } from '../gateway/websocket.ts';
import { activeTracing } from '../observability/active.ts';
import { type Clock, systemClock } from '../shared/clock.ts';
import { IdentitySigner } from '../shared/identity.ts';
import { createLogger, type Logger } from '../shared/logger.ts';
import { type Metrics, NO_METRICS } from '../shared/metrics.ts';
import { deriveKey } from '../shared/secrets.ts';
import type { Subgraph } from '../shared/subgraph.ts';
import type { SubgraphDescriptor } from '../shared/subgraph-descriptor.ts';
import { ChangeNotices } from '../storage/change-notices.ts';
import { type Database, openDatabase } from '../storage/database.ts';
import { migrateToLatest } from '../storage/migrate.ts';
import { loadTrustedDocuments } from '../storage/trusted-documents.ts';
import { assetsDescriptor } from '../subgraphs/assets/descriptor.ts';
import { assetsTypeDefs, createAssetsSubgraph } from '../subgraphs/assets/index.ts';
import { PROFILE_TABLES, ProfileCache, watchProfileChanges } from '../subgraphs/assets/profiles/cache.ts';
import { startTelemetryJobs } from '../subgraphs/assets/telemetry/jobs.ts';
import { stsCredentialsProvider } from '../subgraphs/auth/credentials/sts.ts';
import { authDescriptor } from '../subgraphs/auth/descriptor.ts';
import {
  authTypeDefs,
  createAccountStanding,
  createAuthSubgraph,
  createSessionResolution,
} from '../subgraphs/auth/index.ts';
import { type AuthLimits, DEFAULT_LIMITS } from '../subgraphs/auth/limits.ts';
import { configuredMessenger } from '../subgraphs/auth/messaging/configured.ts';
import { eventsDescriptor } from '../subgraphs/events/descriptor.ts';
import { ChangeFeed } from '../subgraphs/events/feed.ts';
import { createEventsSubgraph, eventsTypeDefs } from '../subgraphs/events/index.ts';
import { NatsRelay } from '../subgraphs/events/relay.ts';
import { ChangeRetention } from '../subgraphs/events/retention.ts';
import { WebhookDispatcher } from '../subgraphs/events/webhooks/dispatcher.ts';
import { issuesDescriptor } from '../subgraphs/issues/descriptor.ts';
import { createIssuesSubgraph, issuesTypeDefs } from '../subgraphs/issues/index.ts';

/** What one process serves: everything, one subgraph, or the gateway alone. */
export type Role = { kind: 'single' } | { kind: 'subgraph'; name: SubgraphName } | { kind: 'gateway' };

export const TYPE_DEFS: Readonly<Record<SubgraphName, string>> = {
  assets: assetsTypeDefs,
  auth: authTypeDefs,
  issues: issuesTypeDefs,
  events: eventsTypeDefs,
};

/** What each subgraph declares to the gateway (routes, capabilities), wherever it runs. */
export const DESCRIPTORS: Readonly<Record<SubgraphName, SubgraphDescriptor>> = {
  assets: assetsDescriptor,
  auth: authDescriptor,
  issues: issuesDescriptor,
  events: eventsDescriptor,
};

/** Where single-process subgraphs live: never resolved on a network, only matched by origin. */
export const inProcessUrl = (name: SubgraphName) => `http://${name}.subgraph.assetql.internal/graphql`;

export interface AppOptions {
  clock?: Clock;
  log?: Logger;
  /** An open database to use (tests); otherwise one is opened from the configuration. */
  database?: Database;
  /** Apply pending migrations at start @default true */
  migrate?: boolean;
  /** Per-address limits on sign-in and friends (tests lower them). */
  authLimits?: AuthLimits;
  /** Where the process's metrics go (src/observability/prometheus.ts) @default off */
  metrics?: Metrics;
}

export interface App {
  readonly config: Config;
  readonly database: Database;
  readonly log: Logger;
  readonly supergraphSdl: string | undefined;
  handle(request: Request, remoteAddress?: string): Promise<Response>;
  /**
   * Takes an HTTP upgrade (GraphQL over WebSocket at the gateway's GraphQL path); false when it
   * is not one this process serves. Only a gateway serves one.
   */
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /**
   * Ends what would hold a stopping server open: live streams (their last event says
   * SHUTTING_DOWN, and clients resume elsewhere) and WebSockets. Requests still run.
   */
  drain(): Promise<void>;
  close(): Promise<void>;
}

export function databaseTarget(c: Config) {
  if (!c.databaseUrl) return { dataDir: c.dataDir };
  return { url: c.databaseUrl, sessionUrl: c.databaseSessionUrl, readUrls: c.databaseReadUrls };
}

/** Builds the process's fetch handler for its role, with its database migrated. */
export async function createApp(config: Config, role: Role, options: AppOptions = {}): Promise<App> {
  const log = options.log ?? createLogger(config.logLevel);
  const clock = options.clock ?? systemClock;
  const database =
    options.database ??
    (await openDatabase(databaseTarget(config), {
      statementTimeoutMs: config.statementTimeoutMs,
      maxConnections: config.databasePoolSize,
      preparedStatements: config.databasePreparedStatements,
    }));
  const ownsDatabase = options.database === undefined;
  try {
    if (options.migrate !== false) await migrateToLatest(database.db);
  } catch (e) {
    if (ownsDatabase) await database.close();
    throw e;
  }
  const signer = new IdentitySigner(config.secret);
  // One session resolution (auth's rules and cache) for the gateway and every subgraph: a
  // subgraph uses it for requests another router forwards without our signed identity.
  const metrics = options.metrics;
  const tracing = activeTracing();
  // What the process keeps between requests (sessions; profiles where assets are served) is kept
  // for as long as it hears the database's change notices: PostgreSQL only (embedded PGlite
  // does not pass notices between connections), on one connection of the process's own.
  const notices =
    database.engine === 'postgres'
      ? new ChangeNotices(database.pool, log, { session: database.session })
      : undefined;
  const sessions = createSessionResolution({
    db: database.db,
    clock,
    metrics,
    notices,
    writes: database.writes,
  });
  const forwarded = { sessions, trustedHops: config.trustProxy };
  const deps = {
    db: database.db,
    signer,
    log,
    clock,
    forwarded,
    metrics,
    requestLimits: {
      documentLimits: config.documentLimits,
      introspection: config.introspection,
      maxStringLength: config.maxStringLength,
    },
    preparedOperations: config.preparedOperations,
    plannedQueries: config.plannedQueries,
  };

  const closers: (() => void | Promise<void>)[] = [];
  /** What ends long-lived streams when the process stops (App.drain), before requests drain. */
  const drainers: (() => void | Promise<void>)[] = [];
  /** What must be settled before the app serves (each resolves, never rejects). */
  const starting: Promise<void>[] = [];
  /** What must have started before the app serves: a failure fails the start. */
  const required: Promise<void>[] = [];

  const makeMessenger = () => {
    const messenger = configuredMessenger(config, database.db);
    closers.push(() => messenger.close());
    return messenger;
  };

  const makeCredentials = () => {
    if (!config.storageCredentials) return undefined;
    const sts = stsCredentialsProvider(config.storageCredentials);
    closers.push(() => sts.destroy());
    return sts;
  };

  const makeSubgraph = (name: SubgraphName) => {
    switch (name) {
      case 'assets': {
        // Profile definitions kept between requests while this process hears of their changes.
        const profiles = new ProfileCache();
        // This process's own profile changes, whatever code makes them, are forgotten at once.
        closers.push(database.writes.watch(PROFILE_TABLES, () => profiles.invalidate()));
        if (notices) closers.push(watchProfileChanges(notices, profiles));
        // Readings past their retention pruned; with ASSETQL_MQTT_URL, the MQTT bridge.
        closers.push(
          startTelemetryJobs({ settings: config, database, clock, log, metrics: deps.metrics ?? NO_METRICS }),
        );
        return createAssetsSubgraph({
          ...deps,
          database,
          profiles,
          observationRetentionDays: config.observationRetentionDays,
          // Subgraphs never import each other: auth's standing rule is handed over here.
          standing: createAccountStanding({ db: database.db }),
          exports: {
            baseUrl: config.baseUrl,
            key: deriveKey(config.secret, 'exports'),
            limits: config.exportLimits,
          },
        });
      }
      case 'auth':
        return createAuthSubgraph({
          ...deps,
          pool: database.pool,
          limits: options.authLimits ?? { ...DEFAULT_LIMITS, ...config.rateLimits },
          secret: config.secret,
          baseUrl: config.baseUrl,
          messenger: makeMessenger(),
          credentials: makeCredentials(),
          oidcIssuers: config.oidcIssuers,
          devices: {
            remember: config.rememberDevices,
            maxAgeMs: config.rememberDevicesDays * 24 * 60 * 60 * 1000,
          },
          settings: {
            loginEnabled: config.loginEnabled,
            ssoEnabled: config.oidcIssuers.length > 0,
            ssoUrl: config.ssoUrl ?? null,
          },
        });
      case 'issues':
        return createIssuesSubgraph(deps);
      case 'events': {
        const retention = new ChangeRetention({
          db: database.db,
          clock,
          log,
          days: config.changeRetentionDays,
        });
        closers.push(() => retention.close());
        // Live streams of the log: read as notices say it grew, or as this process writes.
        const feed = new ChangeFeed({
          db: database.db,
          log,
          standing: (identity) => sessions.standing(identity),
          notices,
          writes: database.writes,
        });
        drainers.push(() => feed.close());
        closers.push(() => feed.close());
        // The log delivered to webhooks (webhooks/dispatcher.ts).
        const key = deriveKey(config.secret, 'webhooks');
        const dispatcher = new WebhookDispatcher({
          db: database.db,
          standing: createAccountStanding({ db: database.db }),
          log,
          settings: config.webhooks,
          key,
          notices,
          writes: database.writes,
        });
        closers.push(() => dispatcher.close());
        if (config.natsUrl) {
          const relay = new NatsRelay({
            db: database.db,
            log,
            url: config.natsUrl,
            stream: config.natsStream,
            notices,
            writes: database.writes,
            heard: (group) => feed.heard(group),
          });
          required.push(
            relay.start().catch((e: Error) => {
              throw new Error(
                `ASSETQL_NATS_URL: cannot relay the change log to NATS JetStream (${e.message})`,
              );
            }),
          );
          closers.push(() => relay.close());
        }
        return createEventsSubgraph({
          ...deps,
          feed,
          webhooks: { settings: config.webhooks, key, wake: () => dispatcher.wake() },
        });
      }
    }
  };

  const dbReady = async () => {
    await sql`select 1`.execute(database.db);
    return true;
  };

  let handle: (request: Request, remoteAddress?: string) => Promise<Response>;
  let supergraphSdl: string | undefined;
  let upgrade: App['upgrade'] = () => false;
  let closeRole = async () => {};

  if (role.kind === 'subgraph') {
    const yoga = makeSubgraph(role.name);
    handle = async (request, remoteAddress) => {
      const { pathname } = new URL(request.url);
      if (pathname === '/readyz') {
        const ok = await dbReady().catch(() => false);
        return Response.json({ status: ok ? 'ready' : 'unavailable' }, { status: ok ? 200 : 503 });
      }
      return yoga.handle(request, remoteAddress);
    };
  } else {
    const inProcess = new Map<string, InProcessFetch>();
    const local: Subgraph[] = [];
    const subgraphs: SubgraphDefinition[] = SUBGRAPH_NAMES.map((name) => {
      if (role.kind === 'single') {
        const subgraph: Subgraph = makeSubgraph(name);
        const url = inProcessUrl(name);
        inProcess.set(new URL(url).origin, (input, init) => subgraph.fetch(input as URL, init ?? {}));
        local.push(subgraph);
        return { ...DESCRIPTORS[name], typeDefs: TYPE_DEFS[name], url };
      }
      const url = config.subgraphUrls[name];
      if (!url) throw new Error(`the gateway needs ASSETQL_SUBGRAPH_${name.toUpperCase()}_URL`);
      return { ...DESCRIPTORS[name], typeDefs: TYPE_DEFS[name], url };
    });
    const subgraphReady = async () => {
      if (role.kind === 'single') return true;
      const answers = await Promise.all(
        subgraphs.map((s) =>
          fetch(new URL('/readyz', s.url), { signal: AbortSignal.timeout(2000) })
            .then((r) => r.ok)
            .catch(() => false),
        ),
      );
      return answers.every(Boolean);
    };
    const gateway = createGateway({
      config,
      supergraphSdl: await supergraphOf(subgraphs),
      subgraphs,
      inProcess,
      local,
      sessions,
      signer,
      log,
      ready: async () => (await dbReady()) && (await subgraphReady()),
      metrics,
      tracing,
      trustedDocuments: await loadTrustedDocuments(database.db, log),
    });
    required.push(gateway.prepare()); // docs/security.md#trusted-documents
    handle = gateway.handle;
    supergraphSdl = gateway.supergraphSdl;
    // GraphQL over WebSocket: each operation through the same HTTP pipeline (gateway/websocket.ts).
    const sockets = graphqlOverWebSocket({
      handle: gateway.handle,
      origins: config.corsOrigins,
      maxMessageBytes: config.documentLimits.maxBodyBytes,
      maxTokens: config.documentLimits.maxTokens,
    });
    upgrade = sockets.upgrade;
    drainers.push(() => sockets.close());
    closeRole = async () => {
      await sockets.close();
      await gateway.close();
    };
  }

  // A subgraph process continues the gateway's trace (the gateway's runtime does its own).
  if (tracing && role.kind === 'subgraph') handle = tracing.traceRequests(handle, role.name);

  // Listening starts once every subscriber is known, and the process serves once it has tried.
  if (notices) {
    starting.push(notices.start());
    closers.push(() => notices.close());
  }
  await Promise.all(starting);
  try {
    await Promise.all(required);
  } catch (e) {
    await closeRole();
    for (const close of closers) await close();
    if (ownsDatabase) await database.close();
    throw e;
  }
  let closing: Promise<void> | undefined;
  return {
    config,
    database,
    log,
    supergraphSdl,
    handle,
    upgrade: (request, socket, head) => upgrade(request, socket, head),
    async drain() {
      for (const drain of drainers) await drain();
    },
    close() {
      closing ??= (async () => {
        await closeRole();
        for (const close of closers) await close();
        if (ownsDatabase) await database.close();
      })();
      return closing;
    },
  };
}

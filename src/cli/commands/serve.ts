import {
  ConfigError,
  loadConfig,
  SUBGRAPH_NAMES,
  type SubgraphName,
  withDemoSecret,
} from '../../config/index.ts';
import { DEMO_PASSWORD, DEMO_USER, seedDemo } from '../../demo/seed.ts';
import { activeTracing } from '../../observability/active.ts';
import type { MetricsServer, PrometheusMetrics } from '../../observability/prometheus.ts';
import { type App, createApp, databaseTarget, type Role } from '../../server/app.ts';
import { AtRest } from '../../server/at-rest.ts';
import {
  holdMetricsPort,
  holdPort,
  inDataDir,
  prepareDataDir,
  reachDatabase,
  StartError,
} from '../../server/start-checks.ts';
import type { DataDirOwner } from '../../storage/data-dir.ts';
import { type Database, openDatabase } from '../../storage/database.ts';
import { UsageError } from '../errors.ts';

export interface ServeOptions {
  subgraph?: SubgraphName;
  gateway?: boolean;
  port?: string;
  host?: string;
}

/** `assetql serve`: runs until SIGTERM or SIGINT, then drains in-flight requests and exits. */
export async function serveCommand(options: ServeOptions): Promise<void> {
  if (options.subgraph && options.gateway) throw new UsageError('choose --subgraph or --gateway, not both');
  const given = loadConfig({ port: options.port, host: options.host });
  const role: Role = options.subgraph
    ? { kind: 'subgraph', name: options.subgraph }
    : options.gateway
      ? { kind: 'gateway' }
      : { kind: 'single' };
  if (role.kind === 'gateway') {
    const missing = SUBGRAPH_NAMES.filter((name) => !given.subgraphUrls[name]);
    if (missing.length)
      throw new ConfigError(
        `invalid configuration: serve --gateway needs ${missing.map((n) => `ASSETQL_SUBGRAPH_${n.toUpperCase()}_URL`).join(', ')}`,
      );
  }
  const before = new Set([...process.listeners('SIGTERM'), ...process.listeners('SIGINT')]);
  // The port first, held from now on: a busy one fails the start before anything is written.
  const server = await holdPort(given.port, given.host);
  // This command owns the database rather than the app, so that a start that fails anywhere
  // (migrations, the app, the demo data) closes it: its pool's idle connections, or the embedded
  // database's socket server, would otherwise keep the failed process alive ~30 s.
  let database: Database | undefined;
  let app: App | undefined;
  let metricsServer: MetricsServer | undefined;
  let undoDataDir = () => {};
  // What the start and each burst of requests grew is given back when the process rests.
  const rest = new AtRest();
  // A process attached to another's embedded database has nothing to answer with once that
  // process is gone: it stops (its supervisor starts it again, as the owner then).
  const ownerGone = new AbortController();
  try {
    // Metrics only when asked for (off, prom-client is not even loaded), their port held as early.
    let metrics: PrometheusMetrics | undefined;
    const { metricsPort, metricsHost } = given;
    if (metricsPort !== undefined) {
      const prometheus = await import('../../observability/prometheus.ts');
      const registered = prometheus.createPrometheusMetrics({ maxOperations: given.metricsMaxOperations });
      metrics = registered;
      metricsServer = await holdMetricsPort(metricsPort, metricsHost, () =>
        prometheus.serveMetrics(registered.registry, metricsPort, metricsHost),
      );
    }
    const dbOptions = {
      statementTimeoutMs: given.statementTimeoutMs,
      maxConnections: given.databasePoolSize,
      preparedStatements: given.databasePreparedStatements,
      // The whole service does not attach to another server's data: two of them on one data dir
      // is a mistake. It does attach to a command's (an import, a migration), as others do.
      attach: (owner: DataDirOwner) => role.kind !== 'single' || owner.command !== 'assetql serve',
      onOwnerGone: (owner: { pid: number }) => ownerGone.abort(owner.pid),
    };
    // The database a URL names is reached before the data dir is touched.
    if (given.databaseUrl) {
      database = await openDatabase(databaseTarget(given), dbOptions);
      await reachDatabase(database, given.databaseUrl);
    }
    // The data dir is used for the embedded database and, in demo, for the secret it keeps.
    if (!given.databaseUrl || (given.ephemeralSecret && given.env === 'demo'))
      undoDataDir = prepareDataDir(given.dataDir);
    const config = await inDataDir(given.dataDir, () => withDemoSecret(given));
    database ??= await inDataDir(given.dataDir, () => openDatabase(databaseTarget(config), dbOptions));
    metrics?.observePool(database.pool, database.pool.options.max ?? config.databasePoolSize);
    app = await createApp(config, role, { database, metrics });
    // The gateway runtime (Hive, through @whatwg-node/server) disposes itself on SIGTERM and
    // SIGINT, which aborts operations still running with SHUTTING_DOWN. This process drains
    // first and disposes after (below), so those handlers are taken off.
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      for (const l of process.listeners(signal)) if (!before.has(l)) process.off(signal, l);
    }
    if (config.ephemeralSecret && role.kind !== 'single') {
      app.log.warn(
        'ASSETQL_SECRET is not set: this process made its own, so other processes cannot verify it',
      );
    }
    if (config.demoData && role.kind !== 'gateway') {
      const seeded = await seedDemo(database.db, app.config);
      if (seeded) app.log.info('loaded the demo tenant');
    }
    if (ownerGone.signal.aborted) throw new StartError(ownerGoneMessage(config.dataDir, ownerGone.signal));
    const served = app;
    server.serve((request, remoteAddress) => {
      rest.touch();
      return served.handle(request, remoteAddress);
    });
    server.upgrades((request, socket, head) => {
      rest.touch();
      return served.upgrade(request, socket, head);
    });
  } catch (e) {
    await server.close(0);
    await app?.close();
    await metricsServer?.close();
    await database?.close();
    undoDataDir();
    throw e;
  }
  const { log } = app;
  const what = role.kind === 'subgraph' ? `subgraph ${role.name}` : role.kind;
  log.info(
    { url: server.url, env: app.config.env, engine: app.database.engine, role: what },
    `assetql ${what} listening`,
  );
  rest.start();
  // Before the listening line, which tells whoever waits for it that everything is up.
  if (metricsServer) process.stdout.write(`assetql metrics at ${metricsServer.url}\n`);
  if (role.kind === 'single' && app.config.env === 'demo' && app.config.demoData)
    process.stdout.write(`demo tenant loaded: sign in as ${DEMO_USER} with password ${DEMO_PASSWORD}\n`);
  process.stdout.write(
    role.kind === 'subgraph'
      ? `assetql subgraph ${role.name} at ${server.url}/graphql\n`
      : `assetql at ${server.url}/api/graphql — explorer at ${server.url}/plugins/sr/apolloGraphql\n`,
  );

  await new Promise<void>((resolve) => {
    const stop = async (signal: string) => {
      if (signal === 'owner gone') {
        log.error(ownerGoneMessage(app.config.dataDir, ownerGone.signal));
        process.exitCode = 1;
      } else log.info({ signal }, 'shutting down');
      rest.stop();
      // Live streams end first (SHUTTING_DOWN, resumable elsewhere): they would hold the drain.
      await app.drain();
      await server.close(10_000);
      await app.close();
      await metricsServer?.close();
      await database.close();
      // The spans of the last requests go out before the process ends.
      await activeTracing()
        ?.shutdown()
        .catch(() => {});
      resolve();
    };
    ownerGone.signal.addEventListener('abort', () => void stop('owner gone'), { once: true });
    process.once('SIGTERM', () => void stop('SIGTERM'));
    process.once('SIGINT', () => void stop('SIGINT'));
  });
}

/** Why a process attached to another's embedded database stops. */
function ownerGoneMessage(dataDir: string, signal: AbortSignal): string {
  return (
    `the process ${String(signal.reason)} that owned DATA_DIR ${dataDir} stopped, and its database with it: ` +
    'this process stops too; start it again to serve the data itself'
  );
}

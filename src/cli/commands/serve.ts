import {
  ConfigError,
  loadConfig,
  SUBGRAPH_NAMES,
  type SubgraphName,
  withDemoSecret,
} from '../../config/index.ts';
import { seedDemo } from '../../demo/seed.ts';
import { activeTracing } from '../../observability/active.ts';
import type { MetricsServer, PrometheusMetrics } from '../../observability/prometheus.ts';
import { type App, createApp, databaseTarget, type Role } from '../../server/app.ts';
import { type Listening, listen } from '../../server/listen.ts';
import { openDatabase } from '../../storage/database.ts';
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
  const config = withDemoSecret(loadConfig({ port: options.port, host: options.host }));
  const role: Role = options.subgraph
    ? { kind: 'subgraph', name: options.subgraph }
    : options.gateway
      ? { kind: 'gateway' }
      : { kind: 'single' };
  if (role.kind === 'gateway') {
    const missing = SUBGRAPH_NAMES.filter((name) => !config.subgraphUrls[name]);
    if (missing.length)
      throw new ConfigError(
        `invalid configuration: serve --gateway needs ${missing.map((n) => `ASSETQL_SUBGRAPH_${n.toUpperCase()}_URL`).join(', ')}`,
      );
  }
  const before = new Set([...process.listeners('SIGTERM'), ...process.listeners('SIGINT')]);
  // This command owns the database rather than the app, so that a start that fails anywhere
  // (migrations, the app, the demo data, the port) closes it: its pool's idle connections, or
  // the embedded database's socket server, would otherwise keep the failed process alive ~30 s.
  const database = await openDatabase(databaseTarget(config), {
    statementTimeoutMs: config.statementTimeoutMs,
    maxConnections: config.databasePoolSize,
    preparedStatements: config.databasePreparedStatements,
  });
  let app: App | undefined;
  let server: Listening;
  let metricsServer: MetricsServer | undefined;
  try {
    // Metrics only when asked for: off, prom-client is not even loaded.
    let metrics: PrometheusMetrics | undefined;
    if (config.metricsPort !== undefined) {
      const prometheus = await import('../../observability/prometheus.ts');
      metrics = prometheus.createPrometheusMetrics({ maxOperations: config.metricsMaxOperations });
      metrics.observePool(database.pool, database.pool.options.max ?? config.databasePoolSize);
      metricsServer = await prometheus.serveMetrics(metrics.registry, config.metricsPort, config.metricsHost);
    }
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
    server = await listen(app.handle, config.port, config.host);
  } catch (e) {
    await app?.close();
    await metricsServer?.close();
    await database.close();
    throw e;
  }
  const { log } = app;
  const what = role.kind === 'subgraph' ? `subgraph ${role.name}` : role.kind;
  log.info(
    { url: server.url, env: config.env, engine: app.database.engine, role: what },
    `assetql ${what} listening`,
  );
  // Before the listening line, which tells whoever waits for it that everything is up.
  if (metricsServer) process.stdout.write(`assetql metrics at ${metricsServer.url}\n`);
  process.stdout.write(
    role.kind === 'subgraph'
      ? `assetql subgraph ${role.name} at ${server.url}/graphql\n`
      : `assetql at ${server.url}/api/graphql — explorer at ${server.url}/plugins/sr/apolloGraphql\n`,
  );

  await new Promise<void>((resolve) => {
    const stop = async (signal: string) => {
      log.info({ signal }, 'shutting down');
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
    process.once('SIGTERM', () => void stop('SIGTERM'));
    process.once('SIGINT', () => void stop('SIGINT'));
  });
}

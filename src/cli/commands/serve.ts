import { loadConfig, type SubgraphName, withDemoSecret } from '../../config/index.ts';
import { seedDemo } from '../../demo/seed.ts';
import { createApp, type Role } from '../../server/app.ts';
import { listen } from '../../server/listen.ts';

export interface ServeOptions {
  subgraph?: SubgraphName;
  gateway?: boolean;
  port?: string;
  host?: string;
}

/** `assetql serve`: runs until SIGTERM or SIGINT, then drains in-flight requests and exits. */
export async function serveCommand(options: ServeOptions): Promise<void> {
  if (options.subgraph && options.gateway) throw new Error('choose --subgraph or --gateway, not both');
  const config = withDemoSecret(loadConfig({ port: options.port, host: options.host }));
  const role: Role = options.subgraph
    ? { kind: 'subgraph', name: options.subgraph }
    : options.gateway
      ? { kind: 'gateway' }
      : { kind: 'single' };
  const before = new Set([...process.listeners('SIGTERM'), ...process.listeners('SIGINT')]);
  const app = await createApp(config, role);
  // The gateway runtime (Hive, through @whatwg-node/server) disposes itself on SIGTERM and
  // SIGINT, which aborts operations still running with SHUTTING_DOWN. This process drains
  // first and disposes after (below), so those handlers are taken off.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    for (const l of process.listeners(signal)) if (!before.has(l)) process.off(signal, l);
  }
  const { log } = app;
  if (config.ephemeralSecret && role.kind !== 'single') {
    log.warn('ASSETQL_SECRET is not set: this process made its own, so other processes cannot verify it');
  }
  if (config.demoData && role.kind !== 'gateway') {
    const seeded = await seedDemo(app.database.db, app.config);
    if (seeded) log.info('loaded the demo tenant');
  }
  const server = await listen(app.handle, config.port, config.host);
  const what = role.kind === 'subgraph' ? `subgraph ${role.name}` : role.kind;
  log.info(
    { url: server.url, env: config.env, engine: app.database.engine, role: what },
    `assetql ${what} listening`,
  );
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
      resolve();
    };
    process.once('SIGTERM', () => void stop('SIGTERM'));
    process.once('SIGINT', () => void stop('SIGINT'));
  });
}

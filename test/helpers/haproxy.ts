import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './processes.ts';
import { requireTool } from './tools.ts';

export interface Balancer {
  /** The balancer's GraphQL endpoint. */
  url: string;
  log(): string;
  close(): Promise<void>;
}

/**
 * The HAProxy configuration docs/deploy.md gives for several one-process servers: round robin, the
 * client's address in `x-forwarded-for` (the servers trust one proxy), a server taken out when
 * its `/readyz` fails.
 */
export function haproxyConfig(port: number, servers: readonly URL[]): string {
  return [
    'global',
    '  maxconn 2000',
    'defaults',
    '  mode http',
    '  timeout connect 5s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  option forwardfor',
    'frontend assetql',
    `  bind 127.0.0.1:${port}`,
    '  default_backend servers',
    'backend servers',
    '  balance roundrobin',
    '  option httpchk GET /readyz',
    ...servers.map((u, i) => `  server s${i + 1} ${u.host} check inter 1s fall 2 rise 1`),
    '',
  ].join('\n');
}

/** Debian's HAProxy in front of `servers` (their base URLs), configured by {@link haproxyConfig}. */
export async function startHaproxy(servers: readonly URL[]): Promise<Balancer> {
  const binary = existsSync('/usr/sbin/haproxy')
    ? '/usr/sbin/haproxy'
    : requireTool(['haproxy'], { package: 'haproxy', for: 'the load balancer tests' });
  const dir = mkdtempSync(join(tmpdir().length < 40 ? tmpdir() : '/tmp', 'aq-haproxy-'));
  const port = await freePort();
  const cfg = join(dir, 'haproxy.cfg');
  writeFileSync(cfg, haproxyConfig(port, servers));
  const output: string[] = [];
  const child: ChildProcess = spawn(binary, ['-db', '-f', cfg], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (c) => output.push(String(c)));
  child.stderr!.on('data', (c) => output.push(String(c)));
  const url = `http://127.0.0.1:${port}/api/graphql`;
  for (let i = 0; ; i++) {
    const up = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(1_000) }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (up) break;
    if (i > 100 || child.exitCode !== null) throw new Error(`haproxy did not start:\n${output.join('')}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    log: () => output.join(''),
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        const gone = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await gone;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

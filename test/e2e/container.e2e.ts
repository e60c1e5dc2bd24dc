/**
 * The container image (Dockerfile) and the distributed form in compose.yaml, without a Docker
 * daemon: the Dockerfile's COPY sources must exist, its runtime needs only production
 * dependencies, and its start command — the same ENTRYPOINT and CMD, the same ENV, the same
 * working directory — serves and passes its own HEALTHCHECK from a directory nothing may write
 * to, with its volumes (/data, /tmp) as the only writable places. Production mode needs
 * PostgreSQL: DATABASE_URL's server, or 127.0.0.1:5432 as user postgres.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { SUBGRAPH_NAMES } from '../../src/config/index.ts';
import { exited, ROOT } from '../helpers/processes.ts';

const run = promisify(execFile);

/** The Dockerfile's instructions, continuation lines joined, per stage. */
function dockerfile() {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const instructions = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((l) => {
      const [, op = '', rest = ''] = /^(\S+)\s*(.*)$/.exec(l)!;
      return { op: op.toUpperCase(), rest };
    });
  const lastFrom = instructions.map((i) => i.op).lastIndexOf('FROM');
  const runtime = instructions.slice(lastFrom);
  const json = (op: string) => JSON.parse(runtime.findLast((i) => i.op === op)!.rest) as string[];
  const env: Record<string, string> = {};
  for (const i of runtime.filter((i) => i.op === 'ENV'))
    for (const m of i.rest.matchAll(/(\w+)=("[^"]*"|\S+)/g)) env[m[1]!] = m[2]!.replace(/^"|"$/g, '');
  const healthcheck = runtime.find((i) => i.op === 'HEALTHCHECK')!.rest;
  return {
    instructions,
    runtime,
    entrypoint: json('ENTRYPOINT'),
    cmd: json('CMD'),
    env,
    workdir: runtime.findLast((i) => i.op === 'WORKDIR')!.rest,
    user: runtime.findLast((i) => i.op === 'USER')?.rest,
    volumes: json('VOLUME'),
    healthcheck: JSON.parse(healthcheck.slice(healthcheck.indexOf('CMD') + 3).trim()) as string[],
  };
}

describe('the Dockerfile', () => {
  const file = dockerfile();

  it('copies only sources that exist and that .dockerignore lets through', () => {
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    const copies = file.instructions.filter((i) => i.op === 'COPY' && !i.rest.startsWith('--from'));
    expect(copies.length).toBeGreaterThan(0);
    for (const copy of copies) {
      const paths = copy.rest.split(/\s+/).filter((p) => !p.startsWith('--'));
      for (const source of paths.slice(0, -1)) {
        expect(existsSync(join(ROOT, source)), `COPY ${source}`).toBe(true);
        expect(ignored, `COPY ${source} is in .dockerignore`).not.toContain(source.replace(/\/$/, ''));
      }
    }
    // Each COPY --from names an earlier stage.
    const stages = file.instructions
      .filter((i) => i.op === 'FROM')
      .map((i) => /\bAS (\S+)/i.exec(i.rest)?.[1]);
    for (const copy of file.instructions.filter((i) => i.op === 'COPY' && i.rest.startsWith('--from')))
      expect(stages).toContain(/--from=(\S+)/.exec(copy.rest)![1]);
  });

  it('runs Node 24 as a user other than root, with production dependencies only', () => {
    for (const from of file.instructions.filter((i) => i.op === 'FROM'))
      expect(from.rest).toMatch(/^node:24\b/);
    expect(file.user).toBeDefined();
    expect(['root', '0']).not.toContain(file.user);
    expect(file.instructions.some((i) => i.op === 'RUN' && i.rest.includes('npm ci --omit=dev'))).toBe(true);
    expect(file.volumes.sort()).toEqual(['/data', '/tmp']);
    expect(file.env.DATA_DIR).toBe('/data');
  });
});

describe('the distributed form in compose.yaml', () => {
  const compose = parseYaml(readFileSync(join(ROOT, 'compose.yaml'), 'utf8'), { merge: true }) as {
    services: Record<string, { command?: string[]; environment?: Record<string, string>; ports?: string[] }>;
  };
  const services = compose.services;

  it('runs PostgreSQL, the four subgraphs and the gateway, on one secret and one database', () => {
    expect(Object.keys(services).sort()).toEqual([
      'assets',
      'auth',
      'events',
      'gateway',
      'issues',
      'postgres',
    ]);
    for (const name of SUBGRAPH_NAMES) expect(services[name]!.command).toEqual(['serve', '--subgraph', name]);
    expect(services.gateway!.command).toEqual(['serve', '--gateway']);
    const assetql = [...SUBGRAPH_NAMES, 'gateway'].map((n) => services[n]!.environment!);
    for (const env of assetql) {
      expect(env.ASSETQL_SECRET).toBe(assetql[0]!.ASSETQL_SECRET);
      expect(env.DATABASE_URL).toBe(assetql[0]!.DATABASE_URL);
      expect(env.ASSETQL_ENV).toBe('production');
    }
    expect(new URL(assetql[0]!.DATABASE_URL!.replace(/\$\{[^}]*\}/g, 'x')).hostname).toBe('postgres');
  });

  it('points the gateway at each subgraph service, and publishes only the gateway', () => {
    const env = services.gateway!.environment!;
    for (const name of SUBGRAPH_NAMES) {
      const url = new URL(env[`ASSETQL_SUBGRAPH_${name.toUpperCase()}_URL`]!);
      expect(url.hostname).toBe(name);
      expect(url.port).toBe(services[name]!.environment!.PORT);
      expect(url.pathname).toBe('/graphql');
    }
    expect(
      Object.entries(services)
        .filter(([, s]) => s.ports)
        .map(([n]) => n),
    ).toEqual(['gateway']);
  });
});

describe("the image's start command, outside a container", () => {
  const file = dockerfile();
  // Inside the project, so that the built modules find node_modules as /app/node_modules.
  const app = join(ROOT, `tmp/container-e2e-${process.pid}`);
  let data: string;
  let temp: string;
  let databaseUrl: string;
  let adminUrl: string;
  let database: string;
  let child: ChildProcess | undefined;
  let output = '';
  let env: Record<string, string>;
  let url: string;

  beforeAll(async () => {
    adminUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
    const admin = new pg.Client({ connectionString: adminUrl });
    try {
      await admin.connect();
    } catch (e) {
      throw new Error(
        `the container test needs PostgreSQL (Debian package postgresql) at ${adminUrl}: ${(e as Error).message}`,
      );
    }
    database = `assetql_container_${process.pid}`;
    await admin.query(`create database ${database}`);
    await admin.end();
    const target = new URL(adminUrl);
    target.pathname = `/${database}`;
    databaseUrl = target.toString();

    // What the image holds under WORKDIR: dist/ and package.json (node_modules is the project's).
    await run(process.execPath, ['scripts/build.ts', join(`tmp/container-e2e-${process.pid}`, 'dist')], {
      cwd: ROOT,
      timeout: 180_000,
    }).catch((e: { message: string; stdout?: string }) => {
      // tsc prints its diagnostics on stdout, which the error's message leaves out.
      throw new Error(`the build failed: ${e.message}\n${e.stdout ?? ''}`);
    });
    copyFileSync(join(ROOT, 'package.json'), join(app, 'package.json'));
    // A read-only root file system: nothing under the app directory may be written.
    await run('chmod', ['-R', 'a-w', app]);
    data = mkdtempSync(join(tmpdir(), 'aq-volume-data-'));
    temp = mkdtempSync(join(tmpdir(), 'aq-volume-tmp-'));

    env = {
      PATH: process.env.PATH ?? '',
      // The image's ENV, with its volumes where this machine has them, and a free port.
      ...file.env,
      DATA_DIR: data,
      TMPDIR: temp,
      HOME: '/nonexistent',
      PORT: '0',
      HOST: '127.0.0.1',
      // What an operator gives it (docs/deploy.md).
      DATABASE_URL: databaseUrl,
      ASSETQL_SECRET: 'container-e2e-secret-0123456789abcdefghijkl',
      ASSETQL_BASE_URL: 'https://assets.example.com',
      LOG_LEVEL: 'warn',
    };
    const [node, ...args] = [...file.entrypoint, ...file.cmd];
    expect(node).toBe('node');
    child = spawn(process.execPath, args, { cwd: app, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.setEncoding('utf8').on('data', (c: string) => (output += c));
    child.stderr!.setEncoding('utf8').on('data', (c: string) => (output += c));
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line within 60 s:\n${output}`)), 60_000);
      child!.stdout!.on('data', () => {
        const m = /^assetql at (http:\/\/\S+?)\/api\/graphql/m.exec(output);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      child!.once('exit', (code) => reject(new Error(`exited (${code}) before listening:\n${output}`)));
    });
  }, 240_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const done = exited(child);
      child.kill('SIGTERM');
      await done;
    }
    if (existsSync(app)) await run('chmod', ['-R', 'u+w', app]);
    rmSync(app, { recursive: true, force: true });
    for (const dir of [data, temp]) if (dir) rmSync(dir, { recursive: true, force: true });
    if (database) {
      const admin = new pg.Client({ connectionString: adminUrl });
      await admin.connect();
      await admin.query(`drop database if exists ${database} with (force)`);
      await admin.end();
    }
  }, 60_000);

  it('serves in production mode and answers its probes', async () => {
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${url}/readyz`)).json()).toEqual({ status: 'ready' });
    const r = await fetch(`${url}/api/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(await r.json()).toEqual({ data: { __typename: 'Query' } });
  });

  it('serves the web console from its read-only build, to a browser coming to /', async () => {
    const root = await fetch(`${url}/`, { headers: { accept: 'text/html' }, redirect: 'manual' });
    expect(root.headers.get('location')).toBe('/console');
    const page = await fetch(`${url}/console`);
    expect(page.status, output).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const script = /src="(\/console\/assets\/console\.js\?v=[0-9a-f]+)"/.exec(await page.text())![1]!;
    expect((await fetch(`${url}${script}`)).status).toBe(200);
  });

  it('passes its HEALTHCHECK, run as the container runtime would', async () => {
    const [node, ...args] = file.healthcheck;
    expect(node).toBe('node');
    const port = new URL(url).port;
    await expect(
      run(process.execPath, args, { cwd: app, env: { ...env, PORT: port } }),
    ).resolves.toBeDefined();
    // And fails when nothing answers.
    await expect(run(process.execPath, args, { cwd: app, env: { ...env, PORT: '1' } })).rejects.toThrow();
  });

  it('writes nothing to its volumes on PostgreSQL, and stops cleanly on SIGTERM', async () => {
    expect(readdirSync(data)).toEqual([]);
    const done = exited(child!);
    child!.kill('SIGTERM');
    expect(await done).toBe(0);
    expect(output).not.toMatch(/EACCES|EROFS|read-only/i);
  });

  it('needs no development dependency at run time', () => {
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
    const allowed = new Set(Object.keys(pkg.dependencies));
    const imported = new Set<string>();
    // The explorer's vendored files and the console's bundle are the browser's, never loaded by Node.
    const browsers = [join('explorer', 'vendor'), join('console', 'static')];
    const files = readdirSync(join(app, 'dist'), { recursive: true, withFileTypes: true }).filter(
      (e) => e.isFile() && e.name.endsWith('.js') && !browsers.some((dir) => e.parentPath.includes(dir)),
    );
    for (const f of files) {
      const text = readFileSync(join(f.parentPath, f.name), 'utf8');
      for (const m of text.matchAll(/(?:from\s+|import\(\s*)['"]([^'".][^'"]*)['"]/g)) {
        const spec = m[1]!;
        if (spec.startsWith('node:')) continue;
        imported.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
      }
    }
    expect(imported.size).toBeGreaterThan(10);
    expect([...imported].filter((p) => !allowed.has(p))).toEqual([]);
  });
});

import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, withDemoSecret } from './index.ts';

const SECRET = 'x'.repeat(40);

describe('loadConfig', () => {
  it('defaults to the demo environment on localhost:4000', () => {
    const c = loadConfig({}, {});
    expect(c).toMatchObject({
      env: 'demo',
      port: 4000,
      host: '127.0.0.1',
      baseUrl: 'http://localhost:4000',
      demoData: true,
    });
    expect(c.ephemeralSecret).toBe(true);
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('lets the environment win over the file, and flags over both', () => {
    const c = loadConfig(
      { port: '5001' },
      { PORT: '5000', ASSETQL_BASE_URL: 'https://assets.example.com/', LOG_LEVEL: 'warn' },
    );
    expect(c.port).toBe(5001);
    expect(c.baseUrl).toBe('https://assets.example.com');
    expect(c.logLevel).toBe('warn');
  });

  it('refuses production without its secrets and names each missing variable', () => {
    let error: unknown;
    try {
      loadConfig({}, { ASSETQL_ENV: 'production' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain('ASSETQL_BASE_URL is required in production');
    expect(message).toContain('ASSETQL_SECRET is required in production');
    expect(message).toContain('DATABASE_URL is required in production');
  });

  it('accepts a complete production configuration, and staging without DATABASE_URL', () => {
    const prod = loadConfig(
      {},
      {
        ASSETQL_ENV: 'production',
        ASSETQL_BASE_URL: 'https://assets.example.com',
        ASSETQL_SECRET: SECRET,
        DATABASE_URL: 'postgres://db/assetql',
      },
    );
    expect(prod).toMatchObject({
      env: 'production',
      host: '0.0.0.0',
      demoData: false,
      ephemeralSecret: false,
    });
    expect(() =>
      loadConfig(
        {},
        { ASSETQL_ENV: 'staging', ASSETQL_BASE_URL: 'https://s.example.com', ASSETQL_SECRET: SECRET },
      ),
    ).not.toThrow();
  });

  it('rejects short secrets, bad ports and unknown environments', () => {
    expect(() => loadConfig({}, { ASSETQL_SECRET: 'short' })).toThrow(/at least 32 characters/);
    expect(() => loadConfig({}, { PORT: '70000' })).toThrow(ConfigError);
    expect(() => loadConfig({}, { ASSETQL_ENV: 'qa' })).toThrow(ConfigError);
  });

  it('reads subgraph URLs for the gateway', () => {
    const c = loadConfig({}, { ASSETQL_SUBGRAPH_ASSETS_URL: 'http://a:4001/graphql' });
    expect(c.subgraphUrls).toEqual({ assets: 'http://a:4001/graphql' });
  });
});

describe('withDemoSecret', () => {
  it('keeps one secret in DATA_DIR, readable only by its owner, for every process', () => {
    const dir = mkdtempSync(join(tmpdir(), 'assetql-config-'));
    const a = withDemoSecret(loadConfig({}, { DATA_DIR: dir }));
    const b = withDemoSecret(loadConfig({}, { DATA_DIR: dir }));
    expect(a.secret).toBe(b.secret);
    expect(readFileSync(join(dir, 'secret'), 'utf8').trim()).toBe(a.secret);
    expect(statSync(join(dir, 'secret')).mode & 0o777).toBe(0o600);
  });

  it('never applies outside demo', () => {
    const c = loadConfig(
      {},
      { ASSETQL_ENV: 'staging', ASSETQL_BASE_URL: 'https://s.example.com', ASSETQL_SECRET: SECRET },
    );
    expect(withDemoSecret(c)).toBe(c);
  });
});

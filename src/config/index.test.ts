import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
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

  it('names the variable, flag or file of a bad value, in one line', () => {
    const message = (overrides: Record<string, unknown>, env: NodeJS.ProcessEnv) => {
      try {
        loadConfig(overrides, env);
      } catch (e) {
        expect(e).toBeInstanceOf(ConfigError);
        return (e as Error).message;
      }
      throw new Error('no ConfigError');
    };
    const port = message({}, { PORT: 'abc' });
    expect(port).toBe('invalid configuration: PORT: must be a port number from 0 to 65535 (given "abc")');
    expect(message({ port: '99999' }, {})).toMatch(/^invalid configuration: --port: must be a port number/);
    const file = join(mkdtempSync(join(tmpdir(), 'assetql-config-')), 'assetql.json');
    writeFileSync(file, JSON.stringify({ port: 'abc' }));
    expect(message({}, { ASSETQL_CONFIG: file })).toContain(`port in ${file}: must be a port number`);
    const several = message(
      {},
      {
        ASSETQL_SUBGRAPH_AUTH_URL: 'not a url',
        ASSETQL_OIDC_ISSUERS: '[{ "issuer": "nowhere", "audience": "a" }]',
        ASSETQL_DOCUMENT_LIMITS: '{ "maxDepth": 0 }',
      },
    );
    expect(several).not.toContain('\n');
    for (const name of [
      'ASSETQL_SUBGRAPH_AUTH_URL:',
      'ASSETQL_OIDC_ISSUERS[0].issuer:',
      'ASSETQL_DOCUMENT_LIMITS.maxDepth:',
    ])
      expect(several).toContain(name);
    // A value that may hold a password is never repeated.
    expect(
      message({}, { DATABASE_URL: '', ASSETQL_SMTP_URL: '', ASSETQL_SSO_URL: 'secret-ish' }),
    ).not.toContain('secret-ish');
  });

  it('reads the longest list an operation may hold, 1,000 unless told, and refuses a nonsense one', () => {
    expect(loadConfig({}, {}).documentLimits.maxListLength).toBe(1_000);
    expect(
      loadConfig({}, { ASSETQL_DOCUMENT_LIMITS: '{ "maxListLength": 5000 }' }).documentLimits.maxListLength,
    ).toBe(5_000);
    expect(() => loadConfig({}, { ASSETQL_DOCUMENT_LIMITS: '{ "maxListLength": 0 }' })).toThrow(
      /ASSETQL_DOCUMENT_LIMITS\.maxListLength/,
    );
  });

  it('reads the export bounds, giving one tenant half the slots unless told', () => {
    expect(loadConfig({}, {}).exportLimits).toEqual({
      maxConcurrent: 3,
      maxPerTenant: 1,
      firstByteSeconds: 10,
      idleSeconds: 120,
    });
    expect(
      loadConfig({}, { ASSETQL_EXPORT_LIMITS: '{ "maxConcurrent": 8, "idleSeconds": 0.5 }' }).exportLimits,
    ).toEqual({ maxConcurrent: 8, maxPerTenant: 4, firstByteSeconds: 10, idleSeconds: 0.5 });
    expect(
      loadConfig({}, { ASSETQL_EXPORT_LIMITS: '{ "maxConcurrent": 8, "maxPerTenant": 8 }' }).exportLimits
        .maxPerTenant,
    ).toBe(8);
    const refused = (value: string) => {
      try {
        loadConfig({}, { ASSETQL_EXPORT_LIMITS: value });
      } catch (e) {
        return (e as Error).message;
      }
      return 'accepted';
    };
    expect(refused('{ "maxPerTenant": 4 }')).toMatch(
      /ASSETQL_EXPORT_LIMITS\.maxPerTenant: cannot exceed maxConcurrent/,
    );
    expect(refused('{ "idleSeconds": 0 }')).toMatch(/ASSETQL_EXPORT_LIMITS\.idleSeconds:/);
    expect(refused('{ "maxSlots": 4 }')).toMatch(/ASSETQL_EXPORT_LIMITS: .*maxSlots/);
  });

  it('reads the statement and upstream timeouts, refusing values out of range by name', () => {
    const d = loadConfig({}, {});
    expect([d.statementTimeoutMs, d.upstreamTimeoutMs]).toEqual([5_000, 30_000]);
    const c = loadConfig({}, { ASSETQL_STATEMENT_TIMEOUT_MS: '0', ASSETQL_UPSTREAM_TIMEOUT_MS: '2500' });
    expect([c.statementTimeoutMs, c.upstreamTimeoutMs]).toEqual([0, 2_500]);
    expect(() => loadConfig({}, { ASSETQL_STATEMENT_TIMEOUT_MS: '-1' })).toThrow(
      /ASSETQL_STATEMENT_TIMEOUT_MS/,
    );
    expect(() => loadConfig({}, { ASSETQL_UPSTREAM_TIMEOUT_MS: '0' })).toThrow(/ASSETQL_UPSTREAM_TIMEOUT_MS/);
    expect(() => loadConfig({}, { ASSETQL_UPSTREAM_TIMEOUT_MS: 'soon' })).toThrow(
      /ASSETQL_UPSTREAM_TIMEOUT_MS/,
    );
  });

  it('reads the direct database URL for sessions, only beside DATABASE_URL', () => {
    const direct = 'postgres://assetql@db:5432/assetql';
    const c = loadConfig(
      {},
      { DATABASE_URL: 'postgres://assetql@pgbouncer:6432/assetql', ASSETQL_DATABASE_SESSION_URL: direct },
    );
    expect(c.databaseSessionUrl).toBe(direct);
    expect(loadConfig({}, {}).databaseSessionUrl).toBeUndefined();
    expect(() => loadConfig({}, { ASSETQL_DATABASE_SESSION_URL: direct })).toThrow(
      /ASSETQL_DATABASE_SESSION_URL .*set DATABASE_URL too/,
    );
  });

  it('reads the read replicas, a comma-separated list, only beside DATABASE_URL', () => {
    const primary = 'postgres://assetql@db:5432/assetql';
    const c = loadConfig(
      {},
      {
        DATABASE_URL: primary,
        ASSETQL_DATABASE_READ_URLS:
          'postgres://assetql@replica-1/assetql, postgres://assetql@replica-2/assetql,',
      },
    );
    expect(c.databaseReadUrls).toEqual([
      'postgres://assetql@replica-1/assetql',
      'postgres://assetql@replica-2/assetql',
    ]);
    expect(loadConfig({}, { DATABASE_URL: primary }).databaseReadUrls).toBeUndefined();
    expect(() => loadConfig({}, { ASSETQL_DATABASE_READ_URLS: primary })).toThrow(
      /ASSETQL_DATABASE_READ_URLS are replicas of DATABASE_URL/,
    );
  });

  it('reads the string limit, 100 000 characters unless told', () => {
    expect(loadConfig({}, {}).maxStringLength).toBe(100_000);
    expect(loadConfig({}, { ASSETQL_MAX_STRING_LENGTH: '5000' }).maxStringLength).toBe(5000);
    for (const bad of ['0', '-1', '1.5', 'lots', '100000001'])
      expect(() => loadConfig({}, { ASSETQL_MAX_STRING_LENGTH: bad }), bad).toThrow(
        /ASSETQL_MAX_STRING_LENGTH: must be a number of characters from 1 to 100000000/,
      );
  });

  it('reads subgraph URLs for the gateway', () => {
    const c = loadConfig({}, { ASSETQL_SUBGRAPH_ASSETS_URL: 'http://a:4001/graphql' });
    expect(c.subgraphUrls).toEqual({ assets: 'http://a:4001/graphql' });
  });
});

describe('ASSETQL_TRUST_PROXY', () => {
  it('is a number of proxies; true is one and false none', () => {
    const hops = (value?: string) =>
      loadConfig({}, value === undefined ? {} : { ASSETQL_TRUST_PROXY: value }).trustProxy;
    expect(hops()).toBe(0);
    expect([hops('false'), hops('0'), hops('no')]).toEqual([0, 0, 0]);
    expect([hops('true'), hops('1'), hops('yes')]).toEqual([1, 1, 1]);
    expect(hops('2')).toBe(2);
    expect(loadConfig({ trustProxy: true }, {}).trustProxy).toBe(1);
  });

  it.each(['-1', '11', '1.5', 'maybe'])('refuses %j, naming the variable', (value) => {
    expect(() => loadConfig({}, { ASSETQL_TRUST_PROXY: value })).toThrow(
      /ASSETQL_TRUST_PROXY: must be true, false or a number of proxies from 0 to 10/,
    );
  });
});

describe('ASSETQL_REMEMBER_DEVICES', () => {
  it('remembers devices on the user’s opt-in for 30 days unless told otherwise', () => {
    expect(loadConfig({}, {})).toMatchObject({ rememberDevices: 'opt-in', rememberDevicesDays: 30 });
    expect(
      loadConfig({}, { ASSETQL_REMEMBER_DEVICES: 'always', ASSETQL_REMEMBER_DEVICES_DAYS: '90' }),
    ).toMatchObject({ rememberDevices: 'always', rememberDevicesDays: 90 });
  });

  it('refuses other policies and ages, naming the variable', () => {
    expect(() => loadConfig({}, { ASSETQL_REMEMBER_DEVICES: 'sometimes' })).toThrow(
      /ASSETQL_REMEMBER_DEVICES: .*\(given "sometimes"\)/,
    );
    for (const days of ['0', '366', 'soon'])
      expect(() => loadConfig({}, { ASSETQL_REMEMBER_DEVICES_DAYS: days })).toThrow(
        /ASSETQL_REMEMBER_DEVICES_DAYS: must be a number of days from 1 to 365/,
      );
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

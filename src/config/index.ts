import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { z } from 'zod';
import {
  DEFAULT_DOCUMENT_LIMITS,
  DEFAULT_FAIRNESS,
  DEFAULT_WEBHOOKS,
  type DocumentLimits,
  type ExportLimits,
  exportLimits,
  type Fairness,
  type WebhookSettings,
} from './limits.ts';
import { ENVIRONMENTS, type Environment, SUBGRAPH_NAMES, type SubgraphName, schema } from './schema.ts';

export {
  DEFAULT_DOCUMENT_LIMITS,
  DEFAULT_EXPORT_LIMITS,
  DEFAULT_FAIRNESS,
  DEFAULT_WEBHOOKS,
  type DocumentLimits,
  type ExportLimits,
  exportLimits,
  type Fairness,
  type WebhookSettings,
} from './limits.ts';
export { ENVIRONMENTS, type Environment, SUBGRAPH_NAMES, type SubgraphName };

export type Config = Readonly<
  Omit<
    z.infer<typeof schema>,
    | 'host'
    | 'baseUrl'
    | 'demoData'
    | 'documentLimits'
    | 'exportLimits'
    | 'fairness'
    | 'introspection'
    | 'webhooks'
  > & {
    webhooks: WebhookSettings;
    host: string;
    baseUrl: string;
    demoData: boolean;
    documentLimits: DocumentLimits;
    exportLimits: ExportLimits;
    fairness: Fairness;
    introspection: boolean;
    /** True when no `secret` was configured and one was made for this process (demo only). */
    ephemeralSecret: boolean;
    secret: string;
  }
>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const bool = (v: string | undefined) => (v === undefined ? undefined : /^(1|true|yes|on)$/i.test(v));

/** `ASSETQL_TRUST_PROXY`: a number of proxies, or a yes/no (anything else is left for the schema to refuse). */
const proxyHops = (v: string | undefined) =>
  v === undefined || !/^(\d+|true|yes|on|false|no|off)$/i.test(v.trim())
    ? v
    : /^\d+$/.test(v.trim())
      ? Number(v.trim())
      : /^(true|yes|on)$/i.test(v.trim());

/** Reads the settings that the environment gives, leaving out the unset ones. */
export function fromEnvironment(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const subgraphUrls: Record<string, string> = {};
  for (const name of SUBGRAPH_NAMES) {
    const url = env[`ASSETQL_SUBGRAPH_${name.toUpperCase()}_URL`];
    if (url) subgraphUrls[name] = url;
  }
  const out: Record<string, unknown> = {
    env: env.ASSETQL_ENV,
    port: env.PORT,
    host: env.HOST,
    baseUrl: env.ASSETQL_BASE_URL,
    databaseUrl: env.DATABASE_URL,
    databaseSessionUrl: env.ASSETQL_DATABASE_SESSION_URL,
    databaseReadUrls: env.ASSETQL_DATABASE_READ_URLS?.split(',')
      .map((u) => u.trim())
      .filter(Boolean),
    dataDir: env.DATA_DIR,
    secret: env.ASSETQL_SECRET,
    logLevel: env.LOG_LEVEL,
    demoData: bool(env.ASSETQL_DEMO_DATA),
    trustProxy: proxyHops(env.ASSETQL_TRUST_PROXY),
    loginEnabled: bool(env.ASSETQL_LOGIN_ENABLED),
    rememberDevices: env.ASSETQL_REMEMBER_DEVICES,
    rememberDevicesDays: env.ASSETQL_REMEMBER_DEVICES_DAYS,
    changeRetentionDays: env.ASSETQL_CHANGE_RETENTION_DAYS,
    observationRetentionDays: env.ASSETQL_OBSERVATION_RETENTION_DAYS,
    mqttUrl: env.ASSETQL_MQTT_URL,
    mqttTopicPrefix: env.ASSETQL_MQTT_TOPIC_PREFIX,
    mqttClientId: env.ASSETQL_MQTT_CLIENT_ID,
    corsOrigins: env.ASSETQL_CORS_ORIGINS?.split(',')
      .map((o) => o.trim())
      .filter(Boolean),
    smtpUrl: env.ASSETQL_SMTP_URL,
    mailFrom: env.ASSETQL_MAIL_FROM,
    twilio: env.ASSETQL_TWILIO_ACCOUNT_SID
      ? {
          accountSid: env.ASSETQL_TWILIO_ACCOUNT_SID,
          authToken: env.ASSETQL_TWILIO_AUTH_TOKEN,
          from: env.ASSETQL_TWILIO_FROM,
        }
      : undefined,
    oidcIssuers: env.ASSETQL_OIDC_ISSUERS
      ? parseJson(env.ASSETQL_OIDC_ISSUERS, 'ASSETQL_OIDC_ISSUERS')
      : undefined,
    ssoUrl: env.ASSETQL_SSO_URL,
    storageCredentials: env.ASSETQL_STORAGE_CREDENTIALS
      ? parseJson(env.ASSETQL_STORAGE_CREDENTIALS, 'ASSETQL_STORAGE_CREDENTIALS')
      : undefined,
    rateLimits: env.ASSETQL_RATE_LIMITS
      ? parseJson(env.ASSETQL_RATE_LIMITS, 'ASSETQL_RATE_LIMITS')
      : undefined,
    documentLimits: env.ASSETQL_DOCUMENT_LIMITS
      ? parseJson(env.ASSETQL_DOCUMENT_LIMITS, 'ASSETQL_DOCUMENT_LIMITS')
      : undefined,
    exportLimits: env.ASSETQL_EXPORT_LIMITS
      ? parseJson(env.ASSETQL_EXPORT_LIMITS, 'ASSETQL_EXPORT_LIMITS')
      : undefined,
    fairness: env.ASSETQL_FAIRNESS ? parseJson(env.ASSETQL_FAIRNESS, 'ASSETQL_FAIRNESS') : undefined,
    webhooks: env.ASSETQL_WEBHOOKS ? parseJson(env.ASSETQL_WEBHOOKS, 'ASSETQL_WEBHOOKS') : undefined,
    natsUrl: env.ASSETQL_NATS_URL,
    natsStream: env.ASSETQL_NATS_STREAM,
    statementTimeoutMs: env.ASSETQL_STATEMENT_TIMEOUT_MS,
    upstreamTimeoutMs: env.ASSETQL_UPSTREAM_TIMEOUT_MS,
    maxStringLength: env.ASSETQL_MAX_STRING_LENGTH,
    introspection: bool(env.ASSETQL_INTROSPECTION),
    trustedDocuments: env.ASSETQL_TRUSTED_DOCUMENTS,
    directExecution: bool(env.ASSETQL_DIRECT_EXECUTION),
    preparedOperations: bool(env.ASSETQL_PREPARED_OPERATIONS),
    plannedQueries: bool(env.ASSETQL_PLANNED_QUERIES),
    joinedOperations: bool(env.ASSETQL_JOINED_OPERATIONS),
    databasePoolSize: env.ASSETQL_DB_POOL_SIZE,
    databasePreparedStatements: env.ASSETQL_DB_PREPARED_STATEMENTS,
    metricsPort: env.ASSETQL_METRICS_PORT,
    metricsHost: env.ASSETQL_METRICS_HOST,
    metricsMaxOperations: env.ASSETQL_METRICS_MAX_OPERATIONS,
    subgraphUrls: Object.keys(subgraphUrls).length ? subgraphUrls : undefined,
  };
  for (const k of Object.keys(out)) if (out[k] === undefined || out[k] === '') delete out[k];
  return out;
}

/**
 * Builds the frozen configuration. Throws a ConfigError naming every missing or bad setting.
 * @param overrides settings from command-line flags or tests; they win over everything else.
 */
export function loadConfig(
  overrides: Record<string, unknown> = {},
  env: NodeJS.ProcessEnv = process.env,
): Config {
  let file: Record<string, unknown> = {};
  if (env.ASSETQL_CONFIG) {
    try {
      file = JSON.parse(readFileSync(env.ASSETQL_CONFIG, 'utf8'));
    } catch (e) {
      throw new ConfigError(`cannot read ASSETQL_CONFIG ${env.ASSETQL_CONFIG}: ${(e as Error).message}`);
    }
  }
  const fromEnv = fromEnvironment(env);
  const flags = stripUndefined(overrides);
  const merged = { ...file, ...fromEnv, ...flags };
  const parsed = schema.safeParse(merged);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => {
      if (i.path.length === 0) return i.message; // refinements name their variables themselves
      const [key = '', ...rest] = i.path.map(String);
      // Name the setting where it was given: a flag, a variable, or the configuration file.
      const name =
        key in flags
          ? `--${key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`
          : key in fromEnv
            ? variableOf(key, rest)
            : `${[key, ...rest].join('.')} in ${env.ASSETQL_CONFIG}`;
      const given = merged[key as keyof typeof merged];
      const shown =
        rest.length === 0 && SHOWN.has(key) && typeof given === 'string' ? ` (given "${given}")` : '';
      return `${name}: ${i.message}${shown}`;
    });
    throw new ConfigError(`invalid configuration: ${lines.join('; ')}`);
  }
  const c = parsed.data;
  const host = c.host ?? (c.env === 'demo' ? '127.0.0.1' : '0.0.0.0');
  const secret = c.secret ?? randomSecret();
  return Object.freeze({
    ...c,
    host,
    dataDir: resolve(c.dataDir),
    baseUrl: (c.baseUrl ?? `http://localhost:${c.port}`).replace(/\/+$/, ''),
    demoData: c.demoData ?? c.env === 'demo',
    documentLimits: Object.freeze({ ...DEFAULT_DOCUMENT_LIMITS, ...c.documentLimits }),
    exportLimits: exportLimits(c.exportLimits),
    fairness: Object.freeze({ ...DEFAULT_FAIRNESS, ...c.fairness }),
    webhooks: Object.freeze({ ...DEFAULT_WEBHOOKS, ...c.webhooks }),
    introspection: c.introspection ?? c.env !== 'production',
    secret,
    ephemeralSecret: c.secret === undefined,
    subgraphUrls: Object.freeze({ ...c.subgraphUrls }),
  });
}

/** The environment variable of each setting, for errors that name it. */
const VARIABLES: Readonly<Record<keyof z.input<typeof schema>, string>> = {
  env: 'ASSETQL_ENV',
  port: 'PORT',
  host: 'HOST',
  baseUrl: 'ASSETQL_BASE_URL',
  databaseUrl: 'DATABASE_URL',
  databaseSessionUrl: 'ASSETQL_DATABASE_SESSION_URL',
  databaseReadUrls: 'ASSETQL_DATABASE_READ_URLS',
  dataDir: 'DATA_DIR',
  secret: 'ASSETQL_SECRET',
  logLevel: 'LOG_LEVEL',
  demoData: 'ASSETQL_DEMO_DATA',
  subgraphUrls: 'ASSETQL_SUBGRAPH_<NAME>_URL',
  trustProxy: 'ASSETQL_TRUST_PROXY',
  corsOrigins: 'ASSETQL_CORS_ORIGINS',
  loginEnabled: 'ASSETQL_LOGIN_ENABLED',
  rememberDevices: 'ASSETQL_REMEMBER_DEVICES',
  rememberDevicesDays: 'ASSETQL_REMEMBER_DEVICES_DAYS',
  changeRetentionDays: 'ASSETQL_CHANGE_RETENTION_DAYS',
  observationRetentionDays: 'ASSETQL_OBSERVATION_RETENTION_DAYS',
  mqttUrl: 'ASSETQL_MQTT_URL',
  mqttTopicPrefix: 'ASSETQL_MQTT_TOPIC_PREFIX',
  mqttClientId: 'ASSETQL_MQTT_CLIENT_ID',
  smtpUrl: 'ASSETQL_SMTP_URL',
  mailFrom: 'ASSETQL_MAIL_FROM',
  twilio: 'ASSETQL_TWILIO_<ACCOUNT_SID|AUTH_TOKEN|FROM>',
  oidcIssuers: 'ASSETQL_OIDC_ISSUERS',
  rateLimits: 'ASSETQL_RATE_LIMITS',
  storageCredentials: 'ASSETQL_STORAGE_CREDENTIALS',
  ssoUrl: 'ASSETQL_SSO_URL',
  documentLimits: 'ASSETQL_DOCUMENT_LIMITS',
  exportLimits: 'ASSETQL_EXPORT_LIMITS',
  fairness: 'ASSETQL_FAIRNESS',
  webhooks: 'ASSETQL_WEBHOOKS',
  natsUrl: 'ASSETQL_NATS_URL',
  natsStream: 'ASSETQL_NATS_STREAM',
  statementTimeoutMs: 'ASSETQL_STATEMENT_TIMEOUT_MS',
  upstreamTimeoutMs: 'ASSETQL_UPSTREAM_TIMEOUT_MS',
  maxStringLength: 'ASSETQL_MAX_STRING_LENGTH',
  introspection: 'ASSETQL_INTROSPECTION',
  trustedDocuments: 'ASSETQL_TRUSTED_DOCUMENTS',
  directExecution: 'ASSETQL_DIRECT_EXECUTION',
  preparedOperations: 'ASSETQL_PREPARED_OPERATIONS',
  plannedQueries: 'ASSETQL_PLANNED_QUERIES',
  joinedOperations: 'ASSETQL_JOINED_OPERATIONS',
  databasePoolSize: 'ASSETQL_DB_POOL_SIZE',
  databasePreparedStatements: 'ASSETQL_DB_PREPARED_STATEMENTS',
  metricsPort: 'ASSETQL_METRICS_PORT',
  metricsHost: 'ASSETQL_METRICS_HOST',
  metricsMaxOperations: 'ASSETQL_METRICS_MAX_OPERATIONS',
};

/** Settings whose given value an error may repeat (never a secret or a URL with a password). */
const SHOWN = new Set(['env', 'port', 'host', 'logLevel', 'rememberDevices', 'trustedDocuments']);

/**
 * The variable that sets `key` (at `path` within it): `ASSETQL_SUBGRAPH_AUTH_URL`,
 * `ASSETQL_TWILIO_FROM`, or a JSON variable and a place in its value (`ASSETQL_OIDC_ISSUERS[0].issuer`).
 */
function variableOf(key: string, path: string[]): string {
  const [first] = path;
  if (key === 'subgraphUrls' && first) return `ASSETQL_SUBGRAPH_${first.toUpperCase()}_URL`;
  if (key === 'twilio' && first)
    return `ASSETQL_TWILIO_${first.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
  const name = VARIABLES[key as keyof typeof VARIABLES] ?? key;
  if (path.length === 0) return name;
  if (key === 'corsOrigins') return `${name} (origin ${Number(first) + 1})`;
  return `${name}${path.map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`)).join('')}`;
}

function parseJson(text: string, variable: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`${variable} is not valid JSON: ${(e as Error).message}`);
  }
}

function stripUndefined(o: Record<string, unknown>) {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}

function randomSecret() {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
}

/**
 * In `demo` without ASSETQL_SECRET, one secret kept in DATA_DIR/secret (mode 0600), so the
 * server and CLI commands agree (sealed TOTP seeds, signed URLs) and restarts keep them valid.
 * Other environments must configure the secret; there this returns the config unchanged.
 */
export function withDemoSecret(config: Config): Config {
  if (!config.ephemeralSecret || config.env !== 'demo') return config;
  const file = join(config.dataDir, 'secret');
  let secret: string;
  try {
    secret = readFileSync(file, 'utf8').trim();
  } catch (e) {
    // None yet: made now, once (`wx` refuses to overwrite one another process made meanwhile).
    if ((e as { code?: unknown }).code !== 'ENOENT') throw e;
    mkdirSync(config.dataDir, { recursive: true });
    secret = config.secret;
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(file, 0o600);
  }
  return Object.freeze({ ...config, secret, ephemeralSecret: false });
}

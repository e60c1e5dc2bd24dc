import { z } from 'zod';
import { MAX_TRUSTED_HOPS } from '../shared/client-address.ts';
import { DATABASE_SETTINGS } from './database-schema.ts';
import { DEFAULT_EXPORT_LIMITS, DEFAULT_MAX_STRING_LENGTH } from './limits.ts';

/** The three deployment environments the spec names (§1.6); each has its own `{base_url}`. */
export const ENVIRONMENTS = ['demo', 'staging', 'production'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

export const SUBGRAPH_NAMES = ['assets', 'auth', 'issues', 'events'] as const;
export type SubgraphName = (typeof SUBGRAPH_NAMES)[number];

const MIN_SECRET_LENGTH = 32;
const PORT_RANGE = 'must be a port number from 0 to 65535';
const TRUST_PROXY = `must be true, false or a number of proxies from 0 to ${MAX_TRUSTED_HOPS}`;

/**
 * Every setting, with the environment variable that sets it. Order of precedence:
 * defaults < JSON file named by `ASSETQL_CONFIG` < environment < command-line flags.
 */
export const schema = z
  .object({
    /** `ASSETQL_ENV` @default 'demo' */
    env: z.enum(ENVIRONMENTS).default('demo'),
    /** `PORT` @default 4000 */
    port: z.coerce
      .number({ error: PORT_RANGE })
      .int({ error: PORT_RANGE })
      .min(0, { error: PORT_RANGE })
      .max(65535, { error: PORT_RANGE })
      .default(4000),
    /** `HOST` @default '127.0.0.1' in demo, '0.0.0.0' elsewhere */
    host: z.string().min(1).optional(),
    /** `ASSETQL_BASE_URL`: the public `{base_url}`; required outside demo. */
    baseUrl: z.url().optional(),
    ...DATABASE_SETTINGS,
    /** `DATA_DIR` @default './data' */
    dataDir: z.string().min(1).default('./data'),
    /** `ASSETQL_SECRET`: signs identities between gateway and subgraphs, and download URLs. */
    secret: z.string().optional(),
    /** `LOG_LEVEL` @default 'info' */
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** `ASSETQL_DEMO_DATA`: load the demo tenant at start @default true in demo */
    demoData: z.boolean().optional(),
    /** `ASSETQL_SUBGRAPH_<NAME>_URL`: where the gateway reaches each subgraph in distributed form. */
    subgraphUrls: z.partialRecord(z.enum(SUBGRAPH_NAMES), z.url()).default({}),
    /**
     * `ASSETQL_TRUST_PROXY`: how many proxies the operator runs in front of the service; the client
     * address is read that many entries from the right of `x-forwarded-for` (Express's `trust
     * proxy` number). `true` is 1, `false` 0 @default 0
     */
    trustProxy: z
      .union(
        [
          z.boolean(),
          z
            .number()
            .int({ error: TRUST_PROXY })
            .min(0, { error: TRUST_PROXY })
            .max(MAX_TRUSTED_HOPS, { error: TRUST_PROXY }),
        ],
        { error: TRUST_PROXY },
      )
      .default(0)
      .transform((v) => (v === true ? 1 : v === false ? 0 : v)),
    /** `ASSETQL_CORS_ORIGINS`: comma-separated origins allowed to call the API from a browser @default none */
    corsOrigins: z.array(z.url()).default([]),
    /** `ASSETQL_LOGIN_ENABLED`: sign-in with username and password @default true */
    loginEnabled: z.boolean().default(true),
    /**
     * `ASSETQL_REMEMBER_DEVICES`: which devices skip MFA after one MFA sign-in, as Cognito's
     * "Always", "User opt-in", "Don't remember" (docs/auth.md §7) @default 'opt-in'
     */
    rememberDevices: z.enum(['always', 'opt-in', 'off']).default('opt-in'),
    /** `ASSETQL_REMEMBER_DEVICES_DAYS`: how long a remembered device skips MFA @default 30 */
    rememberDevicesDays: z.coerce
      .number({ error: 'must be a number of days from 1 to 365' })
      .int({ error: 'must be a number of days from 1 to 365' })
      .min(1, { error: 'must be a number of days from 1 to 365' })
      .max(365, { error: 'must be a number of days from 1 to 365' })
      .default(30),
    /** `ASSETQL_CHANGE_RETENTION_DAYS`: how long the change log keeps an entry (docs/events.md) @default 365 */
    changeRetentionDays: z.coerce
      .number({ error: 'must be a number of days from 1 to 3650' })
      .int({ error: 'must be a number of days from 1 to 3650' })
      .min(1, { error: 'must be a number of days from 1 to 3650' })
      .max(3650, { error: 'must be a number of days from 1 to 3650' })
      .default(365),
    /** `ASSETQL_OBSERVATION_RETENTION_DAYS`: how long a group keeps readings unless it has its own (docs/telemetry.md) @default 400 */
    observationRetentionDays: z.coerce
      .number({ error: 'must be a number of days from 1 to 36500' })
      .int({ error: 'must be a number of days from 1 to 36500' })
      .min(1, { error: 'must be a number of days from 1 to 36500' })
      .max(36500, { error: 'must be a number of days from 1 to 36500' })
      .default(400),
    /**
     * `ASSETQL_MQTT_URL`: an MQTT broker (`mqtt://user:pass@host:1883`, `mqtts://`) whose readings
     * `assetql serve` takes in (docs/telemetry.md); off without.
     */
    mqttUrl: z
      .string()
      .regex(/^mqtts?:\/\/[^\s]+$/, { error: 'must be an mqtt:// or mqtts:// URL' })
      .optional(),
    /** `ASSETQL_MQTT_CLIENT_ID`: the bridge's persistent session; one bridge per id @default assetql-bridge */
    mqttClientId: z
      .string()
      .regex(/^[A-Za-z0-9_.:-]{1,64}$/, { error: 'must be 1 to 64 letters, digits, _ . : or -' })
      .default('assetql-bridge'),
    /** `ASSETQL_MQTT_TOPIC_PREFIX`: the topics' first levels, before `{group}/{profile}/{assetId}/{dataset}` @default assetql */
    mqttTopicPrefix: z
      .string()
      .regex(/^[^#+\s]{1,100}$/, { error: 'must be 1 to 100 characters without #, + or spaces' })
      .default('assetql'),
    /** `ASSETQL_SMTP_URL`, e.g. `smtps://user:pass@mail.example.com`; without it, mail goes to the outbox. */
    smtpUrl: z.string().optional(),
    /** `ASSETQL_MAIL_FROM` @default 'assetql <no-reply@localhost>' */
    mailFrom: z.string().default('assetql <no-reply@localhost>'),
    /** `ASSETQL_TWILIO_ACCOUNT_SID`, `ASSETQL_TWILIO_AUTH_TOKEN`, `ASSETQL_TWILIO_FROM`: SMS through Twilio. */
    twilio: z
      .object({ accountSid: z.string().min(1), authToken: z.string().min(1), from: z.string().min(1) })
      .optional(),
    /**
     * `ASSETQL_OIDC_ISSUERS`: JSON array of identity providers trusted for federatedSignIn:
     * `[{ "issuer": "https://…", "audience": "client-id", "name": "Corp", "groups": ["acme"],
     *     "groupsClaim": "groups", "algorithms": ["RS256"] }]`.
     */
    oidcIssuers: z
      .array(
        z.object({
          issuer: z.url(),
          audience: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]),
          name: z
            .string()
            .regex(/^[A-Za-z0-9]+$/)
            .optional(),
          groups: z.array(z.string().min(1)).default([]),
          groupsClaim: z.string().optional(),
          algorithms: z.array(z.string()).default(['RS256', 'ES256', 'PS256', 'EdDSA']),
        }),
      )
      .default([]),
    /**
     * `ASSETQL_RATE_LIMITS`: JSON overriding per-address limits (docs/auth.md), e.g.
     * `{ "signIn": { "points": 30, "seconds": 300 } }`.
     */
    rateLimits: z
      .partialRecord(
        z.enum(['signIn', 'confirmSignIn', 'forgotPassword', 'forgotPasswordSubmit', 'createAPIKey']),
        z.object({ points: z.number().int().positive(), seconds: z.number().int().positive() }),
      )
      .default({}),
    /**
     * `ASSETQL_STORAGE_CREDENTIALS`: JSON for temporary storage credentials through STS
     * AssumeRole: `{ "roleArn", "bucket", "prefixTemplate": "{group}/", "region", "endpoint",
     * "durationSeconds" }`; AWS keys from the SDK's usual sources (AWS_ACCESS_KEY_ID, …).
     */
    storageCredentials: z
      .object({
        roleArn: z.string().min(1),
        bucket: z.string().min(3),
        prefixTemplate: z.string().optional(),
        region: z.string().optional(),
        endpoint: z.url().optional(),
        durationSeconds: z.number().int().min(900).max(43200).optional(),
        externalId: z.string().optional(),
      })
      .optional(),
    /** `ASSETQL_SSO_URL`: where clients start SSO (`config.auth.ssoUrl`). */
    ssoUrl: z.url().optional(),
    /**
     * `ASSETQL_DOCUMENT_LIMITS`: JSON overriding the gateway's limits on hostile requests
     * (docs/security.md), e.g. `{ "maxDepth": 20, "maxCost": 20000 }`; unnamed limits keep
     * their defaults (`DEFAULT_DOCUMENT_LIMITS`).
     */
    documentLimits: z
      .object({
        maxDepth: z.number().int().positive(),
        maxAliases: z.number().int().nonnegative(),
        maxDirectives: z.number().int().nonnegative(),
        maxCost: z.number().int().positive(),
        maxTokens: z.number().int().positive(),
        maxBodyBytes: z.number().int().positive(),
        maxBatch: z.number().int().nonnegative(),
        maxVariablesBytes: z.number().int().positive(),
        maxVariablesDepth: z.number().int().positive(),
        maxListLength: z.number().int().positive().max(1_000_000),
        maxFields: z.number().int().positive(),
        maxRelated: z.number().int().nonnegative(),
        maxErrors: z.number().int().positive(),
        maxPersistedQueries: z.number().int().nonnegative().max(1_000_000),
      })
      .partial()
      .strict()
      .default({}),
    /**
     * `ASSETQL_EXPORT_LIMITS`: JSON bounds on export downloads (docs/exports.md), e.g.
     * `{ "maxConcurrent": 6, "maxPerTenant": 2, "firstByteSeconds": 10, "idleSeconds": 120 }`;
     * unnamed bounds keep their defaults (`DEFAULT_EXPORT_LIMITS`).
     */
    exportLimits: z
      .object({
        maxConcurrent: z.number().int().positive(),
        maxPerTenant: z.number().int().positive(),
        firstByteSeconds: z.number().positive().max(86_400),
        idleSeconds: z.number().positive().max(86_400),
      })
      .partial()
      .strict()
      .refine((l) => (l.maxPerTenant ?? 1) <= (l.maxConcurrent ?? DEFAULT_EXPORT_LIMITS.maxConcurrent), {
        message: 'cannot exceed maxConcurrent',
        path: ['maxPerTenant'],
      })
      .default({}),
    /**
     * `ASSETQL_FAIRNESS`: JSON settings of how a process shares its time between tenants
     * (docs/security.md#fairness-between-tenants), e.g. `{ "busyAbove": 0.5, "maxQueued": 64,
     * "maxWaitMs": 10000 }`; unnamed settings keep their defaults (`DEFAULT_FAIRNESS`).
     */
    /**
     * `ASSETQL_NATS_URL`: a NATS server with JetStream (`nats://host:4222`) the change log is
     * relayed to (docs/events.md#nats-jetstream); off without.
     */
    natsUrl: z
      .string()
      .regex(/^(nats|tls):\/\/[^\s]+$/, { error: 'must be a nats:// or tls:// URL' })
      .optional(),
    /** `ASSETQL_NATS_STREAM`: the JetStream stream's name; its subjects are the name in lower case, `_` as `.` @default ASSETQL_CHANGES */
    natsStream: z
      .string()
      .regex(/^[A-Z][A-Z0-9_]{0,63}$/, { error: 'must be capital letters, digits and _, at most 64' })
      .default('ASSETQL_CHANGES'),
    /**
     * `ASSETQL_WEBHOOKS`: JSON settings of webhook delivery (docs/events.md#webhooks), e.g.
     * `{ "allowedHosts": ["hooks.internal:8443"], "timeoutMs": 5000 }`; unnamed settings keep
     * their defaults (`DEFAULT_WEBHOOKS`).
     */
    webhooks: z
      .object({
        allowedHosts: z.array(z.string().min(1).max(300)).max(100),
        retryScheduleSeconds: z
          .array(
            z
              .number()
              .min(0)
              .max(7 * 86_400),
          )
          .min(1)
          .max(20),
        timeoutMs: z.number().int().min(100).max(60_000),
        disableAfterDays: z.number().min(0).max(365),
        maxPerGroup: z.number().int().min(0).max(1000),
        maxPayloadBytes: z
          .number()
          .int()
          .min(1024)
          .max(1024 * 1024),
      })
      .partial()
      .strict()
      .default({}),
    fairness: z
      .object({
        busyAbove: z.number().gt(0).max(1),
        maxQueued: z.number().int().min(0).max(100_000),
        maxWaitMs: z.number().int().positive().max(3_600_000),
      })
      .partial()
      .strict()
      .default({}),
    /**
     * `ASSETQL_UPSTREAM_TIMEOUT_MS`: how long the gateway waits for a subgraph's answer to one of
     * its requests before answering `GATEWAY_TIMEOUT` (docs/security.md) @default 30000
     */
    upstreamTimeoutMs: z.coerce
      .number({ error: 'must be a number of milliseconds from 1 to 3600000' })
      .int({ error: 'must be a number of milliseconds from 1 to 3600000' })
      .min(1, { error: 'must be a number of milliseconds from 1 to 3600000' })
      .max(3_600_000, { error: 'must be a number of milliseconds from 1 to 3600000' })
      .default(30_000),
    /**
     * `ASSETQL_MAX_STRING_LENGTH`: the longest string any argument or input field may carry, at
     * the gateway and in every subgraph (docs/security.md) @default 100000
     */
    maxStringLength: z.coerce
      .number({ error: 'must be a number of characters from 1 to 100000000' })
      .int({ error: 'must be a number of characters from 1 to 100000000' })
      .min(1, { error: 'must be a number of characters from 1 to 100000000' })
      .max(100_000_000, { error: 'must be a number of characters from 1 to 100000000' })
      .default(DEFAULT_MAX_STRING_LENGTH),
    /** `ASSETQL_TRUSTED_DOCUMENTS`: `require` runs applied documents only (security.md) @default allow */
    trustedDocuments: z.enum(['allow', 'require']).default('allow'),
    /** `ASSETQL_INTROSPECTION`: answer introspection queries @default true, false in production */
    introspection: z.boolean().optional(),
    /**
     * `ASSETQL_DIRECT_EXECUTION`: hand an operation that one subgraph answers alone to that
     * subgraph whole (executed in process, or sent as it is) instead of planning it @default true
     */
    directExecution: z.boolean().default(true),
    /**
     * `ASSETQL_PREPARED_OPERATIONS`: answer a document seen before, which one subgraph answers
     * alone, without the gateway runtime's per-request pipeline
     * (docs/performance.md#prepared-operations) @default true
     */
    preparedOperations: z.boolean().default(true),
    /**
     * `ASSETQL_PLANNED_QUERIES`: answer the queries a subgraph can plan whole (a page of assets'
     * ids and properties) with one statement each instead of resolving them field by field
     * (docs/performance.md#planned-pages) @default true
     */
    plannedQueries: z.boolean().default(true),
    /**
     * `ASSETQL_JOINED_OPERATIONS`: execute a query one subgraph answers but for fields others add
     * to its entities as direct requests joined, instead of through the query planner
     * (docs/performance.md#joined-operations) @default true
     */
    joinedOperations: z.boolean().default(true),
    /**
     * `ASSETQL_METRICS_PORT`: serve Prometheus metrics at `/metrics` on this port, apart from the
     * API (docs/operations.md#metrics) @default off: no metric is recorded and nothing is loaded
     */
    metricsPort: z.coerce
      .number({ error: PORT_RANGE })
      .int({ error: PORT_RANGE })
      .min(0, { error: PORT_RANGE })
      .max(65535, { error: PORT_RANGE })
      .optional(),
    /** `ASSETQL_METRICS_HOST`: the address the metrics port listens on @default '127.0.0.1' */
    metricsHost: z.string().min(1).default('127.0.0.1'),
    /**
     * `ASSETQL_METRICS_MAX_OPERATIONS`: distinct operation names labelled in metrics; later ones
     * are counted under `other`, so a client inventing names cannot grow the series @default 100
     */
    metricsMaxOperations: z.coerce
      .number({ error: 'must be a number from 1 to 10000' })
      .int({ error: 'must be a number from 1 to 10000' })
      .min(1, { error: 'must be a number from 1 to 10000' })
      .max(10_000, { error: 'must be a number from 1 to 10000' })
      .default(100),
    // Tracing is set by OpenTelemetry's own variables (docs/operations.md#traces), read before
    // anything else loads (src/cli/bin.ts): `OTEL_EXPORTER_OTLP_ENDPOINT` turns it on;
    // `OTEL_EXPORTER_OTLP_PROTOCOL` (`http/protobuf` or `http/json`), `OTEL_SERVICE_NAME`,
    // `OTEL_TRACES_SAMPLER`/`OTEL_TRACES_SAMPLER_ARG` and the others apply as the SDK defines them.
  })
  .superRefine((c, ctx) => {
    if (c.secret !== undefined && c.secret.length < MIN_SECRET_LENGTH) {
      ctx.addIssue({
        code: 'custom',
        message: `ASSETQL_SECRET must be at least ${MIN_SECRET_LENGTH} characters`,
      });
    }
    if (c.databaseSessionUrl !== undefined && c.databaseUrl === undefined)
      ctx.addIssue({
        code: 'custom',
        message:
          'ASSETQL_DATABASE_SESSION_URL is the direct way to the database that DATABASE_URL reaches through a pooler: set DATABASE_URL too',
      });
    if (c.databaseReadUrls?.length && c.databaseUrl === undefined)
      ctx.addIssue({ code: 'custom', message: 'ASSETQL_DATABASE_READ_URLS are replicas of DATABASE_URL' });
    if (c.env === 'demo') return;
    const need = (ok: unknown, variable: string, why: string) => {
      if (!ok) ctx.addIssue({ code: 'custom', message: `${variable} is required in ${c.env}: ${why}` });
    };
    need(c.baseUrl, 'ASSETQL_BASE_URL', 'the public base URL of the service');
    need(c.secret, 'ASSETQL_SECRET', `a random secret of at least ${MIN_SECRET_LENGTH} characters`);
    if (c.env === 'production') need(c.databaseUrl, 'DATABASE_URL', 'production runs on PostgreSQL');
    if (c.secret !== undefined && c.secret.length < MIN_SECRET_LENGTH) {
      ctx.addIssue({
        code: 'custom',
        message: `ASSETQL_SECRET must be at least ${MIN_SECRET_LENGTH} characters`,
      });
    }
  });

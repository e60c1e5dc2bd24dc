/**
 * The longest string any argument or input field may carry, in UTF-16 code units (JavaScript's
 * `length`), unless `ASSETQL_MAX_STRING_LENGTH` sets another (docs/security.md). It bounds what
 * no field-specific rule does: a name, a description, a string inside a JSON property value.
 * Fields with a domain of their own are held to tighter limits where they are handled (device
 * names, usernames, passwords, filter strings).
 */
export const DEFAULT_MAX_STRING_LENGTH = 100_000;

/**
 * The longest list any argument, input field or variable may hold, unless
 * `ASSETQL_DOCUMENT_LIMITS` sets another `maxListLength`: the largest list the API takes anywhere
 * (a write batch, a page) is 1,000 items, so a longer one is refused before it is coerced, priced
 * or resolved rather than after (docs/security.md#lists).
 */
export const DEFAULT_MAX_LIST_LENGTH = 1_000;

/**
 * Statements each PostgreSQL connection keeps prepared by name (`ASSETQL_DB_PREPARED_STATEMENTS`):
 * the ones the process repeats; 0 for a transaction-mode pooler.
 */
export const DEFAULT_PREPARED_STATEMENTS = 100;

/** The gateway's limits on one request (docs/security.md); each can be set in `documentLimits`. */
export const DEFAULT_DOCUMENT_LIMITS = {
  /** Nesting of selection sets, a fragment spread counted as a level (the tests reach 14). */
  maxDepth: 20,
  /** Aliased fields in one operation. */
  maxAliases: 30,
  /** Directives in one operation. */
  maxDirectives: 20,
  /**
   * Estimated cost (GraphQL Cost Specification over the schema's `@cost`/`@listSize`, variables
   * read): about one per object resolved, lists counted at their page size or declared maximum.
   */
  maxCost: 20_000_000,
  /** Lexical tokens in the document. */
  maxTokens: 10_000,
  /** Request body, also of a GET's query string (HTTP 413 beyond). */
  maxBodyBytes: 4 * 1024 * 1024,
  /** Operations in one array-of-operations request; 0 refuses arrays. */
  maxBatch: 10,
  /** `variables` as JSON text. */
  maxVariablesBytes: 2 * 1024 * 1024,
  /** Nesting of objects and arrays within `variables`. */
  maxVariablesDepth: 32,
  /** Items in one list of an argument, input field or variable (the largest the API takes: 1,000). */
  maxListLength: DEFAULT_MAX_LIST_LENGTH,
  /** Fields a subgraph resolves for one request; execution stops with `RESPONSE_TOO_LARGE` beyond. */
  maxFields: 1_000_000,
  /** Related assets (`Asset.related`) one request may reach in all; `RELATED_LIMIT` beyond. */
  maxRelated: 50_000,
  /**
   * Errors in one response (a field failing on every row of a page, under many aliases); the
   * response stops with `RESPONSE_TOO_LARGE` beyond. A page of 1,000 with one error a row fits.
   */
  maxErrors: 1_000,
  /** Texts APQ registers at the gateway, the least recently used going first; 0: none. */
  maxPersistedQueries: 2_000,
} as const;

export type DocumentLimits = { readonly [K in keyof typeof DEFAULT_DOCUMENT_LIMITS]: number };

/**
 * The most trusted documents a deployment keeps (docs/security.md#trusted-documents): two full
 * manifests (10,000 each). Every gateway holds them all, parsed, outside the document cache's
 * bounds, so `assetql documents apply` refuses a manifest that would pass it, and a process loads
 * no more than it.
 */
export const MAX_TRUSTED_DOCUMENTS = 20_000;

/** Bounds on export downloads in one process (docs/exports.md); each can be set in `exportLimits`. */
export const DEFAULT_EXPORT_LIMITS = {
  /** Downloads streaming at once; each holds a pooled database connection while it streams. */
  maxConcurrent: 3,
  /** Seconds a download waits for its reader to ask for the first bytes before its slot is freed. */
  firstByteSeconds: 10,
  /** Seconds a download waits for its reader to ask for more before it is cut off. */
  idleSeconds: 120,
} as const;

export type ExportLimits = {
  readonly [K in keyof typeof DEFAULT_EXPORT_LIMITS]: number;
} & {
  /** Downloads one tenant may stream at once @default max(1, floor(maxConcurrent / 2)) */
  readonly maxPerTenant: number;
};

/**
 * The export bounds with every unnamed one at its default. A tenant's share defaults to half the
 * slots (at least one), so that one tenant never holds them all while there are two or more.
 */
export function exportLimits(given: Partial<ExportLimits> = {}): ExportLimits {
  const maxConcurrent = given.maxConcurrent ?? DEFAULT_EXPORT_LIMITS.maxConcurrent;
  return Object.freeze({
    ...DEFAULT_EXPORT_LIMITS,
    maxPerTenant: Math.max(1, Math.floor(maxConcurrent / 2)),
    ...given,
  });
}

/**
 * How one process shares its event loop between tenants (src/gateway/fairness.ts,
 * docs/security.md#fairness-between-tenants); each can be set in `fairness`.
 */
export const DEFAULT_FAIRNESS = {
  /**
   * Event-loop utilisation (0–1) above which a tenant that has had more than its even share of
   * the process's recent running time runs one request at a time, the rest waiting their turn.
   * 1 turns sharing off.
   */
  busyAbove: 0.5,
  /** Requests of one tenant that may wait at once; beyond, `429 REQUEST_RATE_LIMITED`. */
  maxQueued: 64,
  /** Longest a request waits for its turn before it is answered `429 REQUEST_RATE_LIMITED`. */
  maxWaitMs: 10_000,
} as const;

export type Fairness = { readonly [K in keyof typeof DEFAULT_FAIRNESS]: number };

/**
 * Webhook delivery (docs/events.md#webhooks): the retry schedule is Standard Webhooks' (Svix's),
 * each wait drawn within ±20% of its value; a failing endpoint is disabled after
 * `disableAfterDays` of failures, or at once by a `410 Gone`.
 */
export const DEFAULT_WEBHOOKS = {
  /** Hosts (`host` or `host:port`) a webhook may reach though they resolve to a private, loopback or link-local address. */
  allowedHosts: [] as readonly string[],
  /** Seconds before each attempt: the first at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
  retryScheduleSeconds: [0, 5, 300, 1800, 7200, 18000, 36000, 36000] as readonly number[],
  /** One attempt's bound, connecting to reading the answer's first 4 kB. */
  timeoutMs: 10_000,
  disableAfterDays: 5,
  /** Webhooks one group may have. */
  maxPerGroup: 20,
  /** A payload larger than this carries the change's cursor instead of its patch and values. */
  maxPayloadBytes: 20 * 1024,
};

export type WebhookSettings = Readonly<typeof DEFAULT_WEBHOOKS>;

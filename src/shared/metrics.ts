/**
 * What the parts of assetql report for the operator's metrics (docs/operations.md#metrics). The
 * gateway, the subgraphs and the server record through this interface; the Prometheus registry
 * behind it (src/observability/prometheus.ts) is loaded only when `ASSETQL_METRICS_PORT` is set.
 * Off, every call goes to {@link NO_METRICS}, which does nothing: no work, no state, no import.
 *
 * Every label value passed here comes from a fixed set (an outcome, a limit's name, a subgraph's
 * name, an export format) except the operation name, which the recorder caps.
 */
export interface Metrics {
  /** A GraphQL request at the gateway, by operation name and outcome, and its time. */
  operation(name: string | null | undefined, outcome: OperationOutcome, seconds: number): void;
  /** A GraphQL request answered as a prepared operation, without the per-request pipeline (docs/performance.md#prepared-operations). */
  preparedOperation(): void;
  /**
   * A query a subgraph has a plan for: answered by the plan, or declined by it and executed
   * field by field (docs/performance.md#planned-pages).
   */
  plannedQuery(subgraph: string, outcome: 'answered' | 'declined'): void;
  /**
   * A query the gateway joins from direct requests: answered so, or declined for `reason` (`cost`,
   * `errors`, `budget`, `shape`) and left to the runtime's planner (docs/performance.md#joined-operations).
   */
  joinedOperation(outcome: 'answered' | 'declined', reason?: string): void;
  /** A request from the gateway to a subgraph (over HTTP or in process), and its time. */
  subgraphRequest(subgraph: string, outcome: 'ok' | 'error', seconds: number): void;
  /** A session ID looked up: found in the resolver's cache, or read from the database. */
  sessionLookup(result: 'hit' | 'miss'): void;
  /** An export download started streaming. */
  exportStarted(format: string): void;
  /** Bytes of an export sent. */
  exportBytes(format: string, bytes: number): void;
  /** An export download ended: `done`, or cut off (`aborted`, `idle`, `failed`). */
  exportEnded(format: string, end: string): void;
  /** A sign-in answered: `session`, `challenge`, or the failure's type (a catalogue value). */
  signIn(outcome: string): void;
  /** A request refused by a rate limit (auth's per-address limits), a document limit or trusted documents (by code). */
  refusal(kind: 'rate_limit' | 'document_limit' | 'trusted_document', limit: string): void;
  /** The wait for a pooled database connection. */
  poolWait(seconds: number): void;
  /** Readings stored from a source of telemetry (`mqtt`, `graphql`). */
  readingsStored(source: string, count: number): void;
  /** A telemetry message refused to the dead letter, by reason (docs/telemetry.md). */
  deadLetter(reason: string): void;
}

/**
 * `ok`: executed without errors; `error`: executed with errors; `refused`: never executed (a
 * document that does not parse, validate, or keep within the limits).
 */
export type OperationOutcome = 'ok' | 'error' | 'refused';

const nothing = () => {};

/** Metrics off: every call is a no-op. */
export const NO_METRICS: Metrics = {
  operation: nothing,
  preparedOperation: nothing,
  plannedQuery: nothing,
  joinedOperation: nothing,
  subgraphRequest: nothing,
  sessionLookup: nothing,
  exportStarted: nothing,
  exportBytes: nothing,
  exportEnded: nothing,
  signIn: nothing,
  refusal: nothing,
  poolWait: nothing,
  readingsStored: nothing,
  deadLetter: nothing,
};

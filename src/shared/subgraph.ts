import type { DocumentNode, ExecutionResult, GraphQLSchema } from 'graphql';
import type { Identity } from './identity.ts';

/**
 * What a built subgraph offers whoever serves it (src/server/), and our gateway when both run in
 * one process: its schema, its HTTP handler, and execution without HTTP.
 */
export interface Subgraph {
  readonly name: string;
  readonly typeDefs: string;
  /** The executable subgraph schema (with the federation fields `_service` and `_entities`). */
  readonly schema: GraphQLSchema;
  /** Serves `/graphql` and the subgraph's other routes. */
  fetch(input: string | URL | Request, init?: RequestInit): Response | Promise<Response>;
  /** Serves a request that came over the network from `remoteAddress` (the TCP peer). */
  handle(request: Request, remoteAddress?: string): Response | Promise<Response>;
  /**
   * Executes a document against this subgraph's schema with the same context, checks and error
   * masking as a request over HTTP, minus the HTTP: no JSON in between, no identity token.
   */
  executeLocally(operation: LocalOperation): Promise<LocalResult>;
  /**
   * Runs a subscription the same way: its events as they come, each a response of its own, or
   * one result when it is refused at its start. Ending the iterator ends the subscription.
   */
  subscribeLocally(
    operation: LocalOperation,
  ): Promise<AsyncIterableIterator<ExecutionResult> | ExecutionResult>;
}

/**
 * Where a subscription event's payload may carry its id (a change's cursor): its result then
 * carries it as `extensions.eventId`, which the gateway writes as the SSE event's `id`.
 */
export const EVENT_ID: unique symbol = Symbol.for('assetql.eventId');

/** An operation the gateway hands to a subgraph in the same process, already validated. */
export interface LocalOperation {
  document: DocumentNode;
  operationName?: string | null;
  variableValues?: Readonly<Record<string, unknown>> | null;
  /** Who is calling, as the gateway resolved it: in one process there is no header to verify. */
  identity: Identity;
  requestId: string;
  /**
   * Whether the document is one the caller hands again and again (a client's, kept by the
   * gateway's document cache), so compiling it once pays: a query planner's subgraph documents
   * are made anew for every request, and compiling each would cost more than running it.
   * @default true
   */
  reused?: boolean;
  /**
   * Whether the caller (our gateway, in this process, under the same limits) has admitted the
   * variables already: their size, nesting, strings and lists are not looked at again @default false
   */
  checked?: boolean;
  /** Aborted when the caller stops waiting (its timeout, its client gone): resolving stops. */
  signal?: AbortSignal;
  /** The SSE `Last-Event-ID` the client sent, for a subscription that resumes after it. */
  lastEventId?: string | null;
  /**
   * A subscription's results are only read by the caller, never changed: one event's result may
   * be shared by every stream of the same operation, variables and caller @default false
   */
  shared?: boolean;
}

export interface LocalResult {
  result: ExecutionResult;
  /** What the resolvers asked to put on the HTTP response (as the served form would). */
  responseHeaders: Headers;
}

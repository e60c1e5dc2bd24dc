import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import {
  clientClosed,
  isClientGone,
  isDatabaseUnavailable,
  isStatementTimeout,
  isUpstreamTimeout,
  serviceUnavailable,
  statementTimedOut,
  upstreamTimedOut,
} from './errors.ts';
import type { Logger } from './logger.ts';

/** What a client reads in place of an error it was not meant to see. */
export const UNEXPECTED_MESSAGE = 'Unexpected error.';

/** By name, not class: a second copy of `graphql` (CJS beside ESM) must not unmask errors. */
export function isGraphQLError(e: unknown): e is GraphQLError {
  return e instanceof Error && e.name === 'GraphQLError';
}

/**
 * Masking for the gateway and every subgraph (Yoga's `maskError`): an error written for the
 * client (a GraphQLError that wraps no other error) passes as it is; anything else is
 * {@link unexpectedError}.
 * @param what the log message for an unexpected error, saying where it happened
 */
export function maskError(error: unknown, log: Logger, what: string): GraphQLError {
  if (!isGraphQLError(error)) return unexpectedError(error, log, what);
  if (!error.originalError || isGraphQLError(error.originalError)) return error;
  // Where it happened stays (the field's path and place in the document), as Yoga's own mask keeps it.
  const masked = unexpectedError(error.originalError, log, what);
  return new GraphQLError(masked.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: masked.extensions,
  });
}

/**
 * Logs an error nobody expected, in full, and returns what a client may see of it: that the
 * service is unavailable for a moment when the database cannot be reached (nothing was done,
 * retry), otherwise a generic message. The gateway adds the correlation id ({@link withRequestId}).
 */
export function unexpectedError(error: unknown, log: Logger, what: string): GraphQLError {
  // Nobody is left to read the answer (it is answered 499): not a fault of the service.
  if (isClientGone(error)) {
    log.debug({ err: error }, 'client closed the connection before the answer');
    return clientClosed();
  }
  if (isDatabaseUnavailable(error)) {
    log.warn({ err: error }, 'database unavailable');
    return serviceUnavailable();
  }
  if (isStatementTimeout(error)) {
    log.warn({ err: error }, 'statement timeout');
    return statementTimedOut();
  }
  if (isUpstreamTimeout(error)) {
    log.warn({ err: error }, 'subgraph did not answer in time');
    return upstreamTimedOut();
  }
  log.error({ err: error }, what);
  return new GraphQLError(UNEXPECTED_MESSAGE, { extensions: { code: 'INTERNAL_SERVER_ERROR' } });
}

/** A masked error as the client gets it: with the request's correlation id, for a user to quote. */
export function withRequestId(error: GraphQLError, requestId: string): GraphQLFormattedError {
  return { ...error.toJSON(), extensions: { ...error.extensions, requestId } };
}

/** Anything thrown, as a GraphQLError (the original kept for masking and the log). */
export function toGraphQLError(e: unknown): GraphQLError {
  if (isGraphQLError(e)) return e;
  return new GraphQLError(e instanceof Error ? e.message : String(e), {
    originalError: e instanceof Error ? e : undefined,
  });
}

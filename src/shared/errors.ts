import { GraphQLError } from 'graphql';

export function unauthenticated(): GraphQLError {
  return new GraphQLError('Sign in to use this field.', { extensions: { code: 'UNAUTHENTICATED' } });
}

// Node's socket errors and PostgreSQL's connection-exception (08) and shutdown (57P0x) states.
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
const UNAVAILABLE_MESSAGE =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection refused)/i;

/**
 * The client closed its connection before its request was read or answered: nobody is left to
 * answer, and nothing is wrong with the service (answered 499 and logged at debug level).
 */
export class ClientGoneError extends Error {
  constructor(cause?: unknown) {
    super('The client closed the connection.', { cause });
    this.name = 'ClientGoneError';
  }
}

/** What a request whose client has gone is stopped with (nobody reads it: it is answered 499). */
export function clientClosed(): GraphQLError {
  return new GraphQLError('The client closed the connection.', {
    extensions: { code: 'CLIENT_CLOSED_REQUEST' },
  });
}

/** True when `error` is (or wraps) a {@link ClientGoneError}. */
export function isClientGone(error: unknown): boolean {
  let e = error;
  for (let depth = 0; e instanceof Error && depth < 5; depth++) {
    if (e.name === 'ClientGoneError') return true;
    e = (e as { originalError?: unknown }).originalError ?? (e as { cause?: unknown }).cause;
  }
  return false;
}

/** True when `error` says the database could not be reached, not that a statement failed. */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (isClientGone(error)) return false;
  let e = error;
  for (let depth = 0; e instanceof Error && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (UNAVAILABLE_CODES.has(code) || /^(08|57P0[123])/.test(code)))
      return true;
    if (UNAVAILABLE_MESSAGE.test(e.message)) return true;
    // AggregateError (every address refused) and wrapped causes.
    e = (e as { errors?: unknown[] }).errors?.[0] ?? (e as { cause?: unknown }).cause;
  }
  return false;
}

/** What a caller sees while the database cannot be reached: retry, nothing was done. */
export function serviceUnavailable(): GraphQLError {
  return new GraphQLError('The service is unavailable for a moment; try again shortly.', {
    extensions: { code: 'SERVICE_UNAVAILABLE' },
  });
}

/** PostgreSQL's query_canceled: here, a statement that ran past `statement_timeout`. */
const QUERY_CANCELED = '57014';

/** True when `error` is a statement cancelled for running past the statement timeout. */
export function isStatementTimeout(error: unknown): boolean {
  let e = error;
  for (let depth = 0; e instanceof Error && depth < 5; depth++) {
    if ((e as { code?: unknown }).code === QUERY_CANCELED) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * What a caller sees of a statement that ran past the statement timeout (docs/security.md):
 * the request asked for more work than the service does for one request; nothing was changed.
 */
export function statementTimedOut(): GraphQLError {
  return new GraphQLError('The request took too long and was stopped; ask for less at once.', {
    extensions: { code: 'TIMEOUT' },
  });
}

/** True when `error` is (or wraps) a request to a subgraph given up after its timeout. */
export function isUpstreamTimeout(error: unknown): boolean {
  let e = error;
  for (let depth = 0; e instanceof Error && depth < 5; depth++) {
    if (e.name === 'TimeoutError') return true;
    e = (e as { originalError?: unknown }).originalError ?? (e as { cause?: unknown }).cause;
  }
  return false;
}

/** What a caller sees when a subgraph did not answer within the upstream timeout. */
export function upstreamTimedOut(): GraphQLError {
  return new GraphQLError('A part of the service did not answer in time; try again shortly.', {
    extensions: { code: 'GATEWAY_TIMEOUT' },
  });
}

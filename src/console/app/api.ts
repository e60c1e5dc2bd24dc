// The console's one way to the service: POST to the GraphQL endpoint of its own origin, with the
// session cookie (`credentials: 'same-origin'`), as any client application would. The cookie is
// HttpOnly: the console never sees the session ID, only what the API says of the session.

/**
 * The session is gone (expired, ended elsewhere, signed out): the API answered UNAUTHENTICATED,
 * or, where only trusted documents run, refused a text the session's explorer right ran before
 * (QUERY_NOT_IN_SAFELIST: the caller is anonymous now).
 */
export class SessionEndedError extends Error {
  override name = 'SessionEndedError';
  constructor() {
    super('Your session has ended. Sign in again to continue.');
  }
}

/** Any other failure, with what a person can act on: the message, and the id to quote to support. */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly code: string | undefined;
  readonly requestId: string | undefined;
  constructor(message: string, code?: string, requestId?: string) {
    super(message);
    this.code = code;
    this.requestId = requestId;
  }
}

interface GraphQLError {
  message: string;
  extensions?: { code?: unknown; requestId?: unknown };
}

/** What a mutation answers of its own failures (`errors: [{ type, message }]`). */
export interface PayloadError {
  type: string;
  message: string;
}

export type Variables = Record<string, unknown>;

/** Whether a failure is the abort of a request the console no longer wants (the page moved on). */
export function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

/** A message for a person, with the request id when the server gave one. */
export function describe(error: unknown): string {
  if (error instanceof ApiError && error.requestId && error.code === 'INTERNAL_SERVER_ERROR')
    return `${error.message} Quote request id ${error.requestId} to support.`;
  if (error instanceof Error) return error.message;
  return String(error);
}

export class Api {
  readonly #endpoint: string;
  readonly #fetch: typeof fetch;

  constructor(endpoint: string, fetchImpl: typeof fetch = (input, init) => fetch(input, init)) {
    this.#endpoint = endpoint;
    this.#fetch = fetchImpl;
  }

  /**
   * Runs an operation and gives its data. Throws {@link SessionEndedError} when any error says
   * UNAUTHENTICATED, {@link ApiError} for every other error (the console asks only what it may),
   * and the abort when `signal` aborts.
   */
  async request<T>(query: string, variables: Variables = {}, signal?: AbortSignal): Promise<T> {
    let response: Response;
    try {
      response = await this.#fetch(this.#endpoint, {
        method: 'POST',
        credentials: 'same-origin',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json, application/json',
        },
        body: JSON.stringify({ query, variables }),
        signal,
      });
    } catch (e) {
      if (isAbort(e)) throw e;
      throw new ApiError('The server could not be reached. Check the connection and try again.', 'NETWORK');
    }
    const requestId = response.headers.get('x-request-id') ?? undefined;
    let body: { data?: T | null; errors?: GraphQLError[] };
    try {
      body = (await response.json()) as typeof body;
    } catch (e) {
      if (isAbort(e)) throw e;
      throw new ApiError(
        `The server answered ${response.status} without a GraphQL response.`,
        `HTTP_${response.status}`,
        requestId,
      );
    }
    const errors = body.errors ?? [];
    if (errors.some(endsSession)) throw new SessionEndedError();
    if (errors.length > 0 || body.data === null || body.data === undefined) {
      const first = errors[0];
      const code = typeof first?.extensions?.code === 'string' ? first.extensions.code : undefined;
      const id = typeof first?.extensions?.requestId === 'string' ? first.extensions.requestId : requestId;
      throw new ApiError(first?.message ?? `The server answered ${response.status} with no data.`, code, id);
    }
    return body.data;
  }

  /**
   * Opens a subscription over GraphQL over SSE (distinct connections mode): the same POST, asking
   * for `text/event-stream`, and the stream's body as it arrives. A refusal answered as JSON
   * instead throws as {@link request} does; the abort of `signal` ends the stream.
   */
  async stream(
    query: string,
    variables: Variables,
    signal: AbortSignal,
  ): Promise<ReadableStream<Uint8Array>> {
    let response: Response;
    try {
      response = await this.#fetch(this.#endpoint, {
        method: 'POST',
        credentials: 'same-origin',
        cache: 'no-store',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ query, variables }),
        signal,
      });
    } catch (e) {
      if (isAbort(e)) throw e;
      throw new ApiError('The server could not be reached for live updates.', 'NETWORK');
    }
    if (response.ok && response.body && response.headers.get('content-type')?.startsWith('text/event-stream'))
      return response.body;
    const requestId = response.headers.get('x-request-id') ?? undefined;
    let body: { errors?: GraphQLError[] } = {};
    try {
      body = (await response.json()) as typeof body;
    } catch (e) {
      if (isAbort(e)) throw e;
    }
    const errors = body.errors ?? [];
    if (errors.some(endsSession)) throw new SessionEndedError();
    const code = errors[0]?.extensions?.code;
    throw new ApiError(
      errors[0]?.message ?? `The server answered ${response.status} without an event stream.`,
      typeof code === 'string' ? code : `HTTP_${response.status}`,
      requestId,
    );
  }
}

/**
 * A mutation's own errors: none → null; UNAUTHENTICATED → the session has ended; any other →
 * the first one's message, for the form that sent it.
 */
export function payloadError(errors: readonly PayloadError[] | null | undefined): string | null {
  if (!errors || errors.length === 0) return null;
  if (errors.some((e) => e.type === 'UNAUTHENTICATED')) throw new SessionEndedError();
  return errors[0]!.message;
}

/** An error that says the session is gone (see {@link SessionEndedError}). */
function endsSession(error: GraphQLError): boolean {
  const code = error.extensions?.code;
  return code === 'UNAUTHENTICATED' || code === 'QUERY_NOT_IN_SAFELIST';
}

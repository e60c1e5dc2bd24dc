import { createRequire } from 'node:module';
import { buildSubgraphSchema } from '@apollo/subgraph';
import { type ExecutionResult, GraphQLError, parse, print } from 'graphql';
import type { Pool } from 'undici';
import { isUpstreamTimeout, upstreamTimedOut } from '../../shared/errors.ts';
import { IDENTITY_HEADER, REQUEST_ID_HEADER } from '../../shared/identity.ts';
import { SESSION_HEADER } from '../../shared/session-policy.ts';
import type { LocalResult } from '../../shared/subgraph.ts';
import { operationAlone } from '../documents.ts';
import { Fact } from '../operation.ts';
import type { SubgraphTransport } from './transport.ts';

/** The text sent for an operation: it and the fragments it spreads, printed once. */
const PRINTED = new Fact<string>('printed alone');

/**
 * A subgraph served by another process: the operation is sent to it as the client wrote it, with
 * the signed identity and the correlation id, and its answer is the operation's answer. Only the
 * operation and the fragments it spreads are sent (printed once per operation): the document's
 * other operations may select what this subgraph does not have, and would fail its validation.
 * Failing to reach it is reported as the planner reports it (`SUBREQUEST_HTTP_ERROR`, which the
 * gateway turns into SERVICE_UNAVAILABLE), and the request's signal ending the wait (its
 * upstream timeout) as `GATEWAY_TIMEOUT`. Errors come back as the subgraph wrote them; the gateway
 * names the subgraph on them and locates them in the client's document.
 */
export function remoteSubgraph(definition: {
  name: string;
  typeDefs: string;
  url: string;
}): SubgraphTransport {
  const unavailable = (reason: string): LocalResult => ({
    result: {
      data: null,
      errors: [new GraphQLError(reason, { extensions: { code: 'SUBREQUEST_HTTP_ERROR' } })],
    },
    responseHeaders: new Headers(),
  });
  // One pool of keep-alive connections per subgraph, through undici's request API: the fetch API
  // over the same client cost the gateway several times more per request (Request, Headers and
  // stream objects for every call).
  const target = new URL(definition.url);
  const pool: Pool = new (undici().Pool)(target.origin);
  const path = `${target.pathname}${target.search}`;
  return {
    name: definition.name,
    typeDefs: definition.typeDefs,
    schema: buildSubgraphSchema({ typeDefs: parse(definition.typeDefs) }),
    async execute({ operation, variables, caller, traceHeaders, signal }) {
      const query = operation.get(PRINTED, () =>
        print(
          operation.definition
            ? operationAlone(operation.document, operation.definition)
            : operation.document,
        ),
      );
      const headers: Record<string, string> = {
        ...traceHeaders,
        'content-type': 'application/json',
        accept: 'application/graphql-response+json, application/json',
        [REQUEST_ID_HEADER]: caller.requestId,
      };
      headers[IDENTITY_HEADER] = caller.signedIdentity();
      let status: number;
      let responseHeaders: Headers;
      let text: string;
      let body: ExecutionResult;
      try {
        const response = await pool.request({
          path,
          method: 'POST',
          headers,
          body: JSON.stringify({
            query,
            operationName: operation.operationName ?? undefined,
            variables,
          }),
          ...(signal ? { signal } : {}),
        });
        status = response.statusCode;
        responseHeaders = relayable(response.headers);
        text = await response.body.text();
        if (status >= 200 && status < 300 && text.startsWith('{"data":') && !text.includes('"errors":')) {
          // No errors (looked for anywhere, not trusted to come first): the subgraph's JSON is
          // the answer as it stands, so it is passed on as text and parsed only if someone reads
          // it. A property named `errors` somewhere in the data only costs the parse.
          return { result: passedOn(text), responseHeaders };
        }
        // Refused by the subgraph for what the gateway sent, not for what the client asked (a
        // signed identity it does not verify: secrets that differ; a body over its bound): the
        // operator's to mend, answered as the subgraph being unavailable, never as the client's.
        if (status >= 401 && status < 500)
          return unavailable(`the subgraph refused the gateway's request with status ${status}`);
        body = JSON.parse(text) as ExecutionResult;
      } catch (e) {
        if (isUpstreamTimeout(e) || isUpstreamTimeout(signal?.reason))
          return { result: { data: null, errors: [upstreamTimedOut()] }, responseHeaders: new Headers() };
        if (signal?.aborted) throw signal.reason;
        return unavailable((e as Error).message);
      }
      if (!body || typeof body !== 'object' || (!('data' in body) && !body.errors)) {
        return unavailable(`unexpected answer with status ${status}`);
      }
      // A request error (no `data`, status 400: a limit the subgraph holds) is the client's, as a
      // subgraph in this process marks it: answered 400 by this gateway too, not 200 (Yoga writes
      // the status, not the `http` extension that set it).
      const refused = status === 400 && !('data' in body);
      const errors = body.errors?.map(
        (e) =>
          new GraphQLError(e.message, {
            path: e.path,
            extensions: { ...e.extensions, ...(refused ? { http: { status: 400 } } : {}) },
          }),
      );
      return {
        result: { ...body, ...(errors ? { errors } : {}) },
        responseHeaders,
      };
    },
    close: () => pool.close(),
  };
}

/** What of a subgraph's answer headers may reach the client: a session change (the session cookie and header). */
function relayable(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const name of ['set-cookie', SESSION_HEADER]) {
    const value = raw[name];
    if (Array.isArray(value)) for (const one of value) headers.append(name, one);
    else if (value !== undefined) headers.set(name, value);
  }
  return headers;
}

/** The subgraph's JSON text of a {@link passedOn} answer, and the answer parsed once asked for. */
const TEXT = Symbol('text');
const PARSED = Symbol('parsed');
type PassedOn = ExecutionResult & { [TEXT]: string; [PARSED]?: ExecutionResult };

/**
 * An answer kept as the subgraph's JSON text: Yoga writes `stringify(result)`, `data` parses on
 * demand. The getter and the serialiser are shared functions, not closures over each answer's
 * text: with an accessor made for each answer, the text outlived the request to be collected only
 * by a full collection, 17 kB a page of 100 wells (docs/performance.md, "Rows that outlived their
 * statement").
 */
function passedOn(text: string): ExecutionResult {
  const result = { [TEXT]: text, stringify: passedOnText } as PassedOn;
  Object.defineProperty(result, 'data', { enumerable: true, get: passedOnData });
  return result;
}

function passedOnText(result: PassedOn): string {
  return result[TEXT];
}

function passedOnData(this: PassedOn): ExecutionResult['data'] {
  this[PARSED] ??= JSON.parse(this[TEXT]) as ExecutionResult;
  return this[PARSED].data;
}

/** undici, loaded when a remote subgraph is first reached: a process with none never loads it (~6 MB). */
let loaded: typeof import('undici') | undefined;
function undici(): typeof import('undici') {
  loaded ??= createRequire(import.meta.url)('undici') as typeof import('undici');
  return loaded;
}

import { isRefused } from '../execution/admit.ts';
import { bodyBytes } from '../execution/request-body.ts';
import { plainRequest, respond } from '../execution/respond.ts';
import type { SubgraphExecution } from '../execution/subgraph.ts';
import { IDENTITY_HEADER, type Identity, REQUEST_ID_HEADER } from '../shared/identity.ts';
import { type Metrics, NO_METRICS } from '../shared/metrics.ts';
import type { BaseContext } from './options.ts';

export interface EarlyDoorOptions<C extends BaseContext> {
  execution: SubgraphExecution<C>;
  /** The signed identity's caller, or undefined when the token is refused (Yoga answers the 401). */
  verify(token: string): Promise<Identity | undefined>;
  /** The request's context, as Yoga's would be made for the same caller (stopped when `request` is aborted). */
  context(identity: Identity, requestId: string, request: Request): Promise<C>;
  /** The server adapter's response class. */
  responseClass(): { new (body?: BodyInit | null, init?: ResponseInit): Response };
  metrics?: Metrics;
}

/**
 * A subgraph's early door (src/execution/README.md): a plain request from our gateway (its
 * identity signed) for an operation this subgraph's Yoga has validated before is admitted and
 * answered by the subgraph's execution as every door answers it (its admission: variables, input
 * limits, coercion, price; its answer: plan, compiled or graphql-js, budget, masking), and written
 * as Yoga writes an answer, errors included, without Yoga's pipeline. Its body has been read
 * within the subgraph's bound and its identity is verified for each request; a token that does
 * not verify, or anything the door does not look at, goes to Yoga. Requests without our identity
 * (another router's, with a forwarded session) always take Yoga's path.
 *
 * Answers the request, or undefined for Yoga to answer it; called once its body is read.
 */
export function earlyDoor<C extends BaseContext>(
  options: EarlyDoorOptions<C>,
): (request: Request) => Promise<Response | undefined> {
  const { execution } = options;
  const metrics = options.metrics ?? NO_METRICS;
  return async (request) => {
    const token = request.headers.get(IDENTITY_HEADER);
    if (token === null) return undefined;
    const asked = plainRequest(request);
    if (!asked) return undefined;
    const operation = execution.operations.find(asked.query, asked.operationName);
    if (!operation || request.signal.aborted) return undefined;
    const identity = await options.verify(token);
    if (!identity) return undefined;
    const requestId = request.headers.get(REQUEST_ID_HEADER) ?? crypto.randomUUID();
    const context = await options.context(identity, requestId, request);
    const admission = execution.admit(operation, {
      variables: asked.variables,
      requestBytes: bodyBytes(request),
    });
    const result = isRefused(admission)
      ? { errors: [...admission.refused] }
      : await execution.answer(operation, admission, context);
    metrics.preparedOperation();
    const response = respond(result, asked.mediaType, options.responseClass());
    // As Yoga's answers get what the resolvers set (the subgraph's onResponse hook).
    for (const [key, value] of context.responseHeaders) {
      if (key === 'set-cookie') response.headers.append(key, value);
      else response.headers.set(key, value);
    }
    return response;
  };
}

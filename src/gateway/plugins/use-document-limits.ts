import type { DocumentLimits } from '../../config/index.ts';
import { documentShapeLimits } from '../../execution/document-limits.ts';
import type { Operations } from '../../execution/operation.ts';
import { bodyTooLarge, readBody, useReadBody } from '../../execution/request-body.ts';
import { type Metrics, NO_METRICS } from '../../shared/metrics.ts';
import type { Plugin } from '../http.ts';

/**
 * Refuses requests too large or too complex to be honest work (docs/security.md): a body over
 * `maxBodyBytes` before anything of it is parsed; documents too deep, with too many aliases,
 * directives or tokens (src/execution/document-limits.ts, the same rules every subgraph applies,
 * the verdict kept with the document); field suggestions when introspection is off. Batches are
 * bounded by the runtime's `batching` option, the cost of a planned operation by its
 * `demandControl` ({@link demandControl}); what a request's variables hold is admitted with the
 * request (src/execution/admit.ts).
 */
export function useDocumentLimits(
  limits: DocumentLimits,
  introspection: boolean,
  operations: Operations,
  metrics: Metrics = NO_METRICS,
): Plugin[] {
  const refused = (limit: string) => metrics.refusal('document_limit', limit);
  return [
    ...(documentShapeLimits(limits, introspection, operations, refused) as Plugin[]),
    useReadBody() as Plugin,
    {
      async onHttpRequest(received, _context, next) {
        const read = await readBody(received, limits.maxBodyBytes);
        if (!read) {
          refused('maxBodyBytes');
          return bodyTooLarge(limits.maxBodyBytes);
        }
        return withErrorBody(await next(read.request));
      },
    },
  ];
}

/**
 * The options of the gateway runtime's demand control: the IBM GraphQL Cost Specification over
 * the `@cost`/`@listSize` the subgraphs declare, with the variables of the request, priced for
 * each subgraph request the plan makes (their sum must stay within `maxCost`); its refusal is
 * given the shape of every other limit (src/execution/shape.ts).
 */
export function demandControl(limits: DocumentLimits) {
  return { maxCost: limits.maxCost, includeExtensionMetadata: false };
}

/**
 * Yoga answers a body of a media type it does not read with an empty 415; a client gets a
 * GraphQL error instead, like every other refusal.
 */
function withErrorBody(response: Response): Response {
  if (response.status !== 415) return response;
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  headers.set('content-type', 'application/json; charset=utf-8');
  return new Response(
    JSON.stringify({
      errors: [
        {
          message: 'Send the request as application/json (or application/graphql).',
          extensions: { code: 'UNSUPPORTED_MEDIA_TYPE' },
        },
      ],
    }),
    { status: 415, headers },
  );
}

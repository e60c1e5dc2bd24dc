/**
 * The media types a GraphQL POST may have: those Yoga reads a request from (GraphQL over HTTP's
 * `application/json`, the older `application/graphql+json`, and a bare document as
 * `application/graphql`). None is one of the three a cross-site page can send without a CORS
 * preflight (Fetch standard, "CORS-safelisted request-header": `application/x-www-form-urlencoded`,
 * `multipart/form-data`, `text/plain`), and our CORS answers no preflight from an unlisted origin.
 */
const GRAPHQL_BODY_TYPES: ReadonlySet<string> = new Set([
  'application/json',
  'application/graphql+json',
  'application/graphql',
]);

/** The media type as Yoga reads it: the first of a list, without parameters. */
function mediaType(contentType: string | null): string | undefined {
  return contentType?.split(',')[0]?.split(';')[0]?.trim().toLowerCase();
}

/**
 * True for a POST that a cross-site page could send without a preflight: refused (403
 * CSRF_REJECTED) by our gateway for every GraphQL POST, and by a subgraph for a POST that does not
 * come from our gateway (behind another router). docs/auth.md, "CSRF".
 */
export function isCrossSiteSendable(request: Request): boolean {
  return (
    request.method === 'POST' && !GRAPHQL_BODY_TYPES.has(mediaType(request.headers.get('content-type')) ?? '')
  );
}

/** The answer to such a request, before its session is looked at or any GraphQL runs. */
export function csrfRejection(): Response {
  return Response.json(
    {
      errors: [
        {
          message: 'A GraphQL request must have Content-Type: application/json.',
          extensions: { code: 'CSRF_REJECTED' },
        },
      ],
    },
    { status: 403 },
  );
}

import type { Plugin } from '../http.ts';

/**
 * The media types a GraphQL POST may have: those Yoga reads a request from (GraphQL over HTTP's
 * `application/json`, the older `application/graphql+json`, and a bare document as
 * `application/graphql`). None is one of the three a cross-site page can send without a CORS
 * preflight (Fetch standard, "CORS-safelisted request-header": `application/x-www-form-urlencoded`,
 * `multipart/form-data`, `text/plain`), and our CORS answers no preflight from another origin.
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
 * CSRF: every POST to the GraphQL endpoint must be of a type that only a same-origin page (or a
 * client that is not a browser) can send; anything else is refused with 403 before its session is
 * looked at or any GraphQL runs. Not only requests that carry the session cookie: a cross-site form
 * without one can still run `signIn` and receive the cookie of an account the attacker chose
 * (login CSRF), after which the victim works, and types, in the attacker's account.
 */
export function useCsrf(): Plugin {
  return {
    async onHttpRequest(request, _context, next) {
      if (
        request.method === 'POST' &&
        !GRAPHQL_BODY_TYPES.has(mediaType(request.headers.get('content-type')) ?? '')
      ) {
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
      return next(request);
    },
  };
}

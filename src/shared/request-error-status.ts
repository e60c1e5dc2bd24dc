/**
 * HTTP 400 whatever the `Accept` header for a request that is not a GraphQL request at all (a
 * body that is not JSON, no body, params that are not an object: Yoga's `BAD_REQUEST`) or that a
 * limit refused (`extensions.limit`, docs/security.md). GraphQL over HTTP lets a server answer
 * request errors 200 under the legacy `application/json`, and Yoga does, marking them
 * `http.spec`; for these two kinds assetql follows Apollo Server instead, which answers 400
 * under every media type, so that the status alone tells a client, a proxy or a log that the
 * request was wrong. Parse, validation and variable errors keep the documented behaviour
 * (docs/schema.md §13). Yoga's copy of the JSON parser's own message (quoting the body, under
 * `extensions.originalError`) is dropped too.
 *
 * One Yoga plugin, run by the gateway and by every subgraph.
 */
export function useRequestErrorStatus() {
  return {
    onResultProcess({ result }: { result: unknown }) {
      for (const one of Array.isArray(result) ? result : [result]) {
        if (!one || typeof one !== 'object') continue;
        // Errors first: an answer passed on as a subgraph's JSON text has none, and reading its
        // `data` would parse the text only to look at it (use-direct-execution.ts, passedOn).
        const errors = (one as { errors?: readonly { extensions?: Record<string, unknown> }[] }).errors;
        if (!errors?.length || (one as { data?: unknown }).data != null) continue;
        for (const error of errors) {
          const extensions = error.extensions;
          if (!extensions) continue;
          delete extensions.originalError;
          const http = extensions.http as { spec?: boolean; status?: number } | undefined;
          if (http?.spec && (extensions.code === 'BAD_REQUEST' || extensions.limit !== undefined))
            extensions.http = { ...http, spec: false, status: http.status ?? 400 };
        }
      }
    },
  };
}

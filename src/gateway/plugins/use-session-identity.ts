import { clientAddress } from '../../shared/client-address.ts';
import {
  IDENTITY_HEADER,
  type Identity,
  type IdentitySigner,
  type SessionResolution,
} from '../../shared/identity.ts';
import { SESSION_CHANGE_HEADER, SESSION_HEADER } from '../../shared/session-policy.ts';
import { clearedSessionCookie, sessionCookie, sessionFromCookie } from '../cookies.ts';
import type { Plugin } from '../http.ts';

/** Who is calling, as resolved once per GraphQL request before it runs. */
export interface IdentityContext {
  /** The session ID the client presented, if any. */
  sessionId: string | undefined;
  identity: Identity;
  /** The identity signed for the subgraphs (`x-assetql-identity`). */
  identityToken: string | undefined;
  /** Headers for the client's answer that arise while the operation runs: session changes. */
  responseHeaders: Headers;
}

export interface SessionIdentityOptions {
  /** Turns a presented session into an identity; the auth subgraph's rules, not the gateway's. */
  sessions: SessionResolution;
  signer: IdentitySigner;
  /** The public base URL: the session cookie is Secure unless it is plain http on localhost. */
  baseUrl: string;
  /**
   * How many proxies the operator runs in front of the gateway (`ASSETQL_TRUST_PROXY`): the client
   * address is taken that many hops from the right of `X-Forwarded-For` (shared/client-address.ts).
   */
  trustedHops: number;
  /** The subgraphs whose session changes reach the client (their descriptors' `mayChangeSession`). */
  sessionChangers: ReadonlySet<string>;
}

export interface SessionIdentity extends Plugin<IdentityContext> {
  /**
   * Hands what a subgraph put on its answer to the client: a session change (`set <id> <max-age>`
   * or `clear`) from a subgraph allowed to make one becomes the session cookie, and the session
   * header for header clients.
   */
  relay(subgraph: string, headers: Headers, context: Partial<IdentityContext>): void;
}

/**
 * The caller's identity, once per GraphQL request: the session presented in `x-svc-sessionid`
 * or the `svc_sessionid` cookie is resolved, the client's address added, and the identity
 * signed for the subgraphs; session changes the auth subgraph makes go back to the client.
 */
export function useSessionIdentity(options: SessionIdentityOptions): SessionIdentity {
  const { sessions, signer, baseUrl } = options;

  function relay(subgraph: string, headers: Headers, context: Partial<IdentityContext>) {
    const change = headers.get(SESSION_CHANGE_HEADER);
    if (!change || !options.sessionChangers.has(subgraph)) return;
    if (context.sessionId) sessions.forget(context.sessionId);
    const [verb, id, maxAge] = change.split(' ');
    if (verb === 'set' && id) {
      context.responseHeaders?.append('set-cookie', sessionCookie(id, Number(maxAge ?? 0), baseUrl));
      context.responseHeaders?.append(SESSION_HEADER, id);
    } else if (verb === 'clear') {
      context.responseHeaders?.append('set-cookie', clearedSessionCookie(baseUrl));
    }
  }

  return {
    relay,
    async onHttpRequest(request, context, next) {
      const sessionId =
        request.headers.get(SESSION_HEADER) ?? sessionFromCookie(request.headers.get('cookie'));
      const identity = {
        ...(await sessions.resolve(sessionId)),
        clientIp: clientAddress(request.headers, context.remoteAddress, options.trustedHops),
      };
      context.sessionId = sessionId ?? undefined;
      context.identity = identity;
      context.identityToken = await signer.sign(identity);
      context.responseHeaders = new Headers();
      const response = await next(request);
      context.responseHeaders.forEach((value, key) => {
        response.headers.append(key, value);
      });
      return response;
    },
    // Planned operations: the signed identity to every subgraph request, session changes back.
    onFetch({ context: fetchContext, options: init, setOptions, executionRequest }) {
      const context = fetchContext as Partial<IdentityContext>;
      const { identityToken } = context;
      if (identityToken)
        setOptions({ ...init, headers: { ...init.headers, [IDENTITY_HEADER]: identityToken } });
      const subgraph = executionRequest?.subgraphName;
      if (subgraph) return ({ response }) => relay(subgraph, response.headers, context);
    },
  };
}

import { clientAddress } from '../../shared/client-address.ts';
import {
  IDENTITY_HEADER,
  type Identity,
  type IdentitySigner,
  type SessionResolution,
} from '../../shared/identity.ts';
import { presentedSession, sessionSetCookies } from '../../shared/session-cookies.ts';
import { SESSION_HEADER } from '../../shared/session-policy.ts';
import type { Plugin } from '../http.ts';

/** Who is calling, as resolved once per GraphQL request before it runs. */
export interface IdentityContext {
  /** The session ID the client presented, if any. */
  sessionId: string | undefined;
  identity: Identity;
  /** The identity signed for the subgraphs (`x-assetql-identity`), signed once when first asked for. */
  signedIdentity(): string;
  /** Headers for the client's answer that arise while the operation runs: session changes. */
  responseHeaders: Headers;
}

export interface SessionIdentityOptions {
  /** Turns a presented session into an identity; the auth subgraph's rules, not the gateway's. */
  sessions: SessionResolution;
  signer: IdentitySigner;
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
   * Hands what a subgraph put on its answer to the client: a session change (the session cookie
   * set or cleared, and the new session ID in `x-svc-sessionid` for header clients) from a
   * subgraph allowed to make one. Any router that propagates those two headers does the same
   * (docs/routers.md).
   */
  relay(subgraph: string, headers: Headers, context: Partial<IdentityContext>): void;
}

/**
 * The caller's identity, once per GraphQL request: the session presented in `x-svc-sessionid`
 * or the `svc_sessionid` cookie is resolved, the client's address added, and the identity
 * signed for the subgraphs (when they need it); session changes the auth subgraph makes go back to the client.
 */
export function useSessionIdentity(options: SessionIdentityOptions): SessionIdentity {
  const { sessions, signer } = options;

  function relay(subgraph: string, headers: Headers, context: Partial<IdentityContext>) {
    if (!options.sessionChangers.has(subgraph)) return;
    const cookies = sessionSetCookies(headers);
    if (cookies.length === 0) return;
    if (context.sessionId) sessions.forget(context.sessionId);
    for (const cookie of cookies) context.responseHeaders?.append('set-cookie', cookie);
    const id = headers.get(SESSION_HEADER);
    if (id) context.responseHeaders?.append(SESSION_HEADER, id);
  }

  return {
    relay,
    async onHttpRequest(request, context, next) {
      const sessionId = presentedSession(request.headers);
      const identity = {
        ...(await sessions.resolve(sessionId)),
        clientIp: clientAddress(request.headers, context.remoteAddress, options.trustedHops),
      };
      context.sessionId = sessionId ?? undefined;
      context.identity = identity;
      // Signed when first asked for: an operation a subgraph in this process answers whole needs
      // no token (its identity is handed over as it is); the planned form and remote subgraphs do.
      // A function, not a getter: the runtime copies the context's properties by reading them.
      let token: string | undefined;
      context.signedIdentity = () => (token ??= signer.sign(identity));
      context.responseHeaders = new Headers();
      const response = await next(request);
      // A loop, not a callback: a closure over `response` would share this call's scope with
      // `signedIdentity` above, and the answer would outlive the request with it
      // (docs/performance.md, "Rows that outlived their statement").
      for (const [key, value] of context.responseHeaders) response.headers.append(key, value);
      return response;
    },
    // Planned operations: the signed identity to every subgraph request, session changes back.
    onFetch({ context: fetchContext, options: init, setOptions, executionRequest }) {
      const context = fetchContext as Partial<IdentityContext>;
      const identityToken = context.signedIdentity?.();
      if (identityToken)
        setOptions({ ...init, headers: { ...init.headers, [IDENTITY_HEADER]: identityToken } });
      const subgraph = executionRequest?.subgraphName;
      if (subgraph) return ({ response }) => relay(subgraph, response.headers, context);
    },
  };
}

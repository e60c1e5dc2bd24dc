/**
 * A `fetch` for clients that keep the session themselves (mobile apps, servers, pages on another
 * site): sends the session ID in `x-svc-sessionid` and takes a new one from the answer's
 * `x-svc-sessionid` (after signIn, confirmSignIn, setSessionUserGroup, reauthenticate …).
 * Store `session.id` where the platform keeps secrets (Keychain, Keystore, a server's secret store).
 */
export interface SessionStore {
  id: string | undefined;
}

export function sessionFetch(session: SessionStore, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const headers = new Headers(init?.headers);
    if (session.id) headers.set('x-svc-sessionid', session.id);
    const response = await base(input, { ...init, headers });
    const next = response.headers.get('x-svc-sessionid');
    if (next) session.id = next;
    return response;
  };
}

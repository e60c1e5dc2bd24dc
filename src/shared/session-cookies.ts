import { parseCookie, stringifySetCookie } from 'cookie';
import { SESSION_COOKIE, SESSION_HEADER } from './session-policy.ts';

/**
 * The session a request presents: `x-svc-sessionid`, else the `svc_sessionid` cookie (spec §5.1).
 * Read the same way by our gateway and by a subgraph behind another router.
 */
export function presentedSession(headers: Headers): string | undefined {
  return headers.get(SESSION_HEADER) ?? sessionFromCookie(headers.get('cookie'));
}

/** The session ID from the `svc_sessionid` cookie, if any. */
export function sessionFromCookie(header: string | null): string | undefined {
  if (!header) return undefined;
  return parseCookie(header)[SESSION_COOKIE] ?? undefined;
}

/**
 * The cookie for a new session: HttpOnly, SameSite=Lax, path `/`, and Secure unless the
 * public base URL is plain http on localhost (browsers refuse Secure cookies there).
 */
export function sessionCookie(sessionId: string, maxAgeSeconds: number, baseUrl: string): string {
  return stringifySetCookie({
    name: SESSION_COOKIE,
    value: sessionId,
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: isSecureOrigin(baseUrl),
    maxAge: Math.max(0, Math.floor(maxAgeSeconds)),
  });
}

export function clearedSessionCookie(baseUrl: string): string {
  return stringifySetCookie({
    name: SESSION_COOKIE,
    value: '',
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: isSecureOrigin(baseUrl),
    maxAge: 0,
    expires: new Date(0),
  });
}

/**
 * True when a response carries a session change: a session cookie set or cleared. Only the auth
 * subgraph makes one (its descriptor's `mayChangeSession`).
 */
export function changesSession(headers: Headers): boolean {
  return sessionSetCookies(headers).length > 0;
}

/** The `Set-Cookie` values of a response that set or clear the session cookie. */
export function sessionSetCookies(headers: Headers): string[] {
  const all =
    typeof headers.getSetCookie === 'function'
      ? headers.getSetCookie()
      : (headers.get('set-cookie')?.split(/,(?=\s*[^;=\s]+=)/) ?? []);
  return all.map((c) => c.trim()).filter((c) => c.startsWith(`${SESSION_COOKIE}=`));
}

function isSecureOrigin(baseUrl: string) {
  const url = new URL(baseUrl);
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  return url.protocol === 'https:' || !local;
}

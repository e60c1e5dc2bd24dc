import { parseCookie, stringifySetCookie } from 'cookie';
import { SESSION_COOKIE } from '../shared/session-policy.ts';

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

function isSecureOrigin(baseUrl: string) {
  const url = new URL(baseUrl);
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  return url.protocol === 'https:' || !local;
}

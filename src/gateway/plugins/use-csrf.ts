import { csrfRejection, isCrossSiteSendable } from '../../shared/csrf.ts';
import type { Plugin } from '../http.ts';

/**
 * CSRF: every POST to the GraphQL endpoint must be of a type that only a same-origin page (or a
 * client that is not a browser) can send; anything else is refused with 403 before its session is
 * looked at or any GraphQL runs (shared/csrf.ts). Not only requests that carry the session cookie:
 * a cross-site form without one can still run `signIn` and receive the cookie of an account the
 * attacker chose (login CSRF), after which the victim works, and types, in the attacker's account.
 */
export function useCsrf(): Plugin {
  return {
    async onHttpRequest(request, _context, next) {
      if (isCrossSiteSendable(request)) return csrfRejection();
      return next(request);
    },
  };
}

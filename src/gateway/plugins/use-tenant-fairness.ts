import { type Metrics, NO_METRICS } from '../../shared/metrics.ts';
import { type FairnessOptions, FairScheduler, isRefusal } from '../fairness.ts';
import type { Plugin } from '../http.ts';
import type { IdentityContext } from './use-session-identity.ts';

/** The code of a request refused because its tenant has had more than its share. */
export const RATE_LIMITED = 'REQUEST_RATE_LIMITED';

/**
 * Shares the process between tenants (gateway/fairness.ts): each GraphQL request runs in its
 * tenant's turn — the user group of a signed-in caller; callers without a session are one tenant — so that one
 * tenant's costly requests queue behind each other instead of in front of everyone else's.
 * Runs after the identity is known and before anything of the operation is parsed.
 */
export function useTenantFairness(
  options: FairnessOptions,
  metrics: Metrics = NO_METRICS,
): Plugin<IdentityContext> & { close(): void } {
  const scheduler = new FairScheduler(options);
  return {
    close: () => scheduler.close(),
    async onHttpRequest(request, context, next) {
      // Signed-in callers by their group. Callers without a session share one tenant, whatever
      // their address: addresses are cheap to come by (an IPv6 prefix holds billions), and each
      // new tenant would both skip the queue and lower everyone else's share.
      const group = context.identity?.userGroup;
      const key = group ? `group:${group}` : 'anonymous';
      try {
        return await scheduler.run(key, () => next(request), request.signal);
      } catch (refusal) {
        if (!isRefusal(refusal)) throw refusal;
        // A client that left while waiting gets nothing; its request never ran.
        if (refusal.reason === 'gone') return new Response(null, { status: 499 });
        metrics.refusal('rate_limit', 'fairness');
        return Response.json(
          {
            errors: [
              {
                message: 'Too many requests from this tenant while the server is busy; try again shortly.',
                extensions: { code: RATE_LIMITED },
              },
            ],
          },
          { status: 429, headers: { 'retry-after': String(refusal.retryAfterSeconds) } },
        );
      }
    },
  };
}

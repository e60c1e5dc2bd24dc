import type { GraphQLResolveInfo } from 'graphql';
import { isAuthenticated } from '../../../shared/identity.ts';
import { withChangeStamp } from '../../../storage/change-log.ts';
import type { AssetsContext } from '../context.ts';

type Resolve = (
  root: unknown,
  args: { correlationId?: string | null },
  ctx: AssetsContext,
  info: GraphQLResolveInfo,
) => unknown;

/**
 * The mutations with every change they make recorded in the change log as the caller's: the
 * signed-in user, or the API key's owner and the key's public id; and the mutation's
 * `correlationId` (else the request's).
 */
export function stamped<M extends object>(mutations: M): M {
  const out: Record<string, Resolve> = {};
  for (const [name, resolve] of Object.entries(mutations) as [string, Resolve][]) {
    out[name] = (root, args, ctx, info) => {
      const who = ctx.identity;
      if (!isAuthenticated(who)) return resolve(root, args, ctx, info);
      const apiKey = who.kind === 'api_key';
      const stamp = {
        actorKind: apiKey ? ('API_KEY' as const) : ('USER' as const),
        actor: who.username,
        apiKeyId: apiKey ? (who.apiKeyId ?? null) : null,
        correlationId: args.correlationId ?? ctx.requestId,
      };
      return withChangeStamp(stamp, () => resolve(root, args, ctx, info));
    };
  }
  return out as M;
}

import { readFileSync } from 'node:fs';
import type { Kysely } from 'kysely';
import type pg from 'pg';
import type { Tables } from '../../storage/tables.ts';
import { createSubgraph, runtimeOf, type SubgraphRuntime } from '../../subgraph-server/index.ts';
import type { AuthContext, AuthSettings } from './context.ts';
import { createAuthCore } from './core.ts';
import { type CredentialsProvider, unconfiguredCredentialsProvider } from './credentials/provider.ts';
import type { DevicePolicy } from './device-policy.ts';
import { type OidcIssuer, OidcVerifier } from './federated/oidc.ts';
import { AuthLimiter, type AuthLimits } from './limits.ts';
import { type Messenger, outboxMessenger } from './messaging/messenger.ts';
import { resolvers } from './resolvers/index.ts';

export {
  createSessionResolution,
  type SessionResolutionOptions,
} from './sessions/resolve.ts';
export { createAccountStanding } from './sessions/standing.ts';

export const authTypeDefs = readFileSync(new URL('./schema.graphql', import.meta.url), 'utf8');

export interface AuthDeps extends SubgraphRuntime {
  db: Kysely<Tables>;
  /** The same database's pool, for the rate limiter's store. */
  pool: pg.Pool;
  /** Per-address limits @default DEFAULT_LIMITS */
  limits?: AuthLimits;
  settings: AuthSettings;
  /** The service's public base URL, for the session cookie's attributes. */
  baseUrl: string;
  /** Derives the keys that seal TOTP secrets and hash one-time codes. */
  secret: string;
  /** Where codes go @default the outbox table */
  messenger?: Messenger;
  /** Issues temporary storage credentials @default none: `credentials` answers CREDENTIALS_UNAVAILABLE */
  credentials?: CredentialsProvider;
  /** Identity providers trusted for federatedSignIn @default none */
  oidcIssuers?: readonly OidcIssuer[];
  /** When devices are remembered and for how long @default DEFAULT_DEVICE_POLICY */
  devices?: DevicePolicy;
}

/** The auth subgraph: sessions, sign-in and its challenges, API keys, devices, configuration. */
export function createAuthSubgraph(deps: AuthDeps) {
  const auth = createAuthCore({
    db: deps.db,
    clock: deps.clock,
    log: deps.log,
    secret: deps.secret,
    messenger: deps.messenger ?? outboxMessenger(deps.db),
    oidc: new OidcVerifier(deps.oidcIssuers ?? [], () => deps.clock.now()),
    devices: deps.devices,
  });
  const limiter = new AuthLimiter(deps.pool, deps.limits);
  return createSubgraph<AuthContext>({
    ...runtimeOf(deps),
    name: 'auth',
    typeDefs: authTypeDefs,
    resolvers,
    // Sessions, users, keys and devices: read where they are written, fresh (docs/deploy.md).
    replicaReads: false,
    extendContext: (base) => ({
      ...base,
      auth,
      limiter,
      credentials: deps.credentials ?? unconfiguredCredentialsProvider,
      authConfig: deps.settings,
      publicBaseUrl: deps.baseUrl,
    }),
  });
}

import type { BaseContext } from '../../subgraph-server/index.ts';
import type { AuthCore } from './core.ts';
import type { CredentialsProvider } from './credentials/provider.ts';
import type { AuthLimiter } from './limits.ts';

export interface AuthSettings {
  loginEnabled: boolean;
  ssoEnabled: boolean;
  ssoUrl: string | null;
}

export interface AuthContext extends BaseContext {
  /** What the flows work with; its database is the one every resolver reads. */
  auth: AuthCore;
  limiter: AuthLimiter;
  credentials: CredentialsProvider;
  authConfig: AuthSettings;
  /** The service's public base URL: the session cookie is Secure unless it is http on localhost. */
  publicBaseUrl: string;
}

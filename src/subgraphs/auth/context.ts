import type { Kysely } from 'kysely';
import type { BaseContext } from '../../shared/subgraph.ts';
import type { Tables } from '../../storage/tables.ts';
import type { AuthService } from './auth.service.ts';
import type { CredentialsProvider } from './credentials/provider.ts';
import type { AuthLimiter } from './limits.ts';

export interface AuthSettings {
  loginEnabled: boolean;
  ssoEnabled: boolean;
  ssoUrl: string | null;
}

export interface AuthContext extends BaseContext {
  db: Kysely<Tables>;
  auth: AuthService;
  limiter: AuthLimiter;
  credentials: CredentialsProvider;
  authConfig: AuthSettings;
}

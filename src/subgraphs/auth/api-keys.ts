import type { Kysely } from 'kysely';
import type { Identity } from '../../shared/identity.ts';
import { fail, ok } from '../../shared/result.ts';
import { lifetimeOf } from '../../shared/session-policy.ts';
import type { Tables } from '../../storage/tables.ts';
import { recordEvent } from './audit.ts';
import type { AuthCore } from './core.ts';
import type { AuthResult } from './error-codes.ts';
import { notify } from './notify.ts';
import { deleteApiKey, insertApiKey, listApiKeys } from './repository/api-keys.ts';
import { deleteApiKeySession } from './repository/sessions.ts';
import { groupsOf } from './repository/users.ts';
import { expiriesFrom } from './sessions/rules.ts';
import { openSession, REAUTHENTICATE_FIRST, recentlyAuthenticated } from './sessions.ts';

// An API key is a named, long-lived session of kind `api_key` acting in one of its user's
// groups (docs/auth.md §5).

export interface ApiKeyView {
  apiKeyId: string;
  username: string;
  userGroup: string;
  createdAt: Date;
  expiresAt: Date | null;
  expiresAtHard: Date | null;
  lastUsedAt: Date | null;
}

/**
 * Stores an API key and its session, started at `now`, together; returns the session ID.
 * Fails with a unique violation (23505) when the user already has a key of that name.
 */
export async function openApiKey(
  db: Kysely<Tables>,
  now: Date,
  key: { username: string; apiKeyId: string; group: string },
): Promise<string> {
  const issued = await db.transaction().execute(async (trx) => {
    await insertApiKey(trx, { ...key, now });
    return openSession(trx, now, {
      kind: 'api_key',
      username: key.username,
      group: key.group,
      clientType: 'API_KEY',
      apiKeyId: key.apiKeyId,
    });
  });
  return issued.id;
}

export async function createAPIKey(
  core: AuthCore,
  identity: Identity,
  apiKeyId: string,
  group: string,
): Promise<AuthResult<ApiKeyView & { sessionId: string }>> {
  if (identity.kind !== 'session' || !identity.username) {
    return fail('UNAUTHENTICATED', 'Sign in (not with an API key) to create API keys.');
  }
  if (!/^[\w.-]{1,100}$/.test(apiKeyId)) {
    return fail('INVALID_INPUT', 'apiKeyId must be 1 to 100 letters, digits, ".", "_" or "-".');
  }
  if (!(await recentlyAuthenticated(core, identity))) return REAUTHENTICATE_FIRST;
  const username = identity.username;
  if (!(await groupsOf(core.db, username)).includes(group)) {
    return fail('GROUP_ACCESS_DENIED', `You have no access to group ${group}.`);
  }
  const now = core.clock.now();
  let sessionId: string;
  try {
    sessionId = await openApiKey(core.db, now, { username, apiKeyId, group });
  } catch (e) {
    if ((e as { code?: string }).code === '23505')
      return fail('DUPLICATE_ID', `You already have an API key ${apiKeyId}.`);
    throw e;
  }
  await recordEvent(core, username, 'api_key_created', identity.clientIp ?? null, { apiKeyId, group });
  notify(core, username, { kind: 'api_key_created', apiKeyId, group }, identity.clientIp ?? null);
  const { expiresAt, expiresAtHard } = expiriesFrom(now, lifetimeOf('API_KEY'));
  return ok({
    apiKeyId,
    username,
    userGroup: group,
    createdAt: now,
    expiresAt,
    expiresAtHard,
    lastUsedAt: null,
    sessionId,
  });
}

export async function listAPIKeys(core: AuthCore, username: string): Promise<ApiKeyView[]> {
  const rows = await listApiKeys(core.db, username);
  return rows.map((r) => ({
    apiKeyId: r.api_key_id,
    username: r.username,
    userGroup: r.user_group,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    expiresAtHard: r.expires_at_hard,
    lastUsedAt: r.last_seen_at,
  }));
}

export async function revokeAPIKey(
  core: AuthCore,
  identity: Identity,
  apiKeyId: string,
): Promise<AuthResult<ApiKeyView>> {
  if (identity.kind !== 'session' || !identity.username)
    return fail('UNAUTHENTICATED', 'Sign in to revoke API keys.');
  const username = identity.username;
  const key = (await listAPIKeys(core, username)).find((k) => k.apiKeyId === apiKeyId);
  if (!key) return fail('NOT_FOUND', `You have no API key ${apiKeyId}.`);
  await core.db.transaction().execute(async (trx) => {
    await deleteApiKeySession(trx, username, apiKeyId);
    await deleteApiKey(trx, username, apiKeyId);
  });
  await recordEvent(core, username, 'api_key_revoked', identity.clientIp ?? null, { apiKeyId });
  return ok(key);
}

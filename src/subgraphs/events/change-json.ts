import type { ChangeRow } from './changes.repository.ts';
import { encodePosition } from './cursor.ts';

/** A change as JSON outside GraphQL (webhooks, NATS): the fields `Query.changes` gives, by the same names. */
export interface ChangeJson {
  cursor: string;
  kind: string;
  entity: string;
  profile: string | null;
  entityId: string | null;
  version: number;
  at: string;
  actor: ChangeActorJson | null;
  correlationId: string | null;
  patch?: unknown;
  before?: unknown;
  after?: unknown;
}

/** `Change.actor`: the API key's public id only for `API_KEY` (null otherwise). */
export interface ChangeActorJson {
  kind: string;
  name: string;
  apiKeyId: string | null;
}

/** The actor of `change` as `Change.actor` gives it, or null for a change made outside assetql. */
export function changeActor(
  change: Pick<ChangeRow, 'actor_kind' | 'actor' | 'actor_key'>,
): ChangeActorJson | null {
  if (!change.actor_kind || !change.actor) return null;
  return {
    kind: change.actor_kind,
    name: change.actor,
    apiKeyId: change.actor_kind === 'API_KEY' ? change.actor_key : null,
  };
}

/** `change` as JSON; without its patch and values when `whole` is false. */
export function changeJson(change: ChangeRow, whole = true): ChangeJson {
  return {
    cursor: encodePosition(change),
    kind: change.kind,
    entity: change.entity,
    profile: change.profile === '' ? null : change.profile,
    entityId: change.entity_id === '' ? null : change.entity_id,
    version: change.version,
    at: change.at.toISOString(),
    actor: changeActor(change),
    correlationId: change.correlation_id,
    ...(whole ? { patch: change.patch, before: change.before, after: change.after } : {}),
  };
}

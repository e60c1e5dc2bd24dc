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
  actor: { kind: string; name: string } | null;
  correlationId: string | null;
  patch?: unknown;
  before?: unknown;
  after?: unknown;
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
    actor: change.actor_kind && change.actor ? { kind: change.actor_kind, name: change.actor } : null,
    correlationId: change.correlation_id,
    ...(whole ? { patch: change.patch, before: change.before, after: change.after } : {}),
  };
}

// A change of an asset in words (docs/events.md): what kind, by whom, and each changed member of
// the asset's document — `properties.<name>` one by one, `isDeleted`, `geometry` — before and after.

import { EMPTY, formatValue, type PropertyDefinition } from './format.ts';
import type { ChangeEvent } from './live.ts';

export const KIND_TEXT: Record<string, string> = {
  CREATED: 'Created',
  UPDATED: 'Updated',
  DELETED: 'Deleted',
  RESTORED: 'Restored',
  CONVERTED: 'Converted',
};

/** One changed member: `['properties', 'status']`, `['isDeleted']`… */
export interface KeyChange {
  path: string[];
  before: unknown;
  after: unknown;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The members a change's `before` and `after` hold, property by property, in the order the
 * document has them (the properties after the asset's own members, each group by name).
 */
export function changedKeys(before: unknown, after: unknown): KeyChange[] {
  const b = isObject(before) ? before : {};
  const a = isObject(after) ? after : {};
  const out: KeyChange[] = [];
  const top = [...new Set([...Object.keys(b), ...Object.keys(a)])].sort();
  for (const key of top.filter((k) => k !== 'properties'))
    out.push({ path: [key], before: b[key], after: a[key] });
  if ('properties' in b || 'properties' in a) {
    const pb = isObject(b.properties) ? b.properties : {};
    const pa = isObject(a.properties) ? a.properties : {};
    const names = [...new Set([...Object.keys(pb), ...Object.keys(pa)])].sort();
    for (const name of names) out.push({ path: ['properties', name], before: pb[name], after: pa[name] });
  }
  return out;
}

const MEMBER_TEXT: Record<string, string> = { isDeleted: 'Deleted', geometry: 'Geometry' };

/** A member's name for a reader: the property's title, else its name. */
export function keyLabel(path: readonly string[], definitions: readonly PropertyDefinition[]): string {
  if (path[0] === 'properties' && path[1] !== undefined) {
    const definition = definitions.find((d) => d.name === path[1]);
    return definition?.title || path[1];
  }
  return MEMBER_TEXT[path[0] ?? ''] ?? path.join('.');
}

/** A member's value: a property's with its unit, a geometry by its type (and a point's place). */
export function memberText(
  path: readonly string[],
  value: unknown,
  definitions: readonly PropertyDefinition[],
  locale?: string,
): string {
  if (value === undefined) return EMPTY;
  if (path[0] === 'geometry' && isObject(value)) {
    const coordinates = value.coordinates;
    if (value.type === 'Point' && Array.isArray(coordinates) && coordinates.length >= 2) {
      const f = new Intl.NumberFormat(locale, { maximumFractionDigits: 5 });
      return `Point ${f.format(Number(coordinates[1]))}, ${f.format(Number(coordinates[0]))}`;
    }
    return typeof value.type === 'string' ? value.type : 'Geometry';
  }
  const definition = path[0] === 'properties' ? definitions.find((d) => d.name === path[1]) : undefined;
  return formatValue(value, definition, locale);
}

/** Who made a change. */
export function actorText(actor: ChangeEvent['actor']): string {
  if (!actor) return 'outside assetql';
  if (actor.kind === 'API_KEY') return `${actor.name} (API key)`;
  if (actor.kind === 'SYSTEM') return `${actor.name} (assetql)`;
  return actor.name;
}

/** A change in one sentence, for the live region: "Updated by demo: Status, Total depth." */
export function changeSummary(change: ChangeEvent, definitions: readonly PropertyDefinition[]): string {
  const kind = KIND_TEXT[change.kind] ?? change.kind;
  const what =
    change.kind === 'UPDATED'
      ? changedKeys(change.before, change.after).map((k) => keyLabel(k.path, definitions))
      : [];
  return `${kind} by ${actorText(change.actor)}${what.length ? `: ${what.join(', ')}` : ''}.`;
}

import type { DatasetDefinition, EffectiveProfile } from '../profiles/definition.ts';
import { parseTemplate } from '../profiles/display-name.ts';
import { type PropertyDefaults, propertyDefaults } from '../profiles/effective-properties.ts';

/**
 * The layer that direct writes (`upsertAssets`, `convertAssets`, `assetql import` without
 * `--dataset`) fill on a profile that declares up datasets. Above every declared dataset
 * unless the profile declares it with a priority of its own.
 */
export const MANUAL_DATASET = 'manual';

export interface UpLayer {
  dataset: string;
  title: string | null;
  priority: number;
  /** False for the implicit `manual` layer. */
  declared: boolean;
}

/**
 * The up datasets of a profile in merge order (ascending priority; equal priorities in
 * declaration order), with the `manual` layer; empty when the profile declares none, in which
 * case direct writes set `assets.properties` themselves.
 */
export function upLayersOf(profile: Pick<EffectiveProfile, 'document'>): UpLayer[] {
  const declared = profile.document.upDatasets ?? [];
  if (declared.length === 0) return [];
  const layers = declared.map((d, i) => ({
    dataset: d.dataset,
    title: d.title ?? null,
    priority: d.priority ?? 0,
    declared: true,
    i,
  }));
  if (!layers.some((l) => l.dataset === MANUAL_DATASET)) {
    layers.push({
      dataset: MANUAL_DATASET,
      title: 'Manual edits',
      priority: Math.max(...layers.map((l) => l.priority)) + 1,
      declared: false,
      i: layers.length,
    });
  }
  return layers.sort((a, b) => a.priority - b.priority || a.i - b.i).map(({ i: _i, ...l }) => l);
}

export function stateDatasetsOf(profile: Pick<EffectiveProfile, 'document'>): DatasetDefinition[] {
  return profile.document.stateUpdateDatasets ?? [];
}

/** Whether `dataset` is an up dataset (the `manual` layer included) or a state dataset of the profile. */
export function datasetKind(profile: EffectiveProfile, dataset: string): 'up' | 'state' | null {
  if (upLayersOf(profile).some((l) => l.dataset === dataset)) return 'up';
  if (stateDatasetsOf(profile).some((d) => d.dataset === dataset)) return 'state';
  return null;
}

/** Everything the set-based merge needs about a profile, as SQL parameters and fragments. */
export interface MergePlan {
  /** Dataset ids in merge order: later ones win. */
  layers: string[];
  maps: { dataset: string; column: string; property: string }[];
  /**
   * What the profile's defaults supply: names and flags are computed over `$defaults ||
   * properties`, the effective properties (profiles/effective-properties.ts).
   */
  defaults: PropertyDefaults;
  /** Properties every merged asset must have (required, without a default). */
  required: string[];
  /**
   * The display name as a SQL expression over `w` (properties with defaults) and `id`, or
   * null when only JavaScript renders it exactly (a NUMBER or JSON value in the name).
   */
  displaySql: string | null;
  /** The deleted flag as a SQL expression over `w`. */
  deletedSql: string;
}

/** The merge plan of a profile, or null when it declares no up datasets. */
export function mergePlanOf(profile: EffectiveProfile): MergePlan | null {
  const layers = upLayersOf(profile);
  if (layers.length === 0) return null;
  const inPlan = new Set(layers.map((l) => l.dataset));
  const required: string[] = [];
  const types = new Map<string, string>();
  for (const d of profile.properties) {
    if (types.has(d.name)) continue; // the first definition wins, as on import
    types.set(d.name, d.type);
    if ((d.default === undefined || d.default === null) && d.required) required.push(d.name);
  }
  const deleted = profile.document.isDeletedProperty;
  return {
    layers: layers.map((l) => l.dataset),
    maps: profile.propertyMaps
      .filter((m) => inPlan.has(m.dataset))
      .map(({ dataset, column, property }) => ({ dataset, column, property })),
    defaults: propertyDefaults(profile),
    required,
    displaySql: displaySql(profile.document, types),
    deletedSql: deleted ? `coalesce((w -> ${literal(deleted)}) = 'true'::jsonb, false)` : 'false',
  };
}

/** A canonical text of what the merge depends on: when it changes, stored merges are stale. */
export function mergeKey(plan: MergePlan | null): string {
  return plan ? JSON.stringify([plan.layers, plan.maps]) : '';
}

/** A SQL string literal (standard_conforming_strings is on since PostgreSQL 9.1). */
export function literal(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

// Types whose JSON text is what JavaScript's String() gives (numbers may print differently).
const TEXT_EXACT = new Set(['STRING', 'ENUM', 'DATE', 'DATE_TIME', 'BOOLEAN', 'INTEGER']);

function displaySql(doc: EffectiveProfile['document'], types: Map<string, string>): string | null {
  const value = (property: string): string | null => {
    if (property === 'id') return 'id';
    if (!TEXT_EXACT.has(types.get(property) ?? '')) return null;
    return `nullif(w ->> ${literal(property)}, '')`;
  };
  let name: string;
  if (doc.displayNameTemplate) {
    const pieces: string[] = [];
    for (const part of parseTemplate(doc.displayNameTemplate)) {
      if ('text' in part) {
        pieces.push(literal(part.text));
        continue;
      }
      const alternatives: string[] = [];
      for (const alt of part.alternatives) {
        if ('literal' in alt) {
          if (alt.literal !== '') alternatives.push(literal(alt.literal));
          continue;
        }
        const v = value(alt.property);
        if (v === null) return null;
        alternatives.push(v);
      }
      pieces.push(`coalesce(${[...alternatives, "''"].join(', ')})`);
    }
    name = pieces.length ? `concat(${pieces.join(', ')})` : "''";
  } else {
    const v = value(doc.displayNameProperty);
    if (v === null) return null;
    name = `coalesce(${v}, '')`;
  }
  // As displayNameOf: a blank name falls back to the id.
  return `(case when ${name} ~ '^[[:space:]]*$' then id else ${name} end)`;
}

import type { EffectiveProfile } from './definition.ts';

/**
 * The values a profile's defaults supply, by property name: for each name, the first non-null
 * `default` among its definitions (validation allows one definition per name).
 */
export type PropertyDefaults = readonly (readonly [string, unknown])[];

const cache = new WeakMap<Pick<EffectiveProfile, 'properties'>, PropertyDefaults>();

/** The defaults of `profile`, worked out once per profile object. */
export function propertyDefaults(profile: Pick<EffectiveProfile, 'properties'>): PropertyDefaults {
  let defaults = cache.get(profile);
  if (defaults === undefined) {
    const seen = new Map<string, unknown>();
    for (const d of profile.properties)
      if (!seen.has(d.name) && d.default !== undefined && d.default !== null) seen.set(d.name, d.default);
    defaults = [...seen];
    cache.set(profile, defaults);
  }
  return defaults;
}

const byName = new WeakMap<Pick<EffectiveProfile, 'properties'>, ReadonlyMap<string, unknown>>();

/** {@link propertyDefaults} by name, worked out once per profile object. */
export function defaultsByName(profile: Pick<EffectiveProfile, 'properties'>): ReadonlyMap<string, unknown> {
  let defaults = byName.get(profile);
  if (defaults === undefined) {
    defaults = new Map(propertyDefaults(profile));
    byName.set(profile, defaults);
  }
  return defaults;
}

/**
 * What an asset shows for its properties: each stored value, else the profile's default.
 *
 * The one rule of the subgraph, for what `Asset.properties` returns and for what the writers
 * derive on write (display names, deleted flags): a property with no stored value, or with
 * JSON null, takes the default; a stored value always wins, `false`, `0` and `''` included.
 * Writers never store JSON null (validation treats null as absent: import/validate.ts), so
 * over stored rows the same rule reads `$defaults::jsonb || properties` in SQL (the merge of
 * dataset layers, write/merge.ts) and `coalesce(properties ->> name, default)` in the export
 * (exports/stream.ts); filters compare `coalesce(nullif(properties -> name, 'null'), default)`
 * (filters/compile.ts).
 *
 * Returns `properties` itself when no default applies, a copy otherwise.
 */
export function effectiveProperties(
  defaults: PropertyDefaults,
  properties: Record<string, unknown>,
): Record<string, unknown> {
  let out = properties;
  for (const [name, value] of defaults) {
    // Own keys only: a property may be named like one of Object's (`constructor`).
    const stored = Object.hasOwn(out, name) ? out[name] : undefined;
    if (stored === undefined || stored === null) {
      if (out === properties) out = { ...properties };
      out[name] = value;
    }
  }
  return out;
}

/**
 * What `properties(only:)` shows: the named properties of {@link effectiveProperties}, each read
 * where it is (the stored value, else the default), without the copy of every property. A name
 * with neither is left out.
 */
export function onlyProperties(
  profile: Pick<EffectiveProfile, 'properties'> | null,
  stored: Record<string, unknown>,
  only: readonly string[],
): Record<string, unknown> {
  const defaults = profile ? defaultsByName(profile) : undefined;
  const out: Record<string, unknown> = {};
  for (const k of only) {
    let v = Object.hasOwn(stored, k) ? stored[k] : undefined;
    if ((v === undefined || v === null) && defaults?.has(k)) v = defaults.get(k);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

// What the assets list asks for, as an `AssetFilter` (docs/schema.md §5), and what a saved
// selection filter is made of when the current one is saved.

/** An `AssetFilter` as JSON, the shape a saved filter keeps it in. */
export type AssetFilter = Record<string, unknown>;

/** A saved selection filter's related profiles, as `assetFilters` answers them. */
export interface SubProfile {
  relationship: string;
  profile: string;
  filter: AssetFilter | null;
  subProfiles?: SubProfile[] | null;
}

/** A saved selection filter, as `assetFilters` answers it. */
export interface SavedFilter {
  id: string;
  displayName: string;
  description: string | null;
  profile: string;
  filter: AssetFilter | null;
  subProfiles: SubProfile[] | null;
}

/** What `createAssetFilter` takes of related profiles (their target profile is implied). */
export interface SubProfileInput {
  relationship: string;
  filter?: AssetFilter;
  subProfiles: SubProfileInput[];
}

/**
 * The list's filter: the saved filter's predicate and the search together, either alone, or
 * null for every asset. Both narrow: `and` of the two.
 */
export function currentFilter(saved: AssetFilter | null | undefined, search: string): AssetFilter | null {
  const parts: AssetFilter[] = [];
  if (saved && Object.keys(saved).length > 0) parts.push(saved);
  if (search) parts.push({ search });
  if (parts.length === 0) return null;
  return parts.length === 1 ? parts[0]! : { and: parts };
}

/** The related profiles of a saved filter, as a new filter saved from it takes them. */
export function subProfilesInput(subProfiles: readonly SubProfile[] | null | undefined): SubProfileInput[] {
  return (subProfiles ?? []).map((s) => ({
    relationship: s.relationship,
    ...(s.filter ? { filter: s.filter } : {}),
    subProfiles: subProfilesInput(s.subProfiles),
  }));
}

/** The longest id the API takes is 128 characters; a suffix for a taken one needs a few. */
const MAX_SLUG = 100;

/**
 * An id for a filter named `displayName` (letters, digits, `-`; the API allows `.` and `_` too):
 * `attempt` 1 gives the name's slug, later attempts the slug with `-2`, `-3`, … for a taken one.
 */
export function filterId(displayName: string, attempt = 1): string {
  const slug =
    displayName
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, MAX_SLUG)
      .replace(/-+$/, '') || 'filter';
  return attempt > 1 ? `${slug}-${attempt}` : slug;
}

/** The saved filters of one profile, in the order the API gives them (by id). */
export function filtersOf(filters: readonly SavedFilter[], profile: string): SavedFilter[] {
  return filters.filter((f) => f.profile === profile);
}

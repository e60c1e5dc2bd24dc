/**
 * The stored shape of a profile document (docs/assets.md). The profile row holds the
 * base document; each extension holds a partial one whose lists are appended in order.
 */
export interface PropertyDefinition {
  name: string;
  type: 'STRING' | 'NUMBER' | 'INTEGER' | 'BOOLEAN' | 'DATE' | 'DATE_TIME' | 'ENUM' | 'JSON';
  title?: string | null;
  description?: string | null;
  unit?: string | null;
  required?: boolean;
  default?: unknown;
  enumValues?: string[] | null;
  /**
   * Equality filters on it (`equals`, `in`) are served by an index: the property is one of
   * the profile's lookup names, as a relationship's lookup property is (docs/assets.md).
   */
  searchable?: boolean | null;
}

export interface ParameterDefinition {
  name: string;
  type: PropertyDefinition['type'];
  required?: boolean;
  default?: unknown;
  description?: string | null;
}

export type ReferenceType = 'ID' | 'PROPERTY' | 'PROPERTY_LIST' | 'PARAMETER';

export interface RelationshipDefinition {
  relationship: string;
  type: 'ONE' | 'MANY';
  profile: string;
  title?: string | null;
  referenceProperty?: string | null;
  referenceType: ReferenceType;
  lookupProperty?: string | null;
  lookupType: ReferenceType;
  parameters?: ParameterDefinition[];
}

export interface PropertyMapDefinition {
  dataset: string;
  column: string;
  property: string;
}

export interface DatasetDefinition {
  dataset: string;
  title?: string | null;
  priority?: number;
}

export interface ProfileDocument {
  displayNameProperty: string;
  displayNameTemplate?: string | null;
  secondaryDisplayNameProperty?: string | null;
  isDeletedProperty?: string | null;
  forceAssetStateUpdates?: boolean | null;
  properties?: PropertyDefinition[];
  relationships?: RelationshipDefinition[];
  propertyMaps?: PropertyMapDefinition[];
  upDatasets?: DatasetDefinition[];
  stateUpdateDatasets?: DatasetDefinition[];
  viewConfigurations?: unknown[];
  assetConversionConfigurations?: unknown[];
}

export type ExtensionDocument = Pick<ProfileDocument, 'properties' | 'relationships' | 'propertyMaps'>;

export type EffectivePropertyDefinition = PropertyDefinition & { extension: string | null };
export type EffectiveRelationship = RelationshipDefinition & { extension: string | null };
export type EffectivePropertyMap = PropertyMapDefinition & { extension: string | null };

/** A profile with its extensions applied: what `AssetProfile` fields show. */
export interface EffectiveProfile {
  userGroup: string;
  profile: string;
  title: string;
  ownerUsername: string;
  document: ProfileDocument;
  extensions: string[];
  properties: (PropertyDefinition & { extension: string | null })[];
  relationships: (RelationshipDefinition & { extension: string | null })[];
  propertyMaps: (PropertyMapDefinition & { extension: string | null })[];
  /**
   * The properties its assets' lookup keys hold, as stored when the profile was read
   * (src/subgraphs/assets/lookup.ts); filters use them to narrow equality through the index.
   */
  lookupNames: string[];
  /**
   * The stored `asset_profiles.version`: 1 when created, one more for every write of the profile,
   * an extension's addition, change or removal included; what `UpdateAssetProfileInput.ifVersion`
   * takes.
   */
  version: number;
}

export function effectiveProfile(
  row: {
    user_group: string;
    profile: string;
    title: string;
    owner_username: string;
    definition: Record<string, unknown>;
    /** Absent for a profile not stored yet: none. */
    lookup_names?: string[];
    /** Absent for a profile not stored yet: its first. */
    version?: number;
  },
  extensions: readonly { extension: string; definition: Record<string, unknown> }[],
): EffectiveProfile {
  const document = row.definition as unknown as ProfileDocument;
  const sorted = [...extensions].sort((a, b) =>
    a.extension < b.extension ? -1 : a.extension > b.extension ? 1 : 0,
  );
  const layers: [string | null, ExtensionDocument][] = [
    [null, document],
    ...sorted.map((e): [string, ExtensionDocument] => [e.extension, e.definition as ExtensionDocument]),
  ];
  const tag = <T>(list: T[] | undefined, extension: string | null) =>
    (list ?? []).map((x) => ({ ...x, extension }));
  return {
    userGroup: row.user_group,
    profile: row.profile,
    title: row.title,
    ownerUsername: row.owner_username,
    document,
    extensions: sorted.map((e) => e.extension),
    properties: layers.flatMap(([ext, d]) => tag(d.properties, ext)),
    relationships: layers.flatMap(([ext, d]) => tag(d.relationships, ext)),
    propertyMaps: layers.flatMap(([ext, d]) => tag(d.propertyMaps, ext)),
    lookupNames: row.lookup_names ?? [],
    version: row.version ?? 1,
  };
}

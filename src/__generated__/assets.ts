import type { GraphQLResolveInfo, GraphQLScalarType, GraphQLScalarTypeConfig } from 'graphql';
import type { EffectiveProfile, EffectivePropertyDefinition, EffectiveRelationship, EffectivePropertyMap } from '../subgraphs/assets/profiles/definition.ts';
import type { AssetRow } from '../subgraphs/assets/assets.repository.ts';
import type { SelectionFilterRow, SubProfile } from '../subgraphs/assets/selection-filters.ts';
import type { ViewRow } from '../subgraphs/assets/views.ts';
import type { ConversionRow } from '../subgraphs/assets/conversions.ts';
import type { RelationshipOneView, RelationshipManyView } from '../subgraphs/assets/relationships.ts';
import type { AssetsConnectionView } from '../subgraphs/assets/total-count.ts';
import type { DownloadRow } from '../subgraphs/assets/exports/downloads.ts';
import type { PendingExport } from '../subgraphs/assets/exports/spec.ts';
import type { AssetsContext } from '../subgraphs/assets/context.ts';
export type Maybe<T> = T | null;
export type InputMaybe<T> = Maybe<T>;
export type Omit<T, K extends keyof T> = Pick<T, Exclude<keyof T, K>>;
export type RequireFields<T, K extends keyof T> = Omit<T, K> & { [P in K]-?: NonNullable<T[P]> };
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
  /** An ISO 8601 date-time with offset, always serialised in UTC. */
  DateTime: { input: Date | string; output: Date | string; }
  /** Any JSON value. */
  JSON: { input: unknown; output: unknown; }
  /** A JSON object. */
  JSONObject: { input: Record<string, unknown>; output: Record<string, unknown>; }
  _FieldSet: { input: unknown; output: unknown; }
};

export type Asset = {
  __typename?: 'Asset';
  assetProfile: Maybe<AssetProfile>;
  displayName: Scalars['String']['output'];
  geoJSONFeature: Maybe<GeoJsonFeature>;
  geometry: Maybe<GeoJsonGeometryInterface>;
  id: Scalars['ID']['output'];
  isDeleted: Scalars['Boolean']['output'];
  issueSubject: IssueSubject;
  /** Each key's latest observed value with its time, dataset and unit; `only` limits the keys (assetql addition). */
  latestObservations: Array<LatestObservation>;
  modifiedAt: Maybe<Scalars['DateTime']['output']>;
  observation: Maybe<Scalars['JSONObject']['output']>;
  /**
   * A key's readings in buckets of `resolution` (`1m`, `15m`, `1h`, `1d`, or an ISO 8601 duration
   * such as `PT5M` or `P1W`) over [`from`, `to`), aligned in `timezone` (an IANA name, default
   * UTC): a day bucket lasts 23 or 25 hours across a daylight-saving change. At most 10,000
   * buckets. Numeric readings only (docs/telemetry.md).
   */
  observationSeries: Maybe<ObservationSeries>;
  /**
   * Raw readings of one key (or of every key, as objects by time) over [`from`, `to`), oldest
   * first: at most 100,000 a page, 1,000 by default. With `downsample`, at most `points` readings
   * chosen to keep the chart's shape (LTTB), one page.
   */
  observations: ObservationConnection;
  profile: Scalars['ID']['output'];
  /** Properties merged from the datasets, with defaults; `only` limits the keys returned. */
  properties: Maybe<Scalars['JSONObject']['output']>;
  /** The relationship named (or the profile's first when omitted). */
  related: Maybe<AssetRelationship>;
  secondaryDisplayName: Maybe<Scalars['String']['output']>;
  /** Counts the asset's changes (1 when created); `AssetInput.ifVersion` takes it (assetql addition). */
  version: Scalars['Int']['output'];
};


export type AssetLatestObservationsArgs = {
  only?: InputMaybe<Array<Scalars['String']['input']>>;
};


export type AssetObservationSeriesArgs = {
  aggregates?: InputMaybe<Array<ObservationAggregate>>;
  dataset?: InputMaybe<Scalars['ID']['input']>;
  fill?: InputMaybe<ObservationFill>;
  from: Scalars['DateTime']['input'];
  property: Scalars['String']['input'];
  resolution: Scalars['String']['input'];
  timezone?: InputMaybe<Scalars['String']['input']>;
  to: Scalars['DateTime']['input'];
};


export type AssetObservationsArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  dataset?: InputMaybe<Scalars['ID']['input']>;
  downsample?: InputMaybe<ObservationDownsample>;
  first?: InputMaybe<Scalars['Int']['input']>;
  from?: InputMaybe<Scalars['DateTime']['input']>;
  property?: InputMaybe<Scalars['String']['input']>;
  to?: InputMaybe<Scalars['DateTime']['input']>;
};


export type AssetPropertiesArgs = {
  only?: InputMaybe<Array<Scalars['String']['input']>>;
};


export type AssetRelatedArgs = {
  params?: InputMaybe<Scalars['JSONObject']['input']>;
  relationship?: InputMaybe<Scalars['ID']['input']>;
};

export type AssetConversionPropertyMapping = {
  __typename?: 'AssetConversionPropertyMapping';
  /** Copy this source property... */
  sourceProperty: Maybe<Scalars['String']['output']>;
  targetProperty: Scalars['String']['output'];
  /** ...or set this constant. */
  value: Maybe<Scalars['JSON']['output']>;
};

export type AssetConversionPropertyMappingInput = {
  sourceProperty?: InputMaybe<Scalars['String']['input']>;
  targetProperty: Scalars['String']['input'];
  value?: InputMaybe<Scalars['JSON']['input']>;
};

export type AssetDownload = {
  __typename?: 'AssetDownload';
  createdAt: Scalars['DateTime']['output'];
  createdBy: Scalars['String']['output'];
  /** While READY: a signed URL that streams the file. */
  downloadUrl: Maybe<Scalars['String']['output']>;
  expiresAt: Scalars['DateTime']['output'];
  filter: Maybe<AssetSelectionFilter>;
  filterId: Scalars['ID']['output'];
  format: AssetDownloadFormat;
  id: Scalars['ID']['output'];
  name: Scalars['String']['output'];
  properties: Array<Scalars['String']['output']>;
  status: AssetDownloadStatus;
};

export type AssetDownloadFormat =
  | 'CSV'
  | 'XLSX';

export type AssetDownloadStatus =
  | 'EXPIRED'
  | 'READY';

export type AssetEdge = {
  __typename?: 'AssetEdge';
  cursor: Scalars['String']['output'];
  node: Maybe<Asset>;
};

/** The catalogue of asset error types (docs/schema.md). */
export type AssetErrorType =
  /** The id is taken (spec §7.3). */
  | 'DUPLICATE_ID'
  /** A dataset declaration or property map is invalid: a repeated dataset id, a bad priority, a map naming an undeclared dataset or a column twice. */
  | 'INVALID_DATASET'
  /** The filter does not fit the profile (unknown property, bad operator or value). */
  | 'INVALID_FILTER'
  /** An input value is out of range or malformed; the message names it. */
  | 'INVALID_INPUT'
  /** A layout is invalid: duplicate widget ids, positions outside the grid. */
  | 'INVALID_LAYOUT'
  /** A relationship named is not defined on the profile, or its target profile does not exist. */
  | 'INVALID_RELATIONSHIP'
  /** The display-name template does not parse or names an unknown property. */
  | 'INVALID_TEMPLATE'
  /** The profile, asset, filter, view or extension named does not exist in the caller's group. */
  | 'NOT_FOUND'
  /** The caller is not signed in. */
  | 'UNAUTHENTICATED'
  /** A property named is not defined on the profile. */
  | 'UNKNOWN_PROPERTY'
  /** Someone changed the object since `expectedVersion`; reload and retry. */
  | 'VERSION_CONFLICT';

/** A predicate on assets. Fields set together must all hold (an implicit `and`). */
export type AssetFilter = {
  and?: InputMaybe<Array<AssetFilter>>;
  geometry?: InputMaybe<AssetGeometryPredicate>;
  /** The asset's id is one of these. */
  ids?: InputMaybe<Array<Scalars['ID']['input']>>;
  isDeleted?: InputMaybe<Scalars['Boolean']['input']>;
  modifiedAfter?: InputMaybe<Scalars['DateTime']['input']>;
  modifiedBefore?: InputMaybe<Scalars['DateTime']['input']>;
  not?: InputMaybe<AssetFilter>;
  or?: InputMaybe<Array<AssetFilter>>;
  property?: InputMaybe<AssetPropertyPredicate>;
  related?: InputMaybe<AssetRelatedPredicate>;
  /** Case-insensitive match of every word against the display name. */
  search?: InputMaybe<Scalars['String']['input']>;
};

export type AssetFilterDownloadMutationResult = {
  __typename?: 'AssetFilterDownloadMutationResult';
  correlationId: Scalars['String']['output'];
  download: Maybe<AssetDownload>;
  errors: Array<AssetMutationError>;
};

export type AssetFilterMutationResult = {
  __typename?: 'AssetFilterMutationResult';
  assetFilter: Maybe<AssetSelectionFilter>;
  correlationId: Scalars['String']['output'];
  errors: Array<AssetMutationError>;
};

export type AssetGeometryNear = {
  /** Great-circle distance from the point to the geometry's nearest vertex. */
  distanceMeters: Scalars['Float']['input'];
  latitude: Scalars['Float']['input'];
  longitude: Scalars['Float']['input'];
};

export type AssetGeometryPredicate = {
  /** `[minLongitude, minLatitude, maxLongitude, maxLatitude]`: the geometry's bounding box intersects it. */
  bbox?: InputMaybe<Array<Scalars['Float']['input']>>;
  near?: InputMaybe<AssetGeometryNear>;
};

export type AssetInput = {
  /** A GeoJSON geometry (RFC 7946); omit to keep the stored one. */
  geometry?: InputMaybe<Scalars['JSONObject']['input']>;
  id: Scalars['ID']['input'];
  /**
   * Write only if the asset is at this `version` (0: only if it does not exist yet); otherwise the
   * whole call fails with VERSION_CONFLICT and writes nothing (assetql addition).
   */
  ifVersion?: InputMaybe<Scalars['Int']['input']>;
  /** The asset's properties, replacing the stored ones; checked against the profile. */
  properties?: InputMaybe<Scalars['JSONObject']['input']>;
};

/**
 * The assets of one cell of a viewport's grid. Each asset counts once, in the cell of the centre of
 * its bounding box; a line or polygon whose centre lies outside the viewport counts in the nearest
 * cell of the viewport (assetql addition).
 */
export type AssetMapCluster = {
  __typename?: 'AssetMapCluster';
  /** `[minLongitude, minLatitude, maxLongitude, maxLatitude]`: the union of the assets' bounding boxes. */
  bbox: Array<Scalars['Float']['output']>;
  /** `[longitude, latitude]`: the mean of the assets' box centres, kept within the cell's part of the viewport. */
  centroid: Array<Scalars['Float']['output']>;
  count: Scalars['Int']['output'];
  /** The cell as `gridLevel/x/y`, x from the west and y from the north, as web map tiles are named. */
  key: Scalars['String']['output'];
};

/** What a map viewport shows: the assets themselves, or their clusters on a grid (assetql addition). */
export type AssetMapViewport = {
  __typename?: 'AssetMapViewport';
  /** The viewport asked for, `[minLongitude, minLatitude, maxLongitude, maxLatitude]`. */
  bbox: Array<Scalars['Float']['output']>;
  /** True when the viewport holds more than `limit` assets: `clusters` has them, `features` is empty. */
  clustered: Scalars['Boolean']['output'];
  /** The grid's cells that hold assets, north to south and west to east, when there are more than `limit`; else empty. */
  clusters: Array<AssetMapCluster>;
  /** How many assets the viewport holds, the filter applied; exact, clustered or not. */
  count: Scalars['Int']['output'];
  /** The assets, in order of id, when there are at most `limit`; else empty. */
  features: Array<Asset>;
  /**
   * The level of the clusters' grid: Web Mercator cells, 2^gridLevel across the world, normally
   * zoom + 2 (64-pixel cells), coarser where the viewport would span more than `limit` cells. Null
   * when not clustered.
   */
  gridLevel: Maybe<Scalars['Int']['output']>;
  zoom: Scalars['Int']['output'];
};

export type AssetMutationError = {
  __typename?: 'AssetMutationError';
  message: Scalars['String']['output'];
  type: AssetErrorType;
};

export type AssetProfile = {
  __typename?: 'AssetProfile';
  assetById: Maybe<Asset>;
  assetConversionConfigurations: Maybe<Array<AssetProfileAssetConversionConfiguration>>;
  /**
   * Assets of the profile in ascending `id` order (keyset pagination). `first`/`after` page forwards,
   * `last`/`before` backwards; page size defaults to 100 and may be at most 1000.
   */
  assets: Maybe<AssetsConnection>;
  /** An export of the profile's assets; the file is made when its URL is fetched. */
  assetsExport: Maybe<AssetProfileAssetExport>;
  displayNameProperty: Scalars['String']['output'];
  displayNameTemplate: Maybe<Scalars['String']['output']>;
  /** Names of the extensions layered on the profile, in the order they apply. */
  extensions: Array<Scalars['String']['output']>;
  forceAssetStateUpdates: Maybe<Scalars['Boolean']['output']>;
  isDeletedProperty: Maybe<Scalars['String']['output']>;
  owner: EntityOwner;
  profile: Scalars['ID']['output'];
  /** The effective definitions: the profile's own, then each extension's in order of name. */
  properties: Maybe<Array<AssetPropertyDefinition>>;
  propertyMaps: Maybe<Array<AssetProfilePropertyMapping>>;
  relationships: Maybe<Array<AssetProfileRelationship>>;
  secondaryDisplayNameProperty: Maybe<Scalars['String']['output']>;
  stateUpdateDatasets: Maybe<Array<StateUpdateDataset>>;
  title: Scalars['String']['output'];
  upDataset: Maybe<UpDataset>;
  upDatasets: Maybe<Array<UpDataset>>;
  /**
   * Counts the profile's changes (1 when created); adding, changing or removing an extension counts
   * too. `UpdateAssetProfileInput.ifVersion` takes it, and each profile mutation answers the version
   * it left (assetql addition).
   */
  version: Scalars['Int']['output'];
  viewConfiguration: Maybe<AssetProfileViewConfiguration>;
  viewConfigurations: Maybe<Array<AssetProfileViewConfiguration>>;
};


export type AssetProfileAssetByIdArgs = {
  id: Scalars['ID']['input'];
};


export type AssetProfileAssetsArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  before?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<AssetFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
  last?: InputMaybe<Scalars['Int']['input']>;
};


export type AssetProfileAssetsExportArgs = {
  filter?: InputMaybe<AssetFilter>;
  isExcel?: InputMaybe<Scalars['Boolean']['input']>;
  properties?: InputMaybe<Array<Scalars['String']['input']>>;
};


export type AssetProfileUpDatasetArgs = {
  dataset: Scalars['String']['input'];
};


export type AssetProfileViewConfigurationArgs = {
  id: Scalars['ID']['input'];
};

/** A recipe that turns assets of this profile into assets of another. */
export type AssetProfileAssetConversionConfiguration = {
  __typename?: 'AssetProfileAssetConversionConfiguration';
  /** Mark the source asset deleted after conversion. */
  deleteSource: Scalars['Boolean']['output'];
  id: Scalars['ID']['output'];
  name: Maybe<Scalars['String']['output']>;
  propertyMappings: Array<AssetConversionPropertyMapping>;
  /** A relationship of the target profile that the new asset gets back to its source. */
  sourceRelationship: Maybe<Scalars['ID']['output']>;
  targetAssetProfile: Maybe<AssetProfile>;
  targetProfile: Scalars['ID']['output'];
};

export type AssetProfileAssetConversionConfigurationMutationResult = {
  __typename?: 'AssetProfileAssetConversionConfigurationMutationResult';
  assetConversionConfiguration: Maybe<AssetProfileAssetConversionConfiguration>;
  correlationId: Scalars['String']['output'];
  errors: Array<AssetMutationError>;
};

export type AssetProfileAssetExport = {
  __typename?: 'AssetProfileAssetExport';
  /** A signed URL, valid for a limited time, that streams the export as `exportName`.csv or .xlsx. */
  csvFileDownloadUrl: Maybe<Scalars['String']['output']>;
};


export type AssetProfileAssetExportCsvFileDownloadUrlArgs = {
  exportName?: InputMaybe<Scalars['String']['input']>;
};

export type AssetProfileEdge = {
  __typename?: 'AssetProfileEdge';
  cursor: Scalars['String']['output'];
  node: AssetProfile;
};

export type AssetProfileMutationResult = {
  __typename?: 'AssetProfileMutationResult';
  assetProfile: Maybe<AssetProfile>;
  correlationId: Scalars['String']['output'];
  errors: Array<AssetMutationError>;
};

/** How a column of an UpDataset feeds a property of the profile's assets. */
export type AssetProfilePropertyMapping = {
  __typename?: 'AssetProfilePropertyMapping';
  /** The column (key) in the dataset's rows. */
  column: Scalars['String']['output'];
  dataset: Scalars['String']['output'];
  extension: Maybe<Scalars['String']['output']>;
  /** The profile property it fills. */
  property: Scalars['String']['output'];
};

export type AssetProfilePropertyMappingInput = {
  column: Scalars['String']['input'];
  dataset: Scalars['String']['input'];
  property: Scalars['String']['input'];
};

export type AssetProfileRelationship = {
  __typename?: 'AssetProfileRelationship';
  assetProfile: AssetProfile;
  extension: Maybe<Scalars['String']['output']>;
  lookupProperty: Maybe<Scalars['String']['output']>;
  lookupType: AssetProfileRelationshipReferenceType;
  parameters: Maybe<Array<UpSpecificationParameter>>;
  profile: Scalars['ID']['output'];
  referenceProperty: Maybe<Scalars['String']['output']>;
  referenceType: AssetProfileRelationshipReferenceType;
  relationship: Scalars['ID']['output'];
  title: Maybe<Scalars['String']['output']>;
  type: AssetProfileRelationshipType;
};

export type AssetProfileRelationshipInput = {
  lookupProperty?: InputMaybe<Scalars['String']['input']>;
  lookupType: AssetProfileRelationshipReferenceType;
  parameters?: InputMaybe<Array<UpSpecificationParameterInput>>;
  profile: Scalars['ID']['input'];
  referenceProperty?: InputMaybe<Scalars['String']['input']>;
  referenceType: AssetProfileRelationshipReferenceType;
  relationship: Scalars['ID']['input'];
  title?: InputMaybe<Scalars['String']['input']>;
  type: AssetProfileRelationshipType;
};

/**
 * How one side of a relationship yields or matches key values.
 * On the source side (`referenceType`): ID takes the asset's own id; PROPERTY the value of
 * `referenceProperty`; PROPERTY_LIST each element of the array in `referenceProperty`; PARAMETER
 * the value of `params[referenceProperty]` given to `related`.
 * On the target side (`lookupType`): ID matches the related asset's id; PROPERTY its
 * `lookupProperty` value; PROPERTY_LIST any element of the array in `lookupProperty`.
 */
export type AssetProfileRelationshipReferenceType =
  | 'ID'
  | 'PARAMETER'
  | 'PROPERTY'
  | 'PROPERTY_LIST';

export type AssetProfileRelationshipType =
  | 'MANY'
  | 'ONE';

export type AssetProfileViewConfiguration = {
  __typename?: 'AssetProfileViewConfiguration';
  id: Scalars['ID']['output'];
  layouts: Maybe<Array<AssetProfileViewLayout>>;
  map: Maybe<AssetProfileViewMap>;
  name: Maybe<Scalars['String']['output']>;
  /** Incremented by every change; send it back as `expectedVersion` to avoid overwriting others. */
  version: Scalars['Int']['output'];
};


export type AssetProfileViewConfigurationLayoutsArgs = {
  mediaTypes?: InputMaybe<Array<AssetProfileViewLayoutMediaType>>;
};

export type AssetProfileViewConfigurationMutationResult = {
  __typename?: 'AssetProfileViewConfigurationMutationResult';
  correlationId: Scalars['String']['output'];
  errors: Array<AssetMutationError>;
  viewConfiguration: Maybe<AssetProfileViewConfiguration>;
};

export type AssetProfileViewLayout = {
  __typename?: 'AssetProfileViewLayout';
  mediaType: AssetProfileViewLayoutMediaType;
  widgets: Maybe<Array<AssetProfileViewWidget>>;
};

/** A widget's place on a 12-column grid: column x, row y, width w, height h. */
export type AssetProfileViewLayoutDetails = {
  __typename?: 'AssetProfileViewLayoutDetails';
  h: Scalars['Int']['output'];
  w: Scalars['Int']['output'];
  x: Scalars['Int']['output'];
  y: Scalars['Int']['output'];
};

export type AssetProfileViewLayoutDetailsInput = {
  h: Scalars['Int']['input'];
  w: Scalars['Int']['input'];
  x: Scalars['Int']['input'];
  y: Scalars['Int']['input'];
};

export type AssetProfileViewLayoutMediaType =
  | 'MOBILE'
  | 'PRINTABLE'
  | 'WEB';

export type AssetProfileViewLayoutMutationResult = {
  __typename?: 'AssetProfileViewLayoutMutationResult';
  correlationId: Scalars['String']['output'];
  errors: Array<AssetMutationError>;
  layout: Maybe<AssetProfileViewLayout>;
  viewConfiguration: Maybe<AssetProfileViewConfiguration>;
};

/** How assets of the profile show on a map. */
export type AssetProfileViewMap = {
  __typename?: 'AssetProfileViewMap';
  /** A base-map style name understood by the client (e.g. `streets`, `satellite`). */
  baseLayer: Maybe<Scalars['String']['output']>;
  /** `[longitude, latitude]` of the initial centre; null to fit the assets. */
  center: Maybe<Array<Scalars['Float']['output']>>;
  layers: Array<AssetProfileViewMapLayer>;
  maxZoom: Maybe<Scalars['Float']['output']>;
  minZoom: Maybe<Scalars['Float']['output']>;
  zoom: Maybe<Scalars['Float']['output']>;
};

export type AssetProfileViewMapInput = {
  baseLayer?: InputMaybe<Scalars['String']['input']>;
  center?: InputMaybe<Array<Scalars['Float']['input']>>;
  layers?: InputMaybe<Array<AssetProfileViewMapLayerInput>>;
  maxZoom?: InputMaybe<Scalars['Float']['input']>;
  minZoom?: InputMaybe<Scalars['Float']['input']>;
  zoom?: InputMaybe<Scalars['Float']['input']>;
};

export type AssetProfileViewMapLayer = {
  __typename?: 'AssetProfileViewMapLayer';
  /** Only assets matching this predicate (an AssetFilter as JSON). */
  filter: Maybe<Scalars['JSONObject']['output']>;
  id: Scalars['ID']['output'];
  /** Label features with this property. */
  labelProperty: Maybe<Scalars['String']['output']>;
  name: Scalars['String']['output'];
  /** Property value → colour (`#rrggbb`); `default` for the rest. */
  styleColors: Maybe<Scalars['JSONObject']['output']>;
  /** Colour features by this property's value. */
  styleProperty: Maybe<Scalars['String']['output']>;
  visible: Scalars['Boolean']['output'];
};

export type AssetProfileViewMapLayerInput = {
  filter?: InputMaybe<AssetFilter>;
  id: Scalars['ID']['input'];
  labelProperty?: InputMaybe<Scalars['String']['input']>;
  name: Scalars['String']['input'];
  styleColors?: InputMaybe<Scalars['JSONObject']['input']>;
  styleProperty?: InputMaybe<Scalars['String']['input']>;
  visible?: InputMaybe<Scalars['Boolean']['input']>;
};

export type AssetProfileViewWidget = {
  __typename?: 'AssetProfileViewWidget';
  id: Scalars['ID']['output'];
  layout: AssetProfileViewLayoutDetails;
  name: Scalars['String']['output'];
  settings: Scalars['JSONObject']['output'];
  widget: Scalars['String']['output'];
};

export type AssetProfileViewWidgetInput = {
  id: Scalars['ID']['input'];
  layout: AssetProfileViewLayoutDetailsInput;
  name: Scalars['String']['input'];
  settings?: InputMaybe<Scalars['JSONObject']['input']>;
  widget: Scalars['String']['input'];
};

export type AssetProfiles = {
  __typename?: 'AssetProfiles';
  /** Profiles ordered by `profile`. `first` defaults to 100, at most 500. */
  all: AssetProfilesConnection;
  byId: Maybe<AssetProfile>;
};


export type AssetProfilesAllArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};


export type AssetProfilesByIdArgs = {
  profile: Scalars['ID']['input'];
};

export type AssetProfilesConnection = {
  __typename?: 'AssetProfilesConnection';
  edges: Array<AssetProfileEdge>;
  pageInfo: PageInfo;
};

export type AssetPropertyDefinition = {
  __typename?: 'AssetPropertyDefinition';
  /** The value an asset shows when it has none. */
  default: Maybe<Scalars['JSON']['output']>;
  description: Maybe<Scalars['String']['output']>;
  /** Allowed values when `type` is ENUM. */
  enumValues: Maybe<Array<Scalars['String']['output']>>;
  /** The extension that defines the property; null for the profile's own. */
  extension: Maybe<Scalars['String']['output']>;
  /** The property's key in `Asset.properties`. */
  name: Scalars['String']['output'];
  /** Every asset must have a value (after defaults apply). */
  required: Scalars['Boolean']['output'];
  title: Maybe<Scalars['String']['output']>;
  type: AssetPropertyType;
  /** Unit of measure, UCUM where one exists (e.g. `m`, `bar`, `m3/d`). */
  unit: Maybe<Scalars['String']['output']>;
};

export type AssetPropertyDefinitionInput = {
  default?: InputMaybe<Scalars['JSON']['input']>;
  description?: InputMaybe<Scalars['String']['input']>;
  enumValues?: InputMaybe<Array<Scalars['String']['input']>>;
  name: Scalars['String']['input'];
  required?: InputMaybe<Scalars['Boolean']['input']>;
  title?: InputMaybe<Scalars['String']['input']>;
  type: AssetPropertyType;
  unit?: InputMaybe<Scalars['String']['input']>;
};

/** A comparison on one property; exactly one operator besides `caseInsensitive`. */
export type AssetPropertyPredicate = {
  /** Compare strings without regard to case (equals, in, contains, startsWith). */
  caseInsensitive?: InputMaybe<Scalars['Boolean']['input']>;
  contains?: InputMaybe<Scalars['String']['input']>;
  equals?: InputMaybe<Scalars['JSON']['input']>;
  exists?: InputMaybe<Scalars['Boolean']['input']>;
  gt?: InputMaybe<Scalars['JSON']['input']>;
  gte?: InputMaybe<Scalars['JSON']['input']>;
  in?: InputMaybe<Array<Scalars['JSON']['input']>>;
  lt?: InputMaybe<Scalars['JSON']['input']>;
  lte?: InputMaybe<Scalars['JSON']['input']>;
  name: Scalars['String']['input'];
  notEquals?: InputMaybe<Scalars['JSON']['input']>;
  startsWith?: InputMaybe<Scalars['String']['input']>;
};

/** The value types a property may hold. */
export type AssetPropertyType =
  | 'BOOLEAN'
  | 'DATE'
  | 'DATE_TIME'
  | 'ENUM'
  | 'INTEGER'
  | 'JSON'
  | 'NUMBER'
  | 'STRING';

/** A pointer to an asset by profile and id, resolvable even when the asset is gone. */
export type AssetReference = {
  __typename?: 'AssetReference';
  /** The asset, or null when it no longer exists. */
  asset: Maybe<Asset>;
  id: Scalars['ID']['output'];
  profile: Scalars['ID']['output'];
};

/** A predicate on the assets reached through a relationship. */
export type AssetRelatedPredicate = {
  /** No related asset matches (with `none: {}`, there are no related assets). */
  none?: InputMaybe<AssetFilter>;
  relationship: Scalars['ID']['input'];
  /** At least one related asset matches. */
  some?: InputMaybe<AssetFilter>;
};

export type AssetRelationship = AssetRelationshipMany | AssetRelationshipOne;

/** At most 1000 assets, in ascending `id` order (docs/schema.md). */
export type AssetRelationshipMany = {
  __typename?: 'AssetRelationshipMany';
  assets: Maybe<Array<Asset>>;
  observations: Maybe<Array<Scalars['JSONObject']['output']>>;
};

export type AssetRelationshipOne = {
  __typename?: 'AssetRelationshipOne';
  asset: Maybe<Asset>;
  observation: Maybe<Scalars['JSONObject']['output']>;
};

export type AssetSelectionFilter = {
  __typename?: 'AssetSelectionFilter';
  assetProfile: AssetProfile;
  /** The assets the filter selects, paginated as `AssetProfile.assets`. */
  assets: Maybe<AssetsConnection>;
  audit: Maybe<AssetSelectionFilterAudit>;
  description: Maybe<Scalars['String']['output']>;
  displayName: Scalars['String']['output'];
  /** The predicate on the profile's own assets, as JSON in the AssetFilter shape. */
  filter: Maybe<Scalars['JSONObject']['output']>;
  id: Scalars['ID']['output'];
  profile: Scalars['ID']['output'];
  subProfiles: Maybe<Array<AssetSelectionFilterRelationship>>;
};


export type AssetSelectionFilterAssetsArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  before?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
  last?: InputMaybe<Scalars['Int']['input']>;
};

export type AssetSelectionFilterAudit = {
  __typename?: 'AssetSelectionFilterAudit';
  createdAt: Scalars['DateTime']['output'];
  createdBy: Scalars['String']['output'];
  updatedAt: Scalars['DateTime']['output'];
  updatedBy: Scalars['String']['output'];
  version: Scalars['Int']['output'];
};

/** A related profile the selection reaches through a relationship, with its own predicate. */
export type AssetSelectionFilterRelationship = {
  __typename?: 'AssetSelectionFilterRelationship';
  filter: Maybe<Scalars['JSONObject']['output']>;
  profile: Scalars['ID']['output'];
  relationship: Scalars['ID']['output'];
  subProfiles: Maybe<Array<AssetSelectionFilterRelationship>>;
};

export type AssetSelectionFilterRelationshipInput = {
  filter?: InputMaybe<AssetFilter>;
  relationship: Scalars['ID']['input'];
  subProfiles?: InputMaybe<Array<AssetSelectionFilterRelationshipInput>>;
};

export type Assets = {
  __typename?: 'Assets';
  /** The same listing as `AssetProfile.assets`. */
  all: AssetsConnection;
  assetProfile: Maybe<AssetProfile>;
  byId: Maybe<Asset>;
  /**
   * What a map of the assets shows in a viewport, `filter` applied (docs/schema.md §6): the assets
   * whose geometry's bounding box meets `bbox`, each one when there are at most `limit`, else their
   * counts per cell of a grid of about 64 pixels at `zoom`, computed by the server. `bbox` is
   * `[minLongitude, minLatitude, maxLongitude, maxLatitude]`, within -180..180 and -90..90, not
   * across the antimeridian; `zoom` is the map's zoom level, 0-22 (the world 256·2^zoom pixels
   * across); `limit` 1-2000, by default 1000. A request asks at most 10 viewports (assetql addition).
   */
  mapViewport: AssetMapViewport;
  profile: Scalars['ID']['output'];
};


export type AssetsAllArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  before?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<AssetFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
  last?: InputMaybe<Scalars['Int']['input']>;
};


export type AssetsByIdArgs = {
  id: Scalars['ID']['input'];
};


export type AssetsMapViewportArgs = {
  bbox: Array<Scalars['Float']['input']>;
  filter?: InputMaybe<AssetFilter>;
  limit?: InputMaybe<Scalars['Int']['input']>;
  zoom: Scalars['Int']['input'];
};

export type AssetsConnection = {
  __typename?: 'AssetsConnection';
  edges: Maybe<Array<Maybe<AssetEdge>>>;
  pageInfo: PageInfo;
  /**
   * How many assets the listing holds, its filter applied, whatever the page: counted up to 10,000,
   * and 10,000 for a listing of more (then `totalCountIsExact` is false). One statement for both
   * fields. A request counts at most 10 listings: past them, null with an error (assetql addition).
   */
  totalCount: Maybe<Scalars['Int']['output']>;
  /** False when the listing holds more than `totalCount` assets; null as `totalCount` is (assetql addition). */
  totalCountIsExact: Maybe<Scalars['Boolean']['output']>;
};

export type AssetsMutationResult = {
  __typename?: 'AssetsMutationResult';
  /** The assets as stored (upsertAssets), in the order given. */
  assets: Maybe<Array<Asset>>;
  correlationId: Scalars['String']['output'];
  deleted: Scalars['Int']['output'];
  errors: Array<AssetMutationError>;
  inserted: Scalars['Int']['output'];
  updated: Scalars['Int']['output'];
};

export type ConvertAssetsInput = {
  /** The conversion configuration of that profile. */
  conversion: Scalars['ID']['input'];
  /** Source assets; each becomes (or updates) the target asset with the same id. */
  ids: Array<Scalars['ID']['input']>;
  /** The source profile. */
  profile: Scalars['ID']['input'];
};

export type CreateAssetFilterDownloadInput = {
  filterId: Scalars['ID']['input'];
  /** XLSX instead of CSV. */
  isExcel?: InputMaybe<Scalars['Boolean']['input']>;
  /** The file name without extension; the filter's display name when absent. */
  name?: InputMaybe<Scalars['String']['input']>;
  /** Property columns after id and displayName; every property of the profile when absent. */
  properties?: InputMaybe<Array<Scalars['String']['input']>>;
};

export type CreateAssetFilterInput = {
  description?: InputMaybe<Scalars['String']['input']>;
  displayName: Scalars['String']['input'];
  filter?: InputMaybe<AssetFilter>;
  id: Scalars['ID']['input'];
  profile: Scalars['ID']['input'];
  subProfiles: Array<AssetSelectionFilterRelationshipInput>;
};

export type DeleteAssetsInput = {
  /** Remove the rows instead of marking them deleted. */
  hard?: InputMaybe<Scalars['Boolean']['input']>;
  ids: Array<Scalars['ID']['input']>;
  profile: Scalars['ID']['input'];
};

export type EntityOwner = {
  __typename?: 'EntityOwner';
  group: Scalars['String']['output'];
  username: Scalars['String']['output'];
};

export type GeoJsonFeature = {
  __typename?: 'GeoJSONFeature';
  bbox: Maybe<Array<Scalars['Float']['output']>>;
  geometry: Maybe<GeoJsonGeometryInterface>;
  /** `profile/id` of the asset. */
  id: Maybe<Scalars['ID']['output']>;
  properties: Maybe<Scalars['JSONObject']['output']>;
  type: GeoJsonType;
};

export type GeoJsonGeometryCollection = GeoJsonGeometryInterface & {
  __typename?: 'GeoJSONGeometryCollection';
  bbox: Maybe<Array<Scalars['Float']['output']>>;
  geometries: Array<GeoJsonGeometryInterface>;
  type: GeoJsonType;
};

export type GeoJsonGeometryInterface = {
  bbox: Maybe<Array<Scalars['Float']['output']>>;
  type: GeoJsonType;
};

export type GeoJsonLineString = GeoJsonGeometryInterface & {
  __typename?: 'GeoJSONLineString';
  bbox: Maybe<Array<Scalars['Float']['output']>>;
  coordinates: Array<Array<Scalars['Float']['output']>>;
  type: GeoJsonType;
};

export type GeoJsonMultiLineString = GeoJsonGeometryInterface & {
  __typename?: 'GeoJSONMultiLineString';
  bbox: Maybe<Array<Scalars['Float']['output']>>;
  coordinates: Array<Array<Array<Scalars['Float']['output']>>>;
  type: GeoJsonType;
};

export type GeoJsonMultiPoint = GeoJsonGeometryInterface & {
  __typename?: 'GeoJSONMultiPoint';
  bbox: Maybe<Array<Scalars['Float']['output']>>;
  coordinates: Array<Array<Scalars['Float']['output']>>;
  type: GeoJsonType;
};

export type GeoJsonMultiPolygon = GeoJsonGeometryInterface & {
  __typename?: 'GeoJSONMultiPolygon';
  bbox: Maybe<Array<Scalars['Float']['output']>>;
  coordinates: Array<Array<Array<Array<Scalars['Float']['output']>>>>;
  type: GeoJsonType;
};

export type GeoJsonPoint = GeoJsonGeometryInterface & {
  __typename?: 'GeoJSONPoint';
  bbox: Maybe<Array<Scalars['Float']['output']>>;
  coordinates: Array<Scalars['Float']['output']>;
  type: GeoJsonType;
};

export type GeoJsonPolygon = GeoJsonGeometryInterface & {
  __typename?: 'GeoJSONPolygon';
  bbox: Maybe<Array<Scalars['Float']['output']>>;
  coordinates: Array<Array<Array<Scalars['Float']['output']>>>;
  type: GeoJsonType;
};

export type GeoJsonType =
  | 'Feature'
  | 'FeatureCollection'
  | 'GeometryCollection'
  | 'LineString'
  | 'MultiLineString'
  | 'MultiPoint'
  | 'MultiPolygon'
  | 'Point'
  | 'Polygon';

export type IssueSubject = {
  __typename?: 'IssueSubject';
  /** The asset when `type` is `asset` and `reference` names an asset of the caller's group. */
  assetReference: Maybe<AssetReference>;
  reference: Scalars['ID']['output'];
  type: Scalars['String']['output'];
};

/** A key's latest value on an asset (assetql addition). */
export type LatestObservation = {
  __typename?: 'LatestObservation';
  /** When the value was observed. */
  at: Maybe<Scalars['DateTime']['output']>;
  property: Scalars['String']['output'];
  /** The unit of the profile's property of the same name, if any. */
  unit: Maybe<Scalars['String']['output']>;
  value: Maybe<Scalars['JSON']['output']>;
};

export type Mutation = {
  __typename?: 'Mutation';
  /** Applies a conversion configuration to up to 1000 assets, all or none (assetql addition). */
  convertAssets: AssetsMutationResult;
  createAssetFilter: Maybe<AssetFilterMutationResult>;
  /** Makes a download of a saved filter's assets, listed by `assetFilterDownloads` (assetql addition). */
  createAssetFilterDownload: AssetFilterDownloadMutationResult;
  /** Deletes a download of the caller's group; its link answers 404 from then on (assetql addition). */
  deleteAssetDownload: AssetFilterDownloadMutationResult;
  /** Marks up to 1000 assets deleted, or removes them with `hard: true` (assetql addition). */
  deleteAssets: AssetsMutationResult;
  putAssetProfileExtension: Maybe<AssetProfileMutationResult>;
  /**
   * Stores up to 10,000 observations of one state dataset, all or none (docs/telemetry.md). An
   * observation already stored for the same asset, key and time is replaced; an older observation
   * never replaces a newer latest value (assetql addition).
   */
  recordObservations: RecordObservationsResult;
  removeAssetProfileExtension: Maybe<AssetProfileMutationResult>;
  updateAssetFilter: Maybe<AssetFilterMutationResult>;
  updateAssetProfile: Maybe<AssetProfileMutationResult>;
  updateAssetProfileAssetConversionConfiguration: AssetProfileAssetConversionConfigurationMutationResult;
  updateAssetProfileViewConfiguration: AssetProfileViewConfigurationMutationResult;
  updateAssetProfileViewLayout: AssetProfileViewLayoutMutationResult;
  /** Creates or replaces up to 1000 assets of one profile, all or none (assetql addition). */
  upsertAssets: AssetsMutationResult;
};


export type MutationConvertAssetsArgs = {
  correlationId?: InputMaybe<Scalars['String']['input']>;
  input: ConvertAssetsInput;
};


export type MutationCreateAssetFilterArgs = {
  correlationId?: InputMaybe<Scalars['String']['input']>;
  input: CreateAssetFilterInput;
};


export type MutationCreateAssetFilterDownloadArgs = {
  correlationId?: InputMaybe<Scalars['String']['input']>;
  input: CreateAssetFilterDownloadInput;
};


export type MutationDeleteAssetDownloadArgs = {
  correlationId?: InputMaybe<Scalars['String']['input']>;
  id: Scalars['ID']['input'];
};


export type MutationDeleteAssetsArgs = {
  correlationId?: InputMaybe<Scalars['String']['input']>;
  input: DeleteAssetsInput;
};


export type MutationPutAssetProfileExtensionArgs = {
  input: PutAssetProfileExtensionInput;
};


export type MutationRecordObservationsArgs = {
  correlationId?: InputMaybe<Scalars['String']['input']>;
  input: RecordObservationsInput;
};


export type MutationRemoveAssetProfileExtensionArgs = {
  input: RemoveAssetProfileExtensionInput;
};


export type MutationUpdateAssetFilterArgs = {
  correlationId?: InputMaybe<Scalars['String']['input']>;
  input: UpdateAssetFilterInput;
};


export type MutationUpdateAssetProfileArgs = {
  input?: InputMaybe<UpdateAssetProfileInput>;
};


export type MutationUpdateAssetProfileAssetConversionConfigurationArgs = {
  input: UpdateAssetProfileAssetConversionConfigurationInput;
};


export type MutationUpdateAssetProfileViewConfigurationArgs = {
  input: UpdateAssetProfileViewConfigurationInput;
};


export type MutationUpdateAssetProfileViewLayoutArgs = {
  input?: InputMaybe<UpdateAssetProfileViewLayoutInput>;
};


export type MutationUpsertAssetsArgs = {
  correlationId?: InputMaybe<Scalars['String']['input']>;
  input: UpsertAssetsInput;
};

/** What `observationSeries` computes per bucket. */
export type ObservationAggregate =
  | 'AVG'
  | 'COUNT'
  | 'FIRST'
  | 'LAST'
  | 'MAX'
  | 'MIN'
  | 'STDDEV'
  | 'SUM';

/** One bucket [start, end) of a series; aggregates not asked for, and those of an empty bucket unless filled, are null. */
export type ObservationBucket = {
  __typename?: 'ObservationBucket';
  avg: Maybe<Scalars['Float']['output']>;
  count: Scalars['Int']['output'];
  end: Scalars['DateTime']['output'];
  first: Maybe<Scalars['Float']['output']>;
  last: Maybe<Scalars['Float']['output']>;
  max: Maybe<Scalars['Float']['output']>;
  min: Maybe<Scalars['Float']['output']>;
  start: Scalars['DateTime']['output'];
  /** The sample standard deviation; null under two readings. */
  stddev: Maybe<Scalars['Float']['output']>;
  sum: Maybe<Scalars['Float']['output']>;
};

export type ObservationConnection = {
  __typename?: 'ObservationConnection';
  edges: Array<ObservationEdge>;
  pageInfo: PageInfo;
};

export type ObservationDownsample = {
  method?: InputMaybe<ObservationDownsampleMethod>;
  /** At most this many readings, 3 to 10,000. */
  points: Scalars['Int']['input'];
};

export type ObservationDownsampleMethod =
  /** Largest-Triangle-Three-Buckets (Steinarsson, 2013), over min/max preselected readings on long ranges. */
  | 'LTTB';

export type ObservationEdge = {
  __typename?: 'ObservationEdge';
  cursor: Scalars['String']['output'];
  node: ObservationReading;
};

/**
 * What an empty bucket of `observationSeries` holds. NONE leaves it out; NULL gives it with null
 * aggregates; ZERO with zeros; PREVIOUS with the previous bucket's aggregates; LINEAR with values
 * interpolated between the buckets either side (null before the first and after the last). Its
 * `count` is 0 whatever the fill.
 */
export type ObservationFill =
  | 'LINEAR'
  | 'NONE'
  | 'NULL'
  | 'PREVIOUS'
  | 'ZERO';

export type ObservationInput = {
  at: Scalars['DateTime']['input'];
  /** The asset's id. */
  id: Scalars['ID']['input'];
  /** Key to value: a number, a string or a boolean (or the type of the profile's property of that key). */
  values: Scalars['JSONObject']['input'];
};

/** One time's readings: the key asked for, or every key read at that time. */
export type ObservationReading = {
  __typename?: 'ObservationReading';
  at: Scalars['DateTime']['output'];
  values: Scalars['JSONObject']['output'];
};

export type ObservationSeries = {
  __typename?: 'ObservationSeries';
  buckets: Array<ObservationBucket>;
  /**
   * The same buckets as CSV (RFC 4180): a header `start,end,count,avg,min,max,sum,stddev,first,last`,
   * then a row a bucket, times in ISO 8601 UTC, aggregates not asked for empty (assetql addition).
   */
  csv: Scalars['String']['output'];
  property: Scalars['String']['output'];
  resolution: Scalars['String']['output'];
  timezone: Scalars['String']['output'];
  unit: Maybe<Scalars['String']['output']>;
};

export type PageInfo = {
  __typename?: 'PageInfo';
  endCursor: Maybe<Scalars['String']['output']>;
  hasNextPage: Scalars['Boolean']['output'];
  hasPreviousPage: Scalars['Boolean']['output'];
  startCursor: Maybe<Scalars['String']['output']>;
};

export type Query = {
  __typename?: 'Query';
  assetFilter: Maybe<AssetSelectionFilter>;
  /** Exports made from saved selection filters, newest first. */
  assetFilterDownloads: Maybe<Array<AssetDownload>>;
  /** Saved asset selection filters of the caller's group, ordered by id. */
  assetFilters: Maybe<Array<AssetSelectionFilter>>;
  /** Asset profiles of the caller's group (spec §4.2). */
  assetProfiles: Maybe<AssetProfiles>;
  /** The assets of one profile (spec §4.2); null when the profile does not exist in the caller's group. */
  assets: Maybe<Assets>;
};


export type QueryAssetFilterArgs = {
  id: Scalars['ID']['input'];
};


export type QueryAssetsArgs = {
  profile: Scalars['ID']['input'];
};

export type RecordObservationsInput = {
  /** A state dataset of the profile. */
  dataset: Scalars['ID']['input'];
  observations: Array<ObservationInput>;
  profile: Scalars['ID']['input'];
};

export type RecordObservationsResult = {
  __typename?: 'RecordObservationsResult';
  correlationId: Scalars['String']['output'];
  errors: Array<AssetMutationError>;
  /** Observations stored (0 when refused). */
  recorded: Scalars['Int']['output'];
};

/** A source of timestamped asset state; the latest value of each key forms `Asset.observation`. */
export type StateUpdateDataset = {
  __typename?: 'StateUpdateDataset';
  columns: Array<Scalars['String']['output']>;
  dataset: Scalars['ID']['output'];
  latestObservationAt: Maybe<Scalars['DateTime']['output']>;
  observationCount: Scalars['Int']['output'];
  title: Maybe<Scalars['String']['output']>;
};

/** A source of asset properties: rows keyed by asset id, merged in ascending `priority`. */
export type UpDataset = {
  __typename?: 'UpDataset';
  columns: Array<Scalars['String']['output']>;
  dataset: Scalars['ID']['output'];
  modifiedAt: Maybe<Scalars['DateTime']['output']>;
  /** Later datasets win where two fill the same property. */
  priority: Scalars['Int']['output'];
  rowCount: Scalars['Int']['output'];
  title: Maybe<Scalars['String']['output']>;
};

/** A parameter that `related(params:)` accepts for a relationship. */
export type UpSpecificationParameter = {
  __typename?: 'UpSpecificationParameter';
  default: Maybe<Scalars['JSON']['output']>;
  description: Maybe<Scalars['String']['output']>;
  name: Scalars['String']['output'];
  required: Scalars['Boolean']['output'];
  type: AssetPropertyType;
};

export type UpSpecificationParameterInput = {
  default?: InputMaybe<Scalars['JSON']['input']>;
  description?: InputMaybe<Scalars['String']['input']>;
  name: Scalars['String']['input'];
  required?: InputMaybe<Scalars['Boolean']['input']>;
  type: AssetPropertyType;
};

export type UpdateAssetFilterInput = {
  description?: InputMaybe<Scalars['String']['input']>;
  displayName?: InputMaybe<Scalars['String']['input']>;
  expectedVersion?: InputMaybe<Scalars['Int']['input']>;
  filter?: InputMaybe<AssetFilter>;
  id: Scalars['ID']['input'];
  /** The same as `expectedVersion`, by the name every versioned input takes (assetql addition). */
  ifVersion?: InputMaybe<Scalars['Int']['input']>;
  subProfiles?: InputMaybe<Array<AssetSelectionFilterRelationshipInput>>;
};

/** Creates or replaces conversion configuration `id` of `profile`, or deletes it. */
export type UpdateAssetProfileAssetConversionConfigurationInput = {
  delete?: InputMaybe<Scalars['Boolean']['input']>;
  deleteSource?: InputMaybe<Scalars['Boolean']['input']>;
  id: Scalars['ID']['input'];
  name?: InputMaybe<Scalars['String']['input']>;
  profile: Scalars['ID']['input'];
  propertyMappings?: InputMaybe<Array<AssetConversionPropertyMappingInput>>;
  sourceRelationship?: InputMaybe<Scalars['ID']['input']>;
  targetProfile: Scalars['ID']['input'];
};

export type UpdateAssetProfileInput = {
  displayNameProperty?: InputMaybe<Scalars['String']['input']>;
  /** A template such as `{name} ({serial|id})`: `|` gives fallbacks; see docs/assets.md. */
  displayNameTemplate?: InputMaybe<Scalars['String']['input']>;
  forceAssetStateUpdates?: InputMaybe<Scalars['Boolean']['input']>;
  /** Fail with VERSION_CONFLICT unless the profile is at this version (assetql addition). */
  ifVersion?: InputMaybe<Scalars['Int']['input']>;
  isDeletedProperty?: InputMaybe<Scalars['String']['input']>;
  profile: Scalars['ID']['input'];
  secondaryDisplayNameProperty?: InputMaybe<Scalars['String']['input']>;
  title?: InputMaybe<Scalars['String']['input']>;
};

/** Creates the view configuration `id` when it does not exist, otherwise updates it. */
export type UpdateAssetProfileViewConfigurationInput = {
  /** Delete the view configuration. */
  delete?: InputMaybe<Scalars['Boolean']['input']>;
  /** Fail with VERSION_CONFLICT unless the stored version is this one. */
  expectedVersion?: InputMaybe<Scalars['Int']['input']>;
  id: Scalars['ID']['input'];
  /** The same as `expectedVersion`, by the name every versioned input takes (assetql addition). */
  ifVersion?: InputMaybe<Scalars['Int']['input']>;
  map?: InputMaybe<AssetProfileViewMapInput>;
  name?: InputMaybe<Scalars['String']['input']>;
  profile: Scalars['ID']['input'];
};

/** Replaces the widgets of one media type's layout. */
export type UpdateAssetProfileViewLayoutInput = {
  expectedVersion?: InputMaybe<Scalars['Int']['input']>;
  /** The same as `expectedVersion`, by the name every versioned input takes (assetql addition). */
  ifVersion?: InputMaybe<Scalars['Int']['input']>;
  mediaType: AssetProfileViewLayoutMediaType;
  profile: Scalars['ID']['input'];
  viewConfiguration: Scalars['ID']['input'];
  widgets: Array<AssetProfileViewWidgetInput>;
};

export type UpsertAssetsInput = {
  assets: Array<AssetInput>;
  profile: Scalars['ID']['input'];
};

/** Adds or replaces the named layer of definitions on a profile. */
export type PutAssetProfileExtensionInput = {
  extension: Scalars['ID']['input'];
  profile: Scalars['ID']['input'];
  properties?: InputMaybe<Array<AssetPropertyDefinitionInput>>;
  propertyMaps?: InputMaybe<Array<AssetProfilePropertyMappingInput>>;
  relationships?: InputMaybe<Array<AssetProfileRelationshipInput>>;
};

export type RemoveAssetProfileExtensionInput = {
  extension: Scalars['ID']['input'];
  profile: Scalars['ID']['input'];
};

export type WithIndex<TObject> = TObject & Record<string, any>;
export type ResolversObject<TObject> = WithIndex<TObject>;

export type ResolverTypeWrapper<T> = Promise<T> | T;

export type ReferenceResolver<TResult, TReference, TContext> = (
      reference: TReference,
      context: TContext,
      info: GraphQLResolveInfo
    ) => Promise<TResult> | TResult;

      type ScalarCheck<T, S> = S extends true ? T : NullableCheck<T, S>;
      type NullableCheck<T, S> = Maybe<T> extends T ? Maybe<ListCheck<NonNullable<T>, S>> : ListCheck<T, S>;
      type ListCheck<T, S> = T extends (infer U)[] ? NullableCheck<U, S>[] : GraphQLRecursivePick<T, S>;
      export type GraphQLRecursivePick<T, S> = { [K in keyof T & keyof S]: ScalarCheck<T[K], S[K]> };
    

export type ResolverWithResolve<TResult, TParent, TContext, TArgs> = {
  resolve: ResolverFn<TResult, TParent, TContext, TArgs>;
};
export type Resolver<TResult, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = ResolverFn<TResult, TParent, TContext, TArgs> | ResolverWithResolve<TResult, TParent, TContext, TArgs>;

export type ResolverFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => Promise<TResult> | TResult;

export type SubscriptionSubscribeFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => AsyncIterable<TResult> | Promise<AsyncIterable<TResult>>;

export type SubscriptionResolveFn<TResult, TParent, TContext, TArgs> = (
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;

export interface SubscriptionSubscriberObject<TResult, TKey extends string, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<{ [key in TKey]: TResult }, TParent, TContext, TArgs>;
  resolve?: SubscriptionResolveFn<TResult, { [key in TKey]: TResult }, TContext, TArgs>;
}

export interface SubscriptionResolverObject<TResult, TParent, TContext, TArgs> {
  subscribe: SubscriptionSubscribeFn<any, TParent, TContext, TArgs>;
  resolve: SubscriptionResolveFn<TResult, any, TContext, TArgs>;
}

export type SubscriptionObject<TResult, TKey extends string, TParent, TContext, TArgs> =
  | SubscriptionSubscriberObject<TResult, TKey, TParent, TContext, TArgs>
  | SubscriptionResolverObject<TResult, TParent, TContext, TArgs>;

export type SubscriptionResolver<TResult, TKey extends string, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> =
  | ((...args: any[]) => SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>)
  | SubscriptionObject<TResult, TKey, TParent, TContext, TArgs>;

export type TypeResolveFn<TTypes, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (
  parent: TParent,
  context: TContext,
  info: GraphQLResolveInfo
) => Maybe<TTypes> | Promise<Maybe<TTypes>>;

export type IsTypeOfResolverFn<T = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>> = (obj: T, context: TContext, info: GraphQLResolveInfo) => boolean | Promise<boolean>;

export type NextResolverFn<T> = () => Promise<T>;

export type DirectiveResolverFn<TResult = Record<PropertyKey, never>, TParent = Record<PropertyKey, never>, TContext = Record<PropertyKey, never>, TArgs = Record<PropertyKey, never>> = (
  next: NextResolverFn<TResult>,
  parent: TParent,
  args: TArgs,
  context: TContext,
  info: GraphQLResolveInfo
) => TResult | Promise<TResult>;

/** Mapping of federation types */
export type FederationTypes = ResolversObject<{
  Asset: Asset;
  AssetProfile: AssetProfile;
  AssetSelectionFilter: AssetSelectionFilter;
  IssueSubject: IssueSubject;
}>;

/** Mapping of federation reference types */
export type FederationReferenceTypes = ResolversObject<{
  Asset:
    ( { __typename: 'Asset' }
    & GraphQLRecursivePick<FederationTypes['Asset'], {"profile":true,"id":true}> );
  AssetProfile:
    ( { __typename: 'AssetProfile' }
    & GraphQLRecursivePick<FederationTypes['AssetProfile'], {"profile":true}> );
  AssetSelectionFilter:
    ( { __typename: 'AssetSelectionFilter' }
    & GraphQLRecursivePick<FederationTypes['AssetSelectionFilter'], {"id":true}> );
  IssueSubject:
    ( { __typename: 'IssueSubject' }
    & GraphQLRecursivePick<FederationTypes['IssueSubject'], {"type":true,"reference":true}> );
}>;

/** Mapping of union types */
export type ResolversUnionTypes<_RefType extends Record<string, unknown>> = ResolversObject<{
  AssetRelationship:
    | ( RelationshipManyView )
    | ( RelationshipOneView )
  ;
}>;


/** Mapping between all available schema types and the resolvers types */
export type ResolversTypes = ResolversObject<{
  Asset: ResolverTypeWrapper<AssetRow>;
  String: ResolverTypeWrapper<Scalars['String']['output']>;
  ID: ResolverTypeWrapper<Scalars['ID']['output']>;
  Boolean: ResolverTypeWrapper<Scalars['Boolean']['output']>;
  Int: ResolverTypeWrapper<Scalars['Int']['output']>;
  AssetConversionPropertyMapping: ResolverTypeWrapper<AssetConversionPropertyMapping>;
  AssetConversionPropertyMappingInput: AssetConversionPropertyMappingInput;
  AssetDownload: ResolverTypeWrapper<DownloadRow>;
  AssetDownloadFormat: AssetDownloadFormat;
  AssetDownloadStatus: AssetDownloadStatus;
  AssetEdge: ResolverTypeWrapper<Omit<AssetEdge, 'node'> & { node?: Maybe<ResolversTypes['Asset']> }>;
  AssetErrorType: AssetErrorType;
  AssetFilter: AssetFilter;
  AssetFilterDownloadMutationResult: ResolverTypeWrapper<Omit<AssetFilterDownloadMutationResult, 'download'> & { download?: Maybe<ResolversTypes['AssetDownload']> }>;
  AssetFilterMutationResult: ResolverTypeWrapper<Omit<AssetFilterMutationResult, 'assetFilter'> & { assetFilter?: Maybe<ResolversTypes['AssetSelectionFilter']> }>;
  AssetGeometryNear: AssetGeometryNear;
  Float: ResolverTypeWrapper<Scalars['Float']['output']>;
  AssetGeometryPredicate: AssetGeometryPredicate;
  AssetInput: AssetInput;
  AssetMapCluster: ResolverTypeWrapper<AssetMapCluster>;
  AssetMapViewport: ResolverTypeWrapper<Omit<AssetMapViewport, 'features'> & { features: Array<ResolversTypes['Asset']> }>;
  AssetMutationError: ResolverTypeWrapper<AssetMutationError>;
  AssetProfile: ResolverTypeWrapper<EffectiveProfile>;
  AssetProfileAssetConversionConfiguration: ResolverTypeWrapper<ConversionRow>;
  AssetProfileAssetConversionConfigurationMutationResult: ResolverTypeWrapper<Omit<AssetProfileAssetConversionConfigurationMutationResult, 'assetConversionConfiguration'> & { assetConversionConfiguration?: Maybe<ResolversTypes['AssetProfileAssetConversionConfiguration']> }>;
  AssetProfileAssetExport: ResolverTypeWrapper<PendingExport>;
  AssetProfileEdge: ResolverTypeWrapper<Omit<AssetProfileEdge, 'node'> & { node: ResolversTypes['AssetProfile'] }>;
  AssetProfileMutationResult: ResolverTypeWrapper<Omit<AssetProfileMutationResult, 'assetProfile'> & { assetProfile?: Maybe<ResolversTypes['AssetProfile']> }>;
  AssetProfilePropertyMapping: ResolverTypeWrapper<EffectivePropertyMap>;
  AssetProfilePropertyMappingInput: AssetProfilePropertyMappingInput;
  AssetProfileRelationship: ResolverTypeWrapper<EffectiveRelationship>;
  AssetProfileRelationshipInput: AssetProfileRelationshipInput;
  AssetProfileRelationshipReferenceType: AssetProfileRelationshipReferenceType;
  AssetProfileRelationshipType: AssetProfileRelationshipType;
  AssetProfileViewConfiguration: ResolverTypeWrapper<ViewRow>;
  AssetProfileViewConfigurationMutationResult: ResolverTypeWrapper<Omit<AssetProfileViewConfigurationMutationResult, 'viewConfiguration'> & { viewConfiguration?: Maybe<ResolversTypes['AssetProfileViewConfiguration']> }>;
  AssetProfileViewLayout: ResolverTypeWrapper<AssetProfileViewLayout>;
  AssetProfileViewLayoutDetails: ResolverTypeWrapper<AssetProfileViewLayoutDetails>;
  AssetProfileViewLayoutDetailsInput: AssetProfileViewLayoutDetailsInput;
  AssetProfileViewLayoutMediaType: AssetProfileViewLayoutMediaType;
  AssetProfileViewLayoutMutationResult: ResolverTypeWrapper<Omit<AssetProfileViewLayoutMutationResult, 'viewConfiguration'> & { viewConfiguration?: Maybe<ResolversTypes['AssetProfileViewConfiguration']> }>;
  AssetProfileViewMap: ResolverTypeWrapper<Record<string, unknown>>;
  AssetProfileViewMapInput: AssetProfileViewMapInput;
  AssetProfileViewMapLayer: ResolverTypeWrapper<AssetProfileViewMapLayer>;
  AssetProfileViewMapLayerInput: AssetProfileViewMapLayerInput;
  AssetProfileViewWidget: ResolverTypeWrapper<AssetProfileViewWidget>;
  AssetProfileViewWidgetInput: AssetProfileViewWidgetInput;
  AssetProfiles: ResolverTypeWrapper<Record<string, never>>;
  AssetProfilesConnection: ResolverTypeWrapper<Omit<AssetProfilesConnection, 'edges'> & { edges: Array<ResolversTypes['AssetProfileEdge']> }>;
  AssetPropertyDefinition: ResolverTypeWrapper<EffectivePropertyDefinition>;
  AssetPropertyDefinitionInput: AssetPropertyDefinitionInput;
  AssetPropertyPredicate: AssetPropertyPredicate;
  AssetPropertyType: AssetPropertyType;
  AssetReference: ResolverTypeWrapper<{ profile: string; id: string }>;
  AssetRelatedPredicate: AssetRelatedPredicate;
  AssetRelationship: ResolverTypeWrapper<ResolversUnionTypes<ResolversTypes>['AssetRelationship']>;
  AssetRelationshipMany: ResolverTypeWrapper<RelationshipManyView>;
  AssetRelationshipOne: ResolverTypeWrapper<RelationshipOneView>;
  AssetSelectionFilter: ResolverTypeWrapper<SelectionFilterRow>;
  AssetSelectionFilterAudit: ResolverTypeWrapper<AssetSelectionFilterAudit>;
  AssetSelectionFilterRelationship: ResolverTypeWrapper<SubProfile>;
  AssetSelectionFilterRelationshipInput: AssetSelectionFilterRelationshipInput;
  Assets: ResolverTypeWrapper<{ profile: string }>;
  AssetsConnection: ResolverTypeWrapper<AssetsConnectionView>;
  AssetsMutationResult: ResolverTypeWrapper<Omit<AssetsMutationResult, 'assets'> & { assets?: Maybe<Array<ResolversTypes['Asset']>> }>;
  ConvertAssetsInput: ConvertAssetsInput;
  CreateAssetFilterDownloadInput: CreateAssetFilterDownloadInput;
  CreateAssetFilterInput: CreateAssetFilterInput;
  DateTime: ResolverTypeWrapper<Scalars['DateTime']['output']>;
  DeleteAssetsInput: DeleteAssetsInput;
  EntityOwner: ResolverTypeWrapper<{ username: string; group: string }>;
  GeoJSONFeature: ResolverTypeWrapper<Omit<GeoJsonFeature, 'geometry'> & { geometry?: Maybe<ResolversTypes['GeoJSONGeometryInterface']> }>;
  GeoJSONGeometryCollection: ResolverTypeWrapper<Record<string, unknown>>;
  GeoJSONGeometryInterface: ResolverTypeWrapper<Record<string, unknown>>;
  GeoJSONLineString: ResolverTypeWrapper<Record<string, unknown>>;
  GeoJSONMultiLineString: ResolverTypeWrapper<Record<string, unknown>>;
  GeoJSONMultiPoint: ResolverTypeWrapper<Record<string, unknown>>;
  GeoJSONMultiPolygon: ResolverTypeWrapper<Record<string, unknown>>;
  GeoJSONPoint: ResolverTypeWrapper<Record<string, unknown>>;
  GeoJSONPolygon: ResolverTypeWrapper<Record<string, unknown>>;
  GeoJSONType: GeoJsonType;
  IssueSubject: ResolverTypeWrapper<{ type: string; reference: string }>;
  JSON: ResolverTypeWrapper<Scalars['JSON']['output']>;
  JSONObject: ResolverTypeWrapper<Scalars['JSONObject']['output']>;
  LatestObservation: ResolverTypeWrapper<LatestObservation>;
  Mutation: ResolverTypeWrapper<Record<PropertyKey, never>>;
  ObservationAggregate: ObservationAggregate;
  ObservationBucket: ResolverTypeWrapper<ObservationBucket>;
  ObservationConnection: ResolverTypeWrapper<ObservationConnection>;
  ObservationDownsample: ObservationDownsample;
  ObservationDownsampleMethod: ObservationDownsampleMethod;
  ObservationEdge: ResolverTypeWrapper<ObservationEdge>;
  ObservationFill: ObservationFill;
  ObservationInput: ObservationInput;
  ObservationReading: ResolverTypeWrapper<ObservationReading>;
  ObservationSeries: ResolverTypeWrapper<ObservationSeries>;
  PageInfo: ResolverTypeWrapper<PageInfo>;
  Query: ResolverTypeWrapper<Record<PropertyKey, never>>;
  RecordObservationsInput: RecordObservationsInput;
  RecordObservationsResult: ResolverTypeWrapper<RecordObservationsResult>;
  StateUpdateDataset: ResolverTypeWrapper<StateUpdateDataset>;
  UpDataset: ResolverTypeWrapper<UpDataset>;
  UpSpecificationParameter: ResolverTypeWrapper<UpSpecificationParameter>;
  UpSpecificationParameterInput: UpSpecificationParameterInput;
  UpdateAssetFilterInput: UpdateAssetFilterInput;
  UpdateAssetProfileAssetConversionConfigurationInput: UpdateAssetProfileAssetConversionConfigurationInput;
  UpdateAssetProfileInput: UpdateAssetProfileInput;
  UpdateAssetProfileViewConfigurationInput: UpdateAssetProfileViewConfigurationInput;
  UpdateAssetProfileViewLayoutInput: UpdateAssetProfileViewLayoutInput;
  UpsertAssetsInput: UpsertAssetsInput;
  putAssetProfileExtensionInput: PutAssetProfileExtensionInput;
  removeAssetProfileExtensionInput: RemoveAssetProfileExtensionInput;
}>;

/** Mapping between all available schema types and the resolvers parents */
export type ResolversParentTypes = ResolversObject<{
  Asset: AssetRow;
  String: Scalars['String']['output'];
  ID: Scalars['ID']['output'];
  Boolean: Scalars['Boolean']['output'];
  Int: Scalars['Int']['output'];
  AssetConversionPropertyMapping: AssetConversionPropertyMapping;
  AssetConversionPropertyMappingInput: AssetConversionPropertyMappingInput;
  AssetDownload: DownloadRow;
  AssetEdge: Omit<AssetEdge, 'node'> & { node?: Maybe<ResolversParentTypes['Asset']> };
  AssetFilter: AssetFilter;
  AssetFilterDownloadMutationResult: Omit<AssetFilterDownloadMutationResult, 'download'> & { download?: Maybe<ResolversParentTypes['AssetDownload']> };
  AssetFilterMutationResult: Omit<AssetFilterMutationResult, 'assetFilter'> & { assetFilter?: Maybe<ResolversParentTypes['AssetSelectionFilter']> };
  AssetGeometryNear: AssetGeometryNear;
  Float: Scalars['Float']['output'];
  AssetGeometryPredicate: AssetGeometryPredicate;
  AssetInput: AssetInput;
  AssetMapCluster: AssetMapCluster;
  AssetMapViewport: Omit<AssetMapViewport, 'features'> & { features: Array<ResolversParentTypes['Asset']> };
  AssetMutationError: AssetMutationError;
  AssetProfile: EffectiveProfile;
  AssetProfileAssetConversionConfiguration: ConversionRow;
  AssetProfileAssetConversionConfigurationMutationResult: Omit<AssetProfileAssetConversionConfigurationMutationResult, 'assetConversionConfiguration'> & { assetConversionConfiguration?: Maybe<ResolversParentTypes['AssetProfileAssetConversionConfiguration']> };
  AssetProfileAssetExport: PendingExport;
  AssetProfileEdge: Omit<AssetProfileEdge, 'node'> & { node: ResolversParentTypes['AssetProfile'] };
  AssetProfileMutationResult: Omit<AssetProfileMutationResult, 'assetProfile'> & { assetProfile?: Maybe<ResolversParentTypes['AssetProfile']> };
  AssetProfilePropertyMapping: EffectivePropertyMap;
  AssetProfilePropertyMappingInput: AssetProfilePropertyMappingInput;
  AssetProfileRelationship: EffectiveRelationship;
  AssetProfileRelationshipInput: AssetProfileRelationshipInput;
  AssetProfileViewConfiguration: ViewRow;
  AssetProfileViewConfigurationMutationResult: Omit<AssetProfileViewConfigurationMutationResult, 'viewConfiguration'> & { viewConfiguration?: Maybe<ResolversParentTypes['AssetProfileViewConfiguration']> };
  AssetProfileViewLayout: AssetProfileViewLayout;
  AssetProfileViewLayoutDetails: AssetProfileViewLayoutDetails;
  AssetProfileViewLayoutDetailsInput: AssetProfileViewLayoutDetailsInput;
  AssetProfileViewLayoutMutationResult: Omit<AssetProfileViewLayoutMutationResult, 'viewConfiguration'> & { viewConfiguration?: Maybe<ResolversParentTypes['AssetProfileViewConfiguration']> };
  AssetProfileViewMap: Record<string, unknown>;
  AssetProfileViewMapInput: AssetProfileViewMapInput;
  AssetProfileViewMapLayer: AssetProfileViewMapLayer;
  AssetProfileViewMapLayerInput: AssetProfileViewMapLayerInput;
  AssetProfileViewWidget: AssetProfileViewWidget;
  AssetProfileViewWidgetInput: AssetProfileViewWidgetInput;
  AssetProfiles: Record<string, never>;
  AssetProfilesConnection: Omit<AssetProfilesConnection, 'edges'> & { edges: Array<ResolversParentTypes['AssetProfileEdge']> };
  AssetPropertyDefinition: EffectivePropertyDefinition;
  AssetPropertyDefinitionInput: AssetPropertyDefinitionInput;
  AssetPropertyPredicate: AssetPropertyPredicate;
  AssetReference: { profile: string; id: string };
  AssetRelatedPredicate: AssetRelatedPredicate;
  AssetRelationship: ResolversUnionTypes<ResolversParentTypes>['AssetRelationship'];
  AssetRelationshipMany: RelationshipManyView;
  AssetRelationshipOne: RelationshipOneView;
  AssetSelectionFilter: SelectionFilterRow;
  AssetSelectionFilterAudit: AssetSelectionFilterAudit;
  AssetSelectionFilterRelationship: SubProfile;
  AssetSelectionFilterRelationshipInput: AssetSelectionFilterRelationshipInput;
  Assets: { profile: string };
  AssetsConnection: AssetsConnectionView;
  AssetsMutationResult: Omit<AssetsMutationResult, 'assets'> & { assets?: Maybe<Array<ResolversParentTypes['Asset']>> };
  ConvertAssetsInput: ConvertAssetsInput;
  CreateAssetFilterDownloadInput: CreateAssetFilterDownloadInput;
  CreateAssetFilterInput: CreateAssetFilterInput;
  DateTime: Scalars['DateTime']['output'];
  DeleteAssetsInput: DeleteAssetsInput;
  EntityOwner: { username: string; group: string };
  GeoJSONFeature: Omit<GeoJsonFeature, 'geometry'> & { geometry?: Maybe<ResolversParentTypes['GeoJSONGeometryInterface']> };
  GeoJSONGeometryCollection: Record<string, unknown>;
  GeoJSONGeometryInterface: Record<string, unknown>;
  GeoJSONLineString: Record<string, unknown>;
  GeoJSONMultiLineString: Record<string, unknown>;
  GeoJSONMultiPoint: Record<string, unknown>;
  GeoJSONMultiPolygon: Record<string, unknown>;
  GeoJSONPoint: Record<string, unknown>;
  GeoJSONPolygon: Record<string, unknown>;
  IssueSubject: { type: string; reference: string };
  JSON: Scalars['JSON']['output'];
  JSONObject: Scalars['JSONObject']['output'];
  LatestObservation: LatestObservation;
  Mutation: Record<PropertyKey, never>;
  ObservationBucket: ObservationBucket;
  ObservationConnection: ObservationConnection;
  ObservationDownsample: ObservationDownsample;
  ObservationEdge: ObservationEdge;
  ObservationInput: ObservationInput;
  ObservationReading: ObservationReading;
  ObservationSeries: ObservationSeries;
  PageInfo: PageInfo;
  Query: Record<PropertyKey, never>;
  RecordObservationsInput: RecordObservationsInput;
  RecordObservationsResult: RecordObservationsResult;
  StateUpdateDataset: StateUpdateDataset;
  UpDataset: UpDataset;
  UpSpecificationParameter: UpSpecificationParameter;
  UpSpecificationParameterInput: UpSpecificationParameterInput;
  UpdateAssetFilterInput: UpdateAssetFilterInput;
  UpdateAssetProfileAssetConversionConfigurationInput: UpdateAssetProfileAssetConversionConfigurationInput;
  UpdateAssetProfileInput: UpdateAssetProfileInput;
  UpdateAssetProfileViewConfigurationInput: UpdateAssetProfileViewConfigurationInput;
  UpdateAssetProfileViewLayoutInput: UpdateAssetProfileViewLayoutInput;
  UpsertAssetsInput: UpsertAssetsInput;
  putAssetProfileExtensionInput: PutAssetProfileExtensionInput;
  removeAssetProfileExtensionInput: RemoveAssetProfileExtensionInput;
}>;

export type AssetResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['Asset'] = ResolversParentTypes['Asset'], FederationReferenceType extends FederationReferenceTypes['Asset'] = FederationReferenceTypes['Asset']> = ResolversObject<{
  __resolveReference?: ReferenceResolver<Maybe<ResolversTypes['Asset']> | FederationReferenceType, FederationReferenceType, ContextType>;
  assetProfile?: Resolver<Maybe<ResolversTypes['AssetProfile']>, ParentType, ContextType>;
  displayName?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  geoJSONFeature?: Resolver<Maybe<ResolversTypes['GeoJSONFeature']>, ParentType, ContextType>;
  geometry?: Resolver<Maybe<ResolversTypes['GeoJSONGeometryInterface']>, ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  isDeleted?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  issueSubject?: Resolver<ResolversTypes['IssueSubject'], ParentType, ContextType>;
  latestObservations?: Resolver<Array<ResolversTypes['LatestObservation']>, ParentType, ContextType, Partial<AssetLatestObservationsArgs>>;
  modifiedAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  observation?: Resolver<Maybe<ResolversTypes['JSONObject']>, ParentType, ContextType>;
  observationSeries?: Resolver<Maybe<ResolversTypes['ObservationSeries']>, ParentType, ContextType, RequireFields<AssetObservationSeriesArgs, 'from' | 'property' | 'resolution' | 'to'>>;
  observations?: Resolver<ResolversTypes['ObservationConnection'], ParentType, ContextType, Partial<AssetObservationsArgs>>;
  profile?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  properties?: Resolver<Maybe<ResolversTypes['JSONObject']>, ParentType, ContextType, Partial<AssetPropertiesArgs>>;
  related?: Resolver<Maybe<ResolversTypes['AssetRelationship']>, ParentType, ContextType, Partial<AssetRelatedArgs>>;
  secondaryDisplayName?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  version?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
}>;

export type AssetConversionPropertyMappingResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetConversionPropertyMapping'] = ResolversParentTypes['AssetConversionPropertyMapping']> = ResolversObject<{
  sourceProperty?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  targetProperty?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  value?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
}>;

export type AssetDownloadResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetDownload'] = ResolversParentTypes['AssetDownload']> = ResolversObject<{
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  createdBy?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  downloadUrl?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  expiresAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  filter?: Resolver<Maybe<ResolversTypes['AssetSelectionFilter']>, ParentType, ContextType>;
  filterId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  format?: Resolver<ResolversTypes['AssetDownloadFormat'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  properties?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  status?: Resolver<ResolversTypes['AssetDownloadStatus'], ParentType, ContextType>;
}>;

export type AssetEdgeResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetEdge'] = ResolversParentTypes['AssetEdge']> = ResolversObject<{
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  node?: Resolver<Maybe<ResolversTypes['Asset']>, ParentType, ContextType>;
}>;

export type AssetFilterDownloadMutationResultResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetFilterDownloadMutationResult'] = ResolversParentTypes['AssetFilterDownloadMutationResult']> = ResolversObject<{
  correlationId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  download?: Resolver<Maybe<ResolversTypes['AssetDownload']>, ParentType, ContextType>;
  errors?: Resolver<Array<ResolversTypes['AssetMutationError']>, ParentType, ContextType>;
}>;

export type AssetFilterMutationResultResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetFilterMutationResult'] = ResolversParentTypes['AssetFilterMutationResult']> = ResolversObject<{
  assetFilter?: Resolver<Maybe<ResolversTypes['AssetSelectionFilter']>, ParentType, ContextType>;
  correlationId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  errors?: Resolver<Array<ResolversTypes['AssetMutationError']>, ParentType, ContextType>;
}>;

export type AssetMapClusterResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetMapCluster'] = ResolversParentTypes['AssetMapCluster']> = ResolversObject<{
  bbox?: Resolver<Array<ResolversTypes['Float']>, ParentType, ContextType>;
  centroid?: Resolver<Array<ResolversTypes['Float']>, ParentType, ContextType>;
  count?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  key?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
}>;

export type AssetMapViewportResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetMapViewport'] = ResolversParentTypes['AssetMapViewport']> = ResolversObject<{
  bbox?: Resolver<Array<ResolversTypes['Float']>, ParentType, ContextType>;
  clustered?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  clusters?: Resolver<Array<ResolversTypes['AssetMapCluster']>, ParentType, ContextType>;
  count?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  features?: Resolver<Array<ResolversTypes['Asset']>, ParentType, ContextType>;
  gridLevel?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  zoom?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
}>;

export type AssetMutationErrorResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetMutationError'] = ResolversParentTypes['AssetMutationError']> = ResolversObject<{
  message?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['AssetErrorType'], ParentType, ContextType>;
}>;

export type AssetProfileResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetProfile'] = ResolversParentTypes['AssetProfile'], FederationReferenceType extends FederationReferenceTypes['AssetProfile'] = FederationReferenceTypes['AssetProfile']> = ResolversObject<{
  __resolveReference?: ReferenceResolver<Maybe<ResolversTypes['AssetProfile']> | FederationReferenceType, FederationReferenceType, ContextType>;
  assetById?: Resolver<Maybe<ResolversTypes['Asset']>, ParentType, ContextType, RequireFields<AssetProfileAssetByIdArgs, 'id'>>;
  assetConversionConfigurations?: Resolver<Maybe<Array<ResolversTypes['AssetProfileAssetConversionConfiguration']>>, ParentType, ContextType>;
  assets?: Resolver<Maybe<ResolversTypes['AssetsConnection']>, ParentType, ContextType, Partial<AssetProfileAssetsArgs>>;
  assetsExport?: Resolver<Maybe<ResolversTypes['AssetProfileAssetExport']>, ParentType, ContextType, Partial<AssetProfileAssetsExportArgs>>;
  displayNameProperty?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  displayNameTemplate?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  extensions?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  forceAssetStateUpdates?: Resolver<Maybe<ResolversTypes['Boolean']>, ParentType, ContextType>;
  isDeletedProperty?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  owner?: Resolver<ResolversTypes['EntityOwner'], ParentType, ContextType>;
  profile?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  properties?: Resolver<Maybe<Array<ResolversTypes['AssetPropertyDefinition']>>, ParentType, ContextType>;
  propertyMaps?: Resolver<Maybe<Array<ResolversTypes['AssetProfilePropertyMapping']>>, ParentType, ContextType>;
  relationships?: Resolver<Maybe<Array<ResolversTypes['AssetProfileRelationship']>>, ParentType, ContextType>;
  secondaryDisplayNameProperty?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  stateUpdateDatasets?: Resolver<Maybe<Array<ResolversTypes['StateUpdateDataset']>>, ParentType, ContextType>;
  title?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  upDataset?: Resolver<Maybe<ResolversTypes['UpDataset']>, ParentType, ContextType, RequireFields<AssetProfileUpDatasetArgs, 'dataset'>>;
  upDatasets?: Resolver<Maybe<Array<ResolversTypes['UpDataset']>>, ParentType, ContextType>;
  version?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  viewConfiguration?: Resolver<Maybe<ResolversTypes['AssetProfileViewConfiguration']>, ParentType, ContextType, RequireFields<AssetProfileViewConfigurationArgs, 'id'>>;
  viewConfigurations?: Resolver<Maybe<Array<ResolversTypes['AssetProfileViewConfiguration']>>, ParentType, ContextType>;
}>;

export type AssetProfileAssetConversionConfigurationResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetProfileAssetConversionConfiguration'] = ResolversParentTypes['AssetProfileAssetConversionConfiguration']> = ResolversObject<{
  deleteSource?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  name?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  propertyMappings?: Resolver<Array<ResolversTypes['AssetConversionPropertyMapping']>, ParentType, ContextType>;
  sourceRelationship?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  targetAssetProfile?: Resolver<Maybe<ResolversTypes['AssetProfile']>, ParentType, ContextType>;
  targetProfile?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
}>;

export type AssetProfileAssetConversionConfigurationMutationResultResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetProfileAssetConversionConfigurationMutationResult'] = ResolversParentTypes['AssetProfileAssetConversionConfigurationMutationResult']> = ResolversObject<{
  assetConversionConfiguration?: Resolver<Maybe<ResolversTypes['AssetProfileAssetConversionConfiguration']>, ParentType, ContextType>;
  correlationId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  errors?: Resolver<Array<ResolversTypes['AssetMutationError']>, ParentType, ContextType>;
}>;

export type AssetProfileAssetExportResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetProfileAssetExport'] = ResolversParentTypes['AssetProfileAssetExport']> = ResolversObject<{
  csvFileDownloadUrl?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType, Partial<AssetProfileAssetExportCsvFileDownloadUrlArgs>>;
}>;

export type AssetProfileEdgeResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetProfileEdge'] = ResolversParentTypes['AssetProfileEdge']> = ResolversObject<{
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  node?: Resolver<ResolversTypes['AssetProfile'], ParentType, ContextType>;
}>;

export type AssetProfileMutationResultResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetProfileMutationResult'] = ResolversParentTypes['AssetProfileMutationResult']> = ResolversObject<{
  assetProfile?: Resolver<Maybe<ResolversTypes['AssetProfile']>, ParentType, ContextType>;
  correlationId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  errors?: Resolver<Array<ResolversTypes['AssetMutationError']>, ParentType, ContextType>;
}>;

export type AssetProfilePropertyMappingResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetProfilePropertyMapping'] = ResolversParentTypes['AssetProfilePropertyMapping']> = ResolversObject<{
  column?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  dataset?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  extension?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  property?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
}>;

export type AssetProfileRelationshipResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetProfileRelationship'] = ResolversParentTypes['AssetProfileRelationship']> = ResolversObject<{
  assetProfile?: Resolver<ResolversTypes['AssetProfile'], ParentType, ContextType>;
  extension?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  lookupProperty?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  lookupType?: Resolver<ResolversTypes['AssetProfileRelationshipReferenceType'], ParentType, ContextType>;
  parameters?: Resolver<Maybe<Array<ResolversTypes['UpSpecificationParameter']>>, ParentType, ContextType>;
  profile?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  referenceProperty?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  referenceType?: Resolver<ResolversTypes['AssetProfileRelationshipReferenceType'], ParentType, ContextType>;
  relationship?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  title?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  type?: Resolver<ResolversTypes['AssetProfileRelationshipType'], ParentType, ContextType>;
}>;

export type AssetProfileViewConfigurationResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetProfileViewConfiguration'] = ResolversParentTypes['AssetProfileViewConfiguration']> = ResolversObject<{
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  layouts?: Resolver<Maybe<Array<ResolversTypes['AssetProfileViewLayout']>>, ParentType, ContextType, Partial<AssetProfileViewConfigurationLayoutsArgs>>;
  map?: Resolver<Maybe<ResolversTypes['AssetProfileViewMap']>, ParentType, ContextType>;
  name?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  version?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
}>;

export type AssetProfileViewConfigurationMutationResultResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetProfileViewConfigurationMutationResult'] = ResolversParentTypes['AssetProfileViewConfigurationMutationResult']> = ResolversObject<{
  correlationId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  errors?: Resolver<Array<ResolversTypes['AssetMutationError']>, ParentType, ContextType>;
  viewConfiguration?: Resolver<Maybe<ResolversTypes['AssetProfileViewConfiguration']>, ParentType, ContextType>;
}>;

export type AssetProfileViewLayoutResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetProfileViewLayout'] = ResolversParentTypes['AssetProfileViewLayout']> = ResolversObject<{
  mediaType?: Resolver<ResolversTypes['AssetProfileViewLayoutMediaType'], ParentType, ContextType>;
  widgets?: Resolver<Maybe<Array<ResolversTypes['AssetProfileViewWidget']>>, ParentType, ContextType>;
}>;

export type AssetProfileViewLayoutDetailsResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetProfileViewLayoutDetails'] = ResolversParentTypes['AssetProfileViewLayoutDetails']> = ResolversObject<{
  h?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  w?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  x?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  y?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
}>;

export type AssetProfileViewLayoutMutationResultResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetProfileViewLayoutMutationResult'] = ResolversParentTypes['AssetProfileViewLayoutMutationResult']> = ResolversObject<{
  correlationId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  errors?: Resolver<Array<ResolversTypes['AssetMutationError']>, ParentType, ContextType>;
  layout?: Resolver<Maybe<ResolversTypes['AssetProfileViewLayout']>, ParentType, ContextType>;
  viewConfiguration?: Resolver<Maybe<ResolversTypes['AssetProfileViewConfiguration']>, ParentType, ContextType>;
}>;

export type AssetProfileViewMapResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetProfileViewMap'] = ResolversParentTypes['AssetProfileViewMap']> = ResolversObject<{
  baseLayer?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  center?: Resolver<Maybe<Array<ResolversTypes['Float']>>, ParentType, ContextType>;
  layers?: Resolver<Array<ResolversTypes['AssetProfileViewMapLayer']>, ParentType, ContextType>;
  maxZoom?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  minZoom?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  zoom?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
}>;

export type AssetProfileViewMapLayerResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetProfileViewMapLayer'] = ResolversParentTypes['AssetProfileViewMapLayer']> = ResolversObject<{
  filter?: Resolver<Maybe<ResolversTypes['JSONObject']>, ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  labelProperty?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  styleColors?: Resolver<Maybe<ResolversTypes['JSONObject']>, ParentType, ContextType>;
  styleProperty?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  visible?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
}>;

export type AssetProfileViewWidgetResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetProfileViewWidget'] = ResolversParentTypes['AssetProfileViewWidget']> = ResolversObject<{
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  layout?: Resolver<ResolversTypes['AssetProfileViewLayoutDetails'], ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  settings?: Resolver<ResolversTypes['JSONObject'], ParentType, ContextType>;
  widget?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
}>;

export type AssetProfilesResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetProfiles'] = ResolversParentTypes['AssetProfiles']> = ResolversObject<{
  all?: Resolver<ResolversTypes['AssetProfilesConnection'], ParentType, ContextType, Partial<AssetProfilesAllArgs>>;
  byId?: Resolver<Maybe<ResolversTypes['AssetProfile']>, ParentType, ContextType, RequireFields<AssetProfilesByIdArgs, 'profile'>>;
}>;

export type AssetProfilesConnectionResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetProfilesConnection'] = ResolversParentTypes['AssetProfilesConnection']> = ResolversObject<{
  edges?: Resolver<Array<ResolversTypes['AssetProfileEdge']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
}>;

export type AssetPropertyDefinitionResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetPropertyDefinition'] = ResolversParentTypes['AssetPropertyDefinition']> = ResolversObject<{
  default?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  description?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  enumValues?: Resolver<Maybe<Array<ResolversTypes['String']>>, ParentType, ContextType>;
  extension?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  required?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  title?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  type?: Resolver<ResolversTypes['AssetPropertyType'], ParentType, ContextType>;
  unit?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
}>;

export type AssetReferenceResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetReference'] = ResolversParentTypes['AssetReference']> = ResolversObject<{
  asset?: Resolver<Maybe<ResolversTypes['Asset']>, ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  profile?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
}>;

export type AssetRelationshipResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetRelationship'] = ResolversParentTypes['AssetRelationship']> = ResolversObject<{
  __resolveType: TypeResolveFn<'AssetRelationshipMany' | 'AssetRelationshipOne', ParentType, ContextType>;
}>;

export type AssetRelationshipManyResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetRelationshipMany'] = ResolversParentTypes['AssetRelationshipMany']> = ResolversObject<{
  assets?: Resolver<Maybe<Array<ResolversTypes['Asset']>>, ParentType, ContextType>;
  observations?: Resolver<Maybe<Array<ResolversTypes['JSONObject']>>, ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
}>;

export type AssetRelationshipOneResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetRelationshipOne'] = ResolversParentTypes['AssetRelationshipOne']> = ResolversObject<{
  asset?: Resolver<Maybe<ResolversTypes['Asset']>, ParentType, ContextType>;
  observation?: Resolver<Maybe<ResolversTypes['JSONObject']>, ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
}>;

export type AssetSelectionFilterResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetSelectionFilter'] = ResolversParentTypes['AssetSelectionFilter'], FederationReferenceType extends FederationReferenceTypes['AssetSelectionFilter'] = FederationReferenceTypes['AssetSelectionFilter']> = ResolversObject<{
  __resolveReference?: ReferenceResolver<Maybe<ResolversTypes['AssetSelectionFilter']> | FederationReferenceType, FederationReferenceType, ContextType>;
  assetProfile?: Resolver<ResolversTypes['AssetProfile'], ParentType, ContextType>;
  assets?: Resolver<Maybe<ResolversTypes['AssetsConnection']>, ParentType, ContextType, Partial<AssetSelectionFilterAssetsArgs>>;
  audit?: Resolver<Maybe<ResolversTypes['AssetSelectionFilterAudit']>, ParentType, ContextType>;
  description?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  displayName?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  filter?: Resolver<Maybe<ResolversTypes['JSONObject']>, ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  profile?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  subProfiles?: Resolver<Maybe<Array<ResolversTypes['AssetSelectionFilterRelationship']>>, ParentType, ContextType>;
}>;

export type AssetSelectionFilterAuditResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetSelectionFilterAudit'] = ResolversParentTypes['AssetSelectionFilterAudit']> = ResolversObject<{
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  createdBy?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  updatedAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  updatedBy?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  version?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
}>;

export type AssetSelectionFilterRelationshipResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetSelectionFilterRelationship'] = ResolversParentTypes['AssetSelectionFilterRelationship']> = ResolversObject<{
  filter?: Resolver<Maybe<ResolversTypes['JSONObject']>, ParentType, ContextType>;
  profile?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  relationship?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  subProfiles?: Resolver<Maybe<Array<ResolversTypes['AssetSelectionFilterRelationship']>>, ParentType, ContextType>;
}>;

export type AssetsResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['Assets'] = ResolversParentTypes['Assets']> = ResolversObject<{
  all?: Resolver<ResolversTypes['AssetsConnection'], ParentType, ContextType, Partial<AssetsAllArgs>>;
  assetProfile?: Resolver<Maybe<ResolversTypes['AssetProfile']>, ParentType, ContextType>;
  byId?: Resolver<Maybe<ResolversTypes['Asset']>, ParentType, ContextType, RequireFields<AssetsByIdArgs, 'id'>>;
  mapViewport?: Resolver<ResolversTypes['AssetMapViewport'], ParentType, ContextType, RequireFields<AssetsMapViewportArgs, 'bbox' | 'zoom'>>;
  profile?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
}>;

export type AssetsConnectionResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetsConnection'] = ResolversParentTypes['AssetsConnection']> = ResolversObject<{
  edges?: Resolver<Maybe<Array<Maybe<ResolversTypes['AssetEdge']>>>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
  totalCount?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
  totalCountIsExact?: Resolver<Maybe<ResolversTypes['Boolean']>, ParentType, ContextType>;
}>;

export type AssetsMutationResultResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['AssetsMutationResult'] = ResolversParentTypes['AssetsMutationResult']> = ResolversObject<{
  assets?: Resolver<Maybe<Array<ResolversTypes['Asset']>>, ParentType, ContextType>;
  correlationId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  deleted?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  errors?: Resolver<Array<ResolversTypes['AssetMutationError']>, ParentType, ContextType>;
  inserted?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  updated?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
}>;

export interface DateTimeScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['DateTime'], any> {
  name: 'DateTime';
}

export type EntityOwnerResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['EntityOwner'] = ResolversParentTypes['EntityOwner']> = ResolversObject<{
  group?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  username?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
}>;

export type GeoJsonFeatureResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['GeoJSONFeature'] = ResolversParentTypes['GeoJSONFeature']> = ResolversObject<{
  bbox?: Resolver<Maybe<Array<ResolversTypes['Float']>>, ParentType, ContextType>;
  geometry?: Resolver<Maybe<ResolversTypes['GeoJSONGeometryInterface']>, ParentType, ContextType>;
  id?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  properties?: Resolver<Maybe<ResolversTypes['JSONObject']>, ParentType, ContextType>;
  type?: Resolver<ResolversTypes['GeoJSONType'], ParentType, ContextType>;
}>;

export type GeoJsonGeometryCollectionResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['GeoJSONGeometryCollection'] = ResolversParentTypes['GeoJSONGeometryCollection']> = ResolversObject<{
  bbox?: Resolver<Maybe<Array<ResolversTypes['Float']>>, ParentType, ContextType>;
  geometries?: Resolver<Array<ResolversTypes['GeoJSONGeometryInterface']>, ParentType, ContextType>;
  type?: Resolver<ResolversTypes['GeoJSONType'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
}>;

export type GeoJsonGeometryInterfaceResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['GeoJSONGeometryInterface'] = ResolversParentTypes['GeoJSONGeometryInterface']> = ResolversObject<{
  __resolveType: TypeResolveFn<'GeoJSONGeometryCollection' | 'GeoJSONLineString' | 'GeoJSONMultiLineString' | 'GeoJSONMultiPoint' | 'GeoJSONMultiPolygon' | 'GeoJSONPoint' | 'GeoJSONPolygon', ParentType, ContextType>;
}>;

export type GeoJsonLineStringResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['GeoJSONLineString'] = ResolversParentTypes['GeoJSONLineString']> = ResolversObject<{
  bbox?: Resolver<Maybe<Array<ResolversTypes['Float']>>, ParentType, ContextType>;
  coordinates?: Resolver<Array<Array<ResolversTypes['Float']>>, ParentType, ContextType>;
  type?: Resolver<ResolversTypes['GeoJSONType'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
}>;

export type GeoJsonMultiLineStringResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['GeoJSONMultiLineString'] = ResolversParentTypes['GeoJSONMultiLineString']> = ResolversObject<{
  bbox?: Resolver<Maybe<Array<ResolversTypes['Float']>>, ParentType, ContextType>;
  coordinates?: Resolver<Array<Array<Array<ResolversTypes['Float']>>>, ParentType, ContextType>;
  type?: Resolver<ResolversTypes['GeoJSONType'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
}>;

export type GeoJsonMultiPointResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['GeoJSONMultiPoint'] = ResolversParentTypes['GeoJSONMultiPoint']> = ResolversObject<{
  bbox?: Resolver<Maybe<Array<ResolversTypes['Float']>>, ParentType, ContextType>;
  coordinates?: Resolver<Array<Array<ResolversTypes['Float']>>, ParentType, ContextType>;
  type?: Resolver<ResolversTypes['GeoJSONType'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
}>;

export type GeoJsonMultiPolygonResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['GeoJSONMultiPolygon'] = ResolversParentTypes['GeoJSONMultiPolygon']> = ResolversObject<{
  bbox?: Resolver<Maybe<Array<ResolversTypes['Float']>>, ParentType, ContextType>;
  coordinates?: Resolver<Array<Array<Array<Array<ResolversTypes['Float']>>>>, ParentType, ContextType>;
  type?: Resolver<ResolversTypes['GeoJSONType'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
}>;

export type GeoJsonPointResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['GeoJSONPoint'] = ResolversParentTypes['GeoJSONPoint']> = ResolversObject<{
  bbox?: Resolver<Maybe<Array<ResolversTypes['Float']>>, ParentType, ContextType>;
  coordinates?: Resolver<Array<ResolversTypes['Float']>, ParentType, ContextType>;
  type?: Resolver<ResolversTypes['GeoJSONType'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
}>;

export type GeoJsonPolygonResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['GeoJSONPolygon'] = ResolversParentTypes['GeoJSONPolygon']> = ResolversObject<{
  bbox?: Resolver<Maybe<Array<ResolversTypes['Float']>>, ParentType, ContextType>;
  coordinates?: Resolver<Array<Array<Array<ResolversTypes['Float']>>>, ParentType, ContextType>;
  type?: Resolver<ResolversTypes['GeoJSONType'], ParentType, ContextType>;
  __isTypeOf?: IsTypeOfResolverFn<ParentType, ContextType>;
}>;

export type IssueSubjectResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['IssueSubject'] = ResolversParentTypes['IssueSubject'], FederationReferenceType extends FederationReferenceTypes['IssueSubject'] = FederationReferenceTypes['IssueSubject']> = ResolversObject<{
  __resolveReference?: ReferenceResolver<Maybe<ResolversTypes['IssueSubject']> | FederationReferenceType, FederationReferenceType, ContextType>;
  assetReference?: Resolver<Maybe<ResolversTypes['AssetReference']>, ParentType, ContextType>;
  reference?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
}>;

export interface JsonScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['JSON'], any> {
  name: 'JSON';
}

export interface JsonObjectScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['JSONObject'], any> {
  name: 'JSONObject';
}

export type LatestObservationResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['LatestObservation'] = ResolversParentTypes['LatestObservation']> = ResolversObject<{
  at?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  property?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  unit?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  value?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
}>;

export type MutationResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['Mutation'] = ResolversParentTypes['Mutation']> = ResolversObject<{
  convertAssets?: Resolver<ResolversTypes['AssetsMutationResult'], ParentType, ContextType, RequireFields<MutationConvertAssetsArgs, 'input'>>;
  createAssetFilter?: Resolver<Maybe<ResolversTypes['AssetFilterMutationResult']>, ParentType, ContextType, RequireFields<MutationCreateAssetFilterArgs, 'input'>>;
  createAssetFilterDownload?: Resolver<ResolversTypes['AssetFilterDownloadMutationResult'], ParentType, ContextType, RequireFields<MutationCreateAssetFilterDownloadArgs, 'input'>>;
  deleteAssetDownload?: Resolver<ResolversTypes['AssetFilterDownloadMutationResult'], ParentType, ContextType, RequireFields<MutationDeleteAssetDownloadArgs, 'id'>>;
  deleteAssets?: Resolver<ResolversTypes['AssetsMutationResult'], ParentType, ContextType, RequireFields<MutationDeleteAssetsArgs, 'input'>>;
  putAssetProfileExtension?: Resolver<Maybe<ResolversTypes['AssetProfileMutationResult']>, ParentType, ContextType, RequireFields<MutationPutAssetProfileExtensionArgs, 'input'>>;
  recordObservations?: Resolver<ResolversTypes['RecordObservationsResult'], ParentType, ContextType, RequireFields<MutationRecordObservationsArgs, 'input'>>;
  removeAssetProfileExtension?: Resolver<Maybe<ResolversTypes['AssetProfileMutationResult']>, ParentType, ContextType, RequireFields<MutationRemoveAssetProfileExtensionArgs, 'input'>>;
  updateAssetFilter?: Resolver<Maybe<ResolversTypes['AssetFilterMutationResult']>, ParentType, ContextType, RequireFields<MutationUpdateAssetFilterArgs, 'input'>>;
  updateAssetProfile?: Resolver<Maybe<ResolversTypes['AssetProfileMutationResult']>, ParentType, ContextType, Partial<MutationUpdateAssetProfileArgs>>;
  updateAssetProfileAssetConversionConfiguration?: Resolver<ResolversTypes['AssetProfileAssetConversionConfigurationMutationResult'], ParentType, ContextType, RequireFields<MutationUpdateAssetProfileAssetConversionConfigurationArgs, 'input'>>;
  updateAssetProfileViewConfiguration?: Resolver<ResolversTypes['AssetProfileViewConfigurationMutationResult'], ParentType, ContextType, RequireFields<MutationUpdateAssetProfileViewConfigurationArgs, 'input'>>;
  updateAssetProfileViewLayout?: Resolver<ResolversTypes['AssetProfileViewLayoutMutationResult'], ParentType, ContextType, Partial<MutationUpdateAssetProfileViewLayoutArgs>>;
  upsertAssets?: Resolver<ResolversTypes['AssetsMutationResult'], ParentType, ContextType, RequireFields<MutationUpsertAssetsArgs, 'input'>>;
}>;

export type ObservationBucketResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['ObservationBucket'] = ResolversParentTypes['ObservationBucket']> = ResolversObject<{
  avg?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  count?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  end?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  first?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  last?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  max?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  min?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  start?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  stddev?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
  sum?: Resolver<Maybe<ResolversTypes['Float']>, ParentType, ContextType>;
}>;

export type ObservationConnectionResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['ObservationConnection'] = ResolversParentTypes['ObservationConnection']> = ResolversObject<{
  edges?: Resolver<Array<ResolversTypes['ObservationEdge']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
}>;

export type ObservationEdgeResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['ObservationEdge'] = ResolversParentTypes['ObservationEdge']> = ResolversObject<{
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  node?: Resolver<ResolversTypes['ObservationReading'], ParentType, ContextType>;
}>;

export type ObservationReadingResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['ObservationReading'] = ResolversParentTypes['ObservationReading']> = ResolversObject<{
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  values?: Resolver<ResolversTypes['JSONObject'], ParentType, ContextType>;
}>;

export type ObservationSeriesResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['ObservationSeries'] = ResolversParentTypes['ObservationSeries']> = ResolversObject<{
  buckets?: Resolver<Array<ResolversTypes['ObservationBucket']>, ParentType, ContextType>;
  csv?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  property?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  resolution?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  timezone?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  unit?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
}>;

export type PageInfoResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['PageInfo'] = ResolversParentTypes['PageInfo']> = ResolversObject<{
  endCursor?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  hasNextPage?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  hasPreviousPage?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  startCursor?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
}>;

export type QueryResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['Query'] = ResolversParentTypes['Query']> = ResolversObject<{
  assetFilter?: Resolver<Maybe<ResolversTypes['AssetSelectionFilter']>, ParentType, ContextType, RequireFields<QueryAssetFilterArgs, 'id'>>;
  assetFilterDownloads?: Resolver<Maybe<Array<ResolversTypes['AssetDownload']>>, ParentType, ContextType>;
  assetFilters?: Resolver<Maybe<Array<ResolversTypes['AssetSelectionFilter']>>, ParentType, ContextType>;
  assetProfiles?: Resolver<Maybe<ResolversTypes['AssetProfiles']>, ParentType, ContextType>;
  assets?: Resolver<Maybe<ResolversTypes['Assets']>, ParentType, ContextType, RequireFields<QueryAssetsArgs, 'profile'>>;
}>;

export type RecordObservationsResultResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['RecordObservationsResult'] = ResolversParentTypes['RecordObservationsResult']> = ResolversObject<{
  correlationId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  errors?: Resolver<Array<ResolversTypes['AssetMutationError']>, ParentType, ContextType>;
  recorded?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
}>;

export type StateUpdateDatasetResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['StateUpdateDataset'] = ResolversParentTypes['StateUpdateDataset']> = ResolversObject<{
  columns?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  dataset?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  latestObservationAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  observationCount?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  title?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
}>;

export type UpDatasetResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['UpDataset'] = ResolversParentTypes['UpDataset']> = ResolversObject<{
  columns?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  dataset?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  modifiedAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  priority?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  rowCount?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  title?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
}>;

export type UpSpecificationParameterResolvers<ContextType = AssetsContext, ParentType extends ResolversParentTypes['UpSpecificationParameter'] = ResolversParentTypes['UpSpecificationParameter']> = ResolversObject<{
  default?: Resolver<Maybe<ResolversTypes['JSON']>, ParentType, ContextType>;
  description?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  required?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['AssetPropertyType'], ParentType, ContextType>;
}>;

export type Resolvers<ContextType = AssetsContext> = ResolversObject<{
  Asset?: AssetResolvers<ContextType>;
  AssetConversionPropertyMapping?: AssetConversionPropertyMappingResolvers<ContextType>;
  AssetDownload?: AssetDownloadResolvers<ContextType>;
  AssetEdge?: AssetEdgeResolvers<ContextType>;
  AssetFilterDownloadMutationResult?: AssetFilterDownloadMutationResultResolvers<ContextType>;
  AssetFilterMutationResult?: AssetFilterMutationResultResolvers<ContextType>;
  AssetMapCluster?: AssetMapClusterResolvers<ContextType>;
  AssetMapViewport?: AssetMapViewportResolvers<ContextType>;
  AssetMutationError?: AssetMutationErrorResolvers<ContextType>;
  AssetProfile?: AssetProfileResolvers<ContextType>;
  AssetProfileAssetConversionConfiguration?: AssetProfileAssetConversionConfigurationResolvers<ContextType>;
  AssetProfileAssetConversionConfigurationMutationResult?: AssetProfileAssetConversionConfigurationMutationResultResolvers<ContextType>;
  AssetProfileAssetExport?: AssetProfileAssetExportResolvers<ContextType>;
  AssetProfileEdge?: AssetProfileEdgeResolvers<ContextType>;
  AssetProfileMutationResult?: AssetProfileMutationResultResolvers<ContextType>;
  AssetProfilePropertyMapping?: AssetProfilePropertyMappingResolvers<ContextType>;
  AssetProfileRelationship?: AssetProfileRelationshipResolvers<ContextType>;
  AssetProfileViewConfiguration?: AssetProfileViewConfigurationResolvers<ContextType>;
  AssetProfileViewConfigurationMutationResult?: AssetProfileViewConfigurationMutationResultResolvers<ContextType>;
  AssetProfileViewLayout?: AssetProfileViewLayoutResolvers<ContextType>;
  AssetProfileViewLayoutDetails?: AssetProfileViewLayoutDetailsResolvers<ContextType>;
  AssetProfileViewLayoutMutationResult?: AssetProfileViewLayoutMutationResultResolvers<ContextType>;
  AssetProfileViewMap?: AssetProfileViewMapResolvers<ContextType>;
  AssetProfileViewMapLayer?: AssetProfileViewMapLayerResolvers<ContextType>;
  AssetProfileViewWidget?: AssetProfileViewWidgetResolvers<ContextType>;
  AssetProfiles?: AssetProfilesResolvers<ContextType>;
  AssetProfilesConnection?: AssetProfilesConnectionResolvers<ContextType>;
  AssetPropertyDefinition?: AssetPropertyDefinitionResolvers<ContextType>;
  AssetReference?: AssetReferenceResolvers<ContextType>;
  AssetRelationship?: AssetRelationshipResolvers<ContextType>;
  AssetRelationshipMany?: AssetRelationshipManyResolvers<ContextType>;
  AssetRelationshipOne?: AssetRelationshipOneResolvers<ContextType>;
  AssetSelectionFilter?: AssetSelectionFilterResolvers<ContextType>;
  AssetSelectionFilterAudit?: AssetSelectionFilterAuditResolvers<ContextType>;
  AssetSelectionFilterRelationship?: AssetSelectionFilterRelationshipResolvers<ContextType>;
  Assets?: AssetsResolvers<ContextType>;
  AssetsConnection?: AssetsConnectionResolvers<ContextType>;
  AssetsMutationResult?: AssetsMutationResultResolvers<ContextType>;
  DateTime?: GraphQLScalarType;
  EntityOwner?: EntityOwnerResolvers<ContextType>;
  GeoJSONFeature?: GeoJsonFeatureResolvers<ContextType>;
  GeoJSONGeometryCollection?: GeoJsonGeometryCollectionResolvers<ContextType>;
  GeoJSONGeometryInterface?: GeoJsonGeometryInterfaceResolvers<ContextType>;
  GeoJSONLineString?: GeoJsonLineStringResolvers<ContextType>;
  GeoJSONMultiLineString?: GeoJsonMultiLineStringResolvers<ContextType>;
  GeoJSONMultiPoint?: GeoJsonMultiPointResolvers<ContextType>;
  GeoJSONMultiPolygon?: GeoJsonMultiPolygonResolvers<ContextType>;
  GeoJSONPoint?: GeoJsonPointResolvers<ContextType>;
  GeoJSONPolygon?: GeoJsonPolygonResolvers<ContextType>;
  IssueSubject?: IssueSubjectResolvers<ContextType>;
  JSON?: GraphQLScalarType;
  JSONObject?: GraphQLScalarType;
  LatestObservation?: LatestObservationResolvers<ContextType>;
  Mutation?: MutationResolvers<ContextType>;
  ObservationBucket?: ObservationBucketResolvers<ContextType>;
  ObservationConnection?: ObservationConnectionResolvers<ContextType>;
  ObservationEdge?: ObservationEdgeResolvers<ContextType>;
  ObservationReading?: ObservationReadingResolvers<ContextType>;
  ObservationSeries?: ObservationSeriesResolvers<ContextType>;
  PageInfo?: PageInfoResolvers<ContextType>;
  Query?: QueryResolvers<ContextType>;
  RecordObservationsResult?: RecordObservationsResultResolvers<ContextType>;
  StateUpdateDataset?: StateUpdateDatasetResolvers<ContextType>;
  UpDataset?: UpDatasetResolvers<ContextType>;
  UpSpecificationParameter?: UpSpecificationParameterResolvers<ContextType>;
}>;


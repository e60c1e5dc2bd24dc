// Every operation the console sends, in one place: what it asks of the public API (the SDL is
// src/subgraphs/*/schema.graphql; docs/auth.md and docs/schema.md say what each answers).

const SESSION_FIELDS = 'authenticated username userGroup userGroups challengeName challengeParam deviceKey';

/** Whether a session is signed in, as the console opens; `config` answers anonymous callers too. */
export const START = `query ConsoleStart {
  session { ${SESSION_FIELDS} }
  config { auth { loginEnabled } }
}`;

/** Whether the session still stands, once a live stream said it ended. */
export const SESSION_CHECK = 'query ConsoleSessionCheck { session { authenticated } }';

export const SIGN_IN = `mutation ConsoleSignIn($input: AuthSignInInput!) {
  signIn(input: $input) { errors { type message } session { ${SESSION_FIELDS} } }
}`;

export const CONFIRM_SIGN_IN = `mutation ConsoleConfirmSignIn($input: AuthConfirmSignInInput!) {
  confirmSignIn(input: $input) { errors { type message } session { ${SESSION_FIELDS} } }
}`;

export const ASSOCIATE_SOFTWARE_TOKEN = `mutation ConsoleAssociateSoftwareToken {
  associateSoftwareToken { errors { type message } softwareToken { secret otpauthUri } }
}`;

export const SET_GROUP = `mutation ConsoleSetGroup($userGroup: String!) {
  setSessionUserGroup(input: { userGroup: $userGroup }) { errors { type message } session { ${SESSION_FIELDS} } }
}`;

export const SIGN_OUT = `mutation ConsoleSignOut {
  signOut { errors { type message } session { authenticated } }
}`;

/** The group's profiles: at most 500, the API's largest page of them. */
export const PROFILES = `query ConsoleProfiles {
  assetProfiles { all(first: 500) { edges { node { profile title properties { name } } } } }
}`;

export const PROFILE = `query ConsoleProfile($profile: ID!) {
  assetProfiles { byId(profile: $profile) {
    profile title displayNameProperty secondaryDisplayNameProperty
    properties { name title type unit description }
  } }
}`;

/** How many assets each of up to {@link MAX_COUNTS} profiles holds, counted as far as 10,000. */
export const MAX_COUNTS = 10;
export function countsDocument(profiles: number): string {
  const indexes = Array.from({ length: Math.min(profiles, MAX_COUNTS) }, (_, i) => i);
  return `query ConsoleCounts(${indexes.map((i) => `$p${i}: ID!`).join(', ')}) {
  ${indexes.map((i) => `c${i}: assets(profile: $p${i}) { all(first: 0) { totalCount totalCountIsExact } }`).join('\n  ')}
}`;
}

export const ASSETS = `query ConsoleAssets(
  $profile: ID!, $first: Int, $after: String, $last: Int, $before: String, $filter: AssetFilter, $only: [String!]
) {
  assets(profile: $profile) {
    all(first: $first, after: $after, last: $last, before: $before, filter: $filter) {
      totalCount totalCountIsExact
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
      edges { node { id displayName secondaryDisplayName properties(only: $only) } }
    }
  }
}`;

// A selection filter reaches at most 4 levels of related profiles (docs/schema.md): all are read,
// so that a filter saved from this one keeps them whole.
const subProfiles = (levels: number): string =>
  levels === 0 ? '' : `subProfiles { relationship profile filter ${subProfiles(levels - 1)} }`;

export const FILTERS = `query ConsoleFilters {
  assetFilters { id displayName description profile filter ${subProfiles(4)} }
}`;

export const CREATE_FILTER = `mutation ConsoleCreateFilter($input: CreateAssetFilterInput!) {
  createAssetFilter(input: $input) { errors { type message } assetFilter { id displayName } }
}`;

// Views (views-page.ts): a view configuration whole, as it is shown and saved. What a view's
// widgets read of an asset depends on its widgets: view-data.ts writes that query.
const VIEW_FIELDS = `id name version
  map { layers { id name visible labelProperty styleProperty styleColors filter } }
  layouts { mediaType widgets { id name widget settings layout { x y w h } } }`;

/** A profile's view configurations, with the relationships their widgets may follow. */
export const VIEWS = `query ConsoleViews($profile: ID!) {
  assetProfiles { byId(profile: $profile) {
    profile title relationships { relationship title profile type }
    viewConfigurations { ${VIEW_FIELDS} }
  } }
}`;

/** One view configuration as stored now (after a refused save). */
export const VIEW = `query ConsoleView($profile: ID!, $view: ID!) {
  assetProfiles { byId(profile: $profile) { viewConfiguration(id: $view) { ${VIEW_FIELDS} } } }
}`;

/** Replaces one media type's widgets, if the view is still at `ifVersion`. */
export const SAVE_LAYOUT = `mutation ConsoleSaveLayout($input: UpdateAssetProfileViewLayoutInput!) {
  updateAssetProfileViewLayout(input: $input) { errors { type message } viewConfiguration { ${VIEW_FIELDS} } }
}`;

/** The first 100 assets (of a search) to choose the one a view shows. */
export const VIEW_ASSETS = `query ConsoleViewAssets($profile: ID!, $filter: AssetFilter) {
  assets(profile: $profile) { all(first: 100, filter: $filter) { edges { node { id displayName } } } }
}`;

/** A signed link to a CSV or XLSX of the assets under a filter (docs/exports.md). */
export const EXPORT_LINK = `query ConsoleExport(
  $profile: ID!, $properties: [String!], $isExcel: Boolean, $filter: AssetFilter, $name: String
) {
  assetProfiles { byId(profile: $profile) {
    assetsExport(properties: $properties, isExcel: $isExcel, filter: $filter) { csvFileDownloadUrl(exportName: $name) }
  } }
}`;

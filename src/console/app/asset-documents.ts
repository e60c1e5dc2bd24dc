// The operations of the asset page (src/subgraphs/*/schema.graphql): the profiles' relationships,
// the asset with everything the page shows at once, a page of its history, a property's series.
// Names from answers (relationships, profiles) go in as variables, never into the document.
import { CHANGE_FIELDS } from './live.ts';

const RELATIONSHIP_FIELDS =
  'relationship type profile title referenceType referenceProperty lookupType lookupProperty';

/** Every profile of the group with its relationships: where links lead, and which lead here. */
export const RELATIONSHIPS = `query ConsoleRelationships {
  assetProfiles { all(first: 500) { edges { node { profile title relationships { ${RELATIONSHIP_FIELDS} } } } } }
}`;

/** An asset as a link shows it. */
const LINKED = 'id profile displayName secondaryDisplayName';

/** How many issues, and related assets of one relationship, the page lists. */
export const ISSUES_SHOWN = 20;
export const RELATED_SHOWN = 50;

/**
 * The asset: its profile's definitions, properties, latest readings, issues, and the assets of
 * `outgoing` relationships (variables `r0`…) and of `incoming` ones (profile `ip0`…, filter `if0`…).
 */
export function assetDocument(outgoing: number, incoming: number): string {
  const out = Array.from({ length: outgoing }, (_, i) => i);
  const into = Array.from({ length: incoming }, (_, i) => i);
  const variables = [
    '$profile: ID!',
    '$id: ID!',
    ...out.map((i) => `$r${i}: ID`),
    ...into.flatMap((i) => [`$ip${i}: ID!`, `$if${i}: AssetFilter`]),
  ];
  return `query ConsoleAsset(${variables.join(', ')}) {
  assets(profile: $profile) { byId(id: $id) {
    id profile displayName secondaryDisplayName version modifiedAt isDeleted properties
    geometry { type }
    assetProfile {
      profile title
      properties { name title type unit description required enumValues extension }
    }
    latestObservations { property value at unit }
    issueSubject { issues(first: ${ISSUES_SHOWN}) {
      edges { node { id displayName description status createdAt audit { createdBy { userId } } } }
      pageInfo { hasNextPage }
    } }
    ${out
      .map(
        (i) => `r${i}: related(relationship: $r${i}) {
      ... on AssetRelationshipOne { asset { ${LINKED} } }
      ... on AssetRelationshipMany { assets { ${LINKED} } }
    }`,
      )
      .join('\n    ')}
  } }
  ${into
    .map(
      (i) =>
        `i${i}: assets(profile: $ip${i}) { all(first: ${RELATED_SHOWN}, filter: $if${i}) { totalCount totalCountIsExact edges { node { ${LINKED} } } } }`,
    )
    .join('\n  ')}
}`;
}

/** A page of the asset's changes, newest first. */
export const HISTORY = `query ConsoleAssetHistory($profile: ID!, $id: ID!, $first: Int!, $after: String) {
  assets(profile: $profile) { byId(id: $id) {
    history(first: $first, after: $after) { edges { node { ${CHANGE_FIELDS} } } pageInfo { hasNextPage endCursor } }
  } }
}`;

/** The aggregates `observationSeries` computes, as its enum names them. */
export const AGGREGATES = ['AVG', 'MIN', 'MAX', 'SUM', 'COUNT', 'STDDEV', 'FIRST', 'LAST'] as const;
export type Aggregate = (typeof AGGREGATES)[number];

/** One key's buckets, with only the aggregate chosen asked for (as `value`). */
export function seriesDocument(aggregate: Aggregate): string {
  // The field is one of the enum's names: nothing from outside goes into the document.
  const field = AGGREGATES.includes(aggregate) ? aggregate.toLowerCase() : 'avg';
  return `query ConsoleSeries(
  $profile: ID!, $id: ID!, $property: String!, $from: DateTime!, $to: DateTime!, $resolution: String!,
  $aggregates: [ObservationAggregate!], $timezone: String
) {
  assets(profile: $profile) { byId(id: $id) {
    observationSeries(property: $property, from: $from, to: $to, resolution: $resolution,
                      aggregates: $aggregates, timezone: $timezone, fill: NULL) {
      unit resolution timezone buckets { start end count value: ${field} }
    }
  } }
}`;
}

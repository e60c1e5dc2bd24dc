import type { CodegenConfig } from '@graphql-codegen/cli';

const subgraph = (name: string, context: string, mappers: Record<string, string> = {}) => ({
  [`src/__generated__/${name}.ts`]: {
    schema: `src/subgraphs/${name}/schema.graphql`,
    plugins: ['typescript', 'typescript-resolvers'],
    config: {
      federation: true,
      useIndexSignature: true,
      contextType: context,
      useTypeImports: true,
      enumsAsTypes: true,
      avoidOptionals: { field: true, inputValue: false, object: false, defaultValue: false },
      mappers,
      scalars: { DateTime: 'Date | string', JSONObject: 'Record<string, unknown>', JSON: 'unknown' },
    },
  },
});

const config: CodegenConfig = {
  overwrite: true,
  generates: {
    ...subgraph('assets', '../subgraphs/assets/context.ts#AssetsContext', {
      AssetProfiles: 'Record<string, never>',
      AssetProfile: '../subgraphs/assets/profiles/definition.ts#EffectiveProfile',
      AssetPropertyDefinition: '../subgraphs/assets/profiles/definition.ts#EffectivePropertyDefinition',
      AssetProfileRelationship: '../subgraphs/assets/profiles/definition.ts#EffectiveRelationship',
      AssetProfilePropertyMapping: '../subgraphs/assets/profiles/definition.ts#EffectivePropertyMap',
      Asset: '../subgraphs/assets/assets.repository.ts#AssetRow',
      AssetSelectionFilter: '../subgraphs/assets/selection-filters.ts#SelectionFilterRow',
      AssetProfileViewConfiguration: '../subgraphs/assets/views.ts#ViewRow',
      AssetProfileAssetConversionConfiguration: '../subgraphs/assets/conversions.ts#ConversionRow',
      AssetProfileViewMap: 'Record<string, unknown>',
      AssetSelectionFilterRelationship: '../subgraphs/assets/selection-filters.ts#SubProfile',
      AssetRelationshipOne: '../subgraphs/assets/relationships.ts#RelationshipOneView',
      AssetRelationshipMany: '../subgraphs/assets/relationships.ts#RelationshipManyView',
      Assets: '{ profile: string }',
      AssetsConnection: '../subgraphs/assets/total-count.ts#AssetsConnectionView',
      AssetDownload: '../subgraphs/assets/exports/downloads.ts#DownloadRow',
      AssetProfileAssetExport: '../subgraphs/assets/exports/spec.ts#PendingExport',
      AssetReference: '{ profile: string; id: string }',
      IssueSubject: '{ type: string; reference: string }',
      EntityOwner: '{ username: string; group: string }',
      GeoJSONGeometryInterface: 'Record<string, unknown>',
      GeoJSONPoint: 'Record<string, unknown>',
      GeoJSONMultiPoint: 'Record<string, unknown>',
      GeoJSONLineString: 'Record<string, unknown>',
      GeoJSONMultiLineString: 'Record<string, unknown>',
      GeoJSONPolygon: 'Record<string, unknown>',
      GeoJSONMultiPolygon: 'Record<string, unknown>',
      GeoJSONGeometryCollection: 'Record<string, unknown>',
    }),
    ...subgraph('auth', '../subgraphs/auth/context.ts#AuthContext', {
      User: '{ id: string; username: string }',
      EntityOwner: '{ username: string; group: string }',
    }),
    ...subgraph('issues', '../subgraphs/issues/context.ts#IssuesContext', {
      Issue: '../subgraphs/issues/issues.repository.ts#IssueRow',
      Issues: 'Record<string, never>',
      IssueSubject: '../subgraphs/issues/issues.repository.ts#SubjectKey',
    }),
    ...subgraph('events', '../subgraphs/events/context.ts#EventsContext', {
      Change: '../subgraphs/events/changes.repository.ts#ChangeRow',
      Webhook: '../subgraphs/events/webhooks/repository.ts#WebhookRow',
      WebhookDelivery: '../subgraphs/events/webhooks/repository.ts#DeliveryRow',
      WebhookAttempt: '../subgraphs/events/webhooks/repository.ts#AttemptRow',
      Asset: '{ profile: string; id: string }',
      AssetProfile: '{ profile: string }',
    }),
  },
};
export default config;

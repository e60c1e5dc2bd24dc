import type { GraphQLResolveInfo, GraphQLScalarType, GraphQLScalarTypeConfig } from 'graphql';
import type { ChangeRow } from '../subgraphs/events/changes.repository.ts';
import type { EventsContext } from '../subgraphs/events/context.ts';
export type Maybe<T> = T | null;
export type InputMaybe<T> = Maybe<T>;
export type Omit<T, K extends keyof T> = Pick<T, Exclude<keyof T, K>>;
/** All built-in and custom scalars, mapped to their actual values */
export type Scalars = {
  ID: { input: string; output: string; }
  String: { input: string; output: string; }
  Boolean: { input: boolean; output: boolean; }
  Int: { input: number; output: number; }
  Float: { input: number; output: number; }
  /** An ISO 8601 date-time with offset, always serialised in UTC. */
  DateTime: { input: Date | string; output: Date | string; }
  /** A JSON object. */
  JSONObject: { input: Record<string, unknown>; output: Record<string, unknown>; }
  _FieldSet: { input: unknown; output: unknown; }
};

export type Asset = {
  __typename?: 'Asset';
  /** The asset's changes, newest first. `first` defaults to 50, at most 500. */
  history: ChangeConnection;
  id: Scalars['ID']['output'];
  profile: Scalars['ID']['output'];
};


export type AssetHistoryArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};

export type AssetProfile = {
  __typename?: 'AssetProfile';
  /** The profile's changes and its extensions', newest first. `first` defaults to 50, at most 500. */
  history: ChangeConnection;
  profile: Scalars['ID']['output'];
};


export type AssetProfileHistoryArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};

/** One entity changed by one write: what changed, by whom, and the change as an RFC 6902 JSON Patch. */
export type Change = {
  __typename?: 'Change';
  /** Who made the change; null for a change made outside assetql (an operator's SQL). */
  actor: Maybe<ChangeActor>;
  /** The changed members' values after the change (the whole document for a creation). */
  after: Maybe<Scalars['JSONObject']['output']>;
  /** The asset as it is now, for a change of an asset; null otherwise or once it is gone. */
  asset: Maybe<Asset>;
  /** When the writing transaction began. */
  at: Scalars['DateTime']['output'];
  /** The changed members' values before the change (the whole document for a deletion). */
  before: Maybe<Scalars['JSONObject']['output']>;
  /** The correlation id of the request (or the mutation's `correlationId`) that made the change. */
  correlationId: Maybe<Scalars['String']['output']>;
  /** The change's place in its group's log, opaque: `after` takes it, and an SSE event's `id` is it. */
  cursor: Scalars['String']['output'];
  entity: ChangeEntity;
  /** The entity's id within its profile (an asset's, a view's, an extension's name); null for a profile. */
  entityId: Maybe<Scalars['ID']['output']>;
  kind: ChangeKind;
  /**
   * The change as RFC 6902 operations on the entity's document (docs/events.md): one `add` at the
   * root for a creation, one `remove` at the root for a deletion, else one operation per changed
   * member (per changed property for an asset).
   */
  patch: Array<Scalars['JSONObject']['output']>;
  /** The profile the entity belongs to; null for a selection filter or a download. */
  profile: Maybe<Scalars['ID']['output']>;
  /** The entity's version after the change (its next version for a deletion). */
  version: Scalars['Int']['output'];
};

export type ChangeActor = {
  __typename?: 'ChangeActor';
  kind: ChangeActorKind;
  /** The username, or the command's name for SYSTEM. */
  name: Scalars['String']['output'];
};

export type ChangeActorKind =
  /** A user acting through an API key. */
  | 'API_KEY'
  /** assetql itself: a command (`assetql import`) or the demo loader. */
  | 'SYSTEM'
  /** A signed-in user. */
  | 'USER';

export type ChangeConnection = {
  __typename?: 'ChangeConnection';
  edges: Array<ChangeEdge>;
  pageInfo: PageInfo;
};

export type ChangeEdge = {
  __typename?: 'ChangeEdge';
  cursor: Scalars['String']['output'];
  node: Change;
};

export type ChangeEntity =
  | 'ASSET'
  | 'ASSET_PROFILE'
  | 'ASSET_PROFILE_EXTENSION'
  | 'CONVERSION'
  | 'DOWNLOAD'
  | 'SELECTION_FILTER'
  | 'VIEW';

/** Which changes: every list given must match (at most 100 values each). */
export type ChangeFilter = {
  entities?: InputMaybe<Array<ChangeEntity>>;
  /** Entity ids (`entityId`). */
  ids?: InputMaybe<Array<Scalars['ID']['input']>>;
  kinds?: InputMaybe<Array<ChangeKind>>;
  profiles?: InputMaybe<Array<Scalars['ID']['input']>>;
};

export type ChangeKind =
  /** An asset written by a conversion from another profile (`convertAssets`). */
  | 'CONVERTED'
  | 'CREATED'
  /** Deleted, or marked deleted (the asset's `isDeleted`). */
  | 'DELETED'
  /** An asset marked deleted that is no longer. */
  | 'RESTORED'
  | 'UPDATED';

export type ChangeOrder =
  | 'NEWEST_FIRST'
  | 'OLDEST_FIRST';

/**
 * The runtime's query planner sends a mutation that spans subgraphs to a subgraph with no
 * mutation root when there is one (every mutation of two subgraphs failed with "Schema is not
 * configured to execute mutation operation"): a root it never shows clients keeps it from that.
 * The events subgraph's own mutations (webhooks, docs/events.md) will take its place.
 */
export type Mutation = {
  __typename?: 'Mutation';
  _eventsMutationRoot: Maybe<Scalars['Boolean']['output']>;
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
  /**
   * The change log of the caller's group (docs/events.md): newest first, or oldest first with
   * `order: OLDEST_FIRST`, where a cursor resumes exactly after the change it names (a cursor from
   * before the log's retention is refused with CURSOR_EXPIRED). `first` defaults to 50, at most 500.
   */
  changes: ChangeConnection;
};


export type QueryChangesArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<ChangeFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
  order?: InputMaybe<ChangeOrder>;
};

export type Subscription = {
  __typename?: 'Subscription';
  /**
   * The caller's group's changes as they are committed, oldest first, each once (docs/events.md,
   * "Subscriptions"). With `after` (or, over SSE, the `Last-Event-ID` header: the `id` of the last
   * event read) every change after that cursor is replayed first, then the stream goes live, with
   * no gap and no duplicate; without, it starts now. The stream's last event is an error when it
   * ends (SESSION_ENDED, SLOW_CONSUMER, SHUTTING_DOWN, CURSOR_EXPIRED): resume from the last cursor.
   */
  changes: Change;
};


export type SubscriptionChangesArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<ChangeFilter>;
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
}>;

/** Mapping of federation reference types */
export type FederationReferenceTypes = ResolversObject<{
  Asset:
    ( { __typename: 'Asset' }
    & GraphQLRecursivePick<FederationTypes['Asset'], {"profile":true,"id":true}> );
  AssetProfile:
    ( { __typename: 'AssetProfile' }
    & GraphQLRecursivePick<FederationTypes['AssetProfile'], {"profile":true}> );
}>;



/** Mapping between all available schema types and the resolvers types */
export type ResolversTypes = ResolversObject<{
  Asset: ResolverTypeWrapper<{ profile: string; id: string }>;
  String: ResolverTypeWrapper<Scalars['String']['output']>;
  Int: ResolverTypeWrapper<Scalars['Int']['output']>;
  ID: ResolverTypeWrapper<Scalars['ID']['output']>;
  AssetProfile: ResolverTypeWrapper<{ profile: string }>;
  Change: ResolverTypeWrapper<ChangeRow>;
  ChangeActor: ResolverTypeWrapper<ChangeActor>;
  ChangeActorKind: ChangeActorKind;
  ChangeConnection: ResolverTypeWrapper<Omit<ChangeConnection, 'edges'> & { edges: Array<ResolversTypes['ChangeEdge']> }>;
  ChangeEdge: ResolverTypeWrapper<Omit<ChangeEdge, 'node'> & { node: ResolversTypes['Change'] }>;
  ChangeEntity: ChangeEntity;
  ChangeFilter: ChangeFilter;
  ChangeKind: ChangeKind;
  ChangeOrder: ChangeOrder;
  DateTime: ResolverTypeWrapper<Scalars['DateTime']['output']>;
  JSONObject: ResolverTypeWrapper<Scalars['JSONObject']['output']>;
  Mutation: ResolverTypeWrapper<Record<PropertyKey, never>>;
  Boolean: ResolverTypeWrapper<Scalars['Boolean']['output']>;
  PageInfo: ResolverTypeWrapper<PageInfo>;
  Query: ResolverTypeWrapper<Record<PropertyKey, never>>;
  Subscription: ResolverTypeWrapper<Record<PropertyKey, never>>;
}>;

/** Mapping between all available schema types and the resolvers parents */
export type ResolversParentTypes = ResolversObject<{
  Asset: { profile: string; id: string };
  String: Scalars['String']['output'];
  Int: Scalars['Int']['output'];
  ID: Scalars['ID']['output'];
  AssetProfile: { profile: string };
  Change: ChangeRow;
  ChangeActor: ChangeActor;
  ChangeConnection: Omit<ChangeConnection, 'edges'> & { edges: Array<ResolversParentTypes['ChangeEdge']> };
  ChangeEdge: Omit<ChangeEdge, 'node'> & { node: ResolversParentTypes['Change'] };
  ChangeFilter: ChangeFilter;
  DateTime: Scalars['DateTime']['output'];
  JSONObject: Scalars['JSONObject']['output'];
  Mutation: Record<PropertyKey, never>;
  Boolean: Scalars['Boolean']['output'];
  PageInfo: PageInfo;
  Query: Record<PropertyKey, never>;
  Subscription: Record<PropertyKey, never>;
}>;

export type AssetResolvers<ContextType = EventsContext, ParentType extends ResolversParentTypes['Asset'] = ResolversParentTypes['Asset'], FederationReferenceType extends FederationReferenceTypes['Asset'] = FederationReferenceTypes['Asset']> = ResolversObject<{
  __resolveReference?: ReferenceResolver<Maybe<ResolversTypes['Asset']> | FederationReferenceType, FederationReferenceType, ContextType>;
  history?: Resolver<ResolversTypes['ChangeConnection'], ParentType, ContextType, Partial<AssetHistoryArgs>>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  profile?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
}>;

export type AssetProfileResolvers<ContextType = EventsContext, ParentType extends ResolversParentTypes['AssetProfile'] = ResolversParentTypes['AssetProfile'], FederationReferenceType extends FederationReferenceTypes['AssetProfile'] = FederationReferenceTypes['AssetProfile']> = ResolversObject<{
  __resolveReference?: ReferenceResolver<Maybe<ResolversTypes['AssetProfile']> | FederationReferenceType, FederationReferenceType, ContextType>;
  history?: Resolver<ResolversTypes['ChangeConnection'], ParentType, ContextType, Partial<AssetProfileHistoryArgs>>;
  profile?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
}>;

export type ChangeResolvers<ContextType = EventsContext, ParentType extends ResolversParentTypes['Change'] = ResolversParentTypes['Change']> = ResolversObject<{
  actor?: Resolver<Maybe<ResolversTypes['ChangeActor']>, ParentType, ContextType>;
  after?: Resolver<Maybe<ResolversTypes['JSONObject']>, ParentType, ContextType>;
  asset?: Resolver<Maybe<ResolversTypes['Asset']>, ParentType, ContextType>;
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  before?: Resolver<Maybe<ResolversTypes['JSONObject']>, ParentType, ContextType>;
  correlationId?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  entity?: Resolver<ResolversTypes['ChangeEntity'], ParentType, ContextType>;
  entityId?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  kind?: Resolver<ResolversTypes['ChangeKind'], ParentType, ContextType>;
  patch?: Resolver<Array<ResolversTypes['JSONObject']>, ParentType, ContextType>;
  profile?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
  version?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
}>;

export type ChangeActorResolvers<ContextType = EventsContext, ParentType extends ResolversParentTypes['ChangeActor'] = ResolversParentTypes['ChangeActor']> = ResolversObject<{
  kind?: Resolver<ResolversTypes['ChangeActorKind'], ParentType, ContextType>;
  name?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
}>;

export type ChangeConnectionResolvers<ContextType = EventsContext, ParentType extends ResolversParentTypes['ChangeConnection'] = ResolversParentTypes['ChangeConnection']> = ResolversObject<{
  edges?: Resolver<Array<ResolversTypes['ChangeEdge']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
}>;

export type ChangeEdgeResolvers<ContextType = EventsContext, ParentType extends ResolversParentTypes['ChangeEdge'] = ResolversParentTypes['ChangeEdge']> = ResolversObject<{
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  node?: Resolver<ResolversTypes['Change'], ParentType, ContextType>;
}>;

export interface DateTimeScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['DateTime'], any> {
  name: 'DateTime';
}

export interface JsonObjectScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['JSONObject'], any> {
  name: 'JSONObject';
}

export type MutationResolvers<ContextType = EventsContext, ParentType extends ResolversParentTypes['Mutation'] = ResolversParentTypes['Mutation']> = ResolversObject<{
  _eventsMutationRoot?: Resolver<Maybe<ResolversTypes['Boolean']>, ParentType, ContextType>;
}>;

export type PageInfoResolvers<ContextType = EventsContext, ParentType extends ResolversParentTypes['PageInfo'] = ResolversParentTypes['PageInfo']> = ResolversObject<{
  endCursor?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  hasNextPage?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  hasPreviousPage?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  startCursor?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
}>;

export type QueryResolvers<ContextType = EventsContext, ParentType extends ResolversParentTypes['Query'] = ResolversParentTypes['Query']> = ResolversObject<{
  changes?: Resolver<ResolversTypes['ChangeConnection'], ParentType, ContextType, Partial<QueryChangesArgs>>;
}>;

export type SubscriptionResolvers<ContextType = EventsContext, ParentType extends ResolversParentTypes['Subscription'] = ResolversParentTypes['Subscription']> = ResolversObject<{
  changes?: SubscriptionResolver<ResolversTypes['Change'], "changes", ParentType, ContextType, Partial<SubscriptionChangesArgs>>;
}>;

export type Resolvers<ContextType = EventsContext> = ResolversObject<{
  Asset?: AssetResolvers<ContextType>;
  AssetProfile?: AssetProfileResolvers<ContextType>;
  Change?: ChangeResolvers<ContextType>;
  ChangeActor?: ChangeActorResolvers<ContextType>;
  ChangeConnection?: ChangeConnectionResolvers<ContextType>;
  ChangeEdge?: ChangeEdgeResolvers<ContextType>;
  DateTime?: GraphQLScalarType;
  JSONObject?: GraphQLScalarType;
  Mutation?: MutationResolvers<ContextType>;
  PageInfo?: PageInfoResolvers<ContextType>;
  Query?: QueryResolvers<ContextType>;
  Subscription?: SubscriptionResolvers<ContextType>;
}>;


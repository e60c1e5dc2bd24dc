import type { GraphQLResolveInfo, GraphQLScalarType, GraphQLScalarTypeConfig } from 'graphql';
import type { ChangeRow } from '../subgraphs/events/changes.repository.ts';
import type { WebhookRow, DeliveryRow, AttemptRow } from '../subgraphs/events/webhooks/repository.ts';
import type { EventsContext } from '../subgraphs/events/context.ts';
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
  /**
   * For API_KEY: which of its owner's keys, by its public id (`AuthAPIKey.apiKeyId`, what
   * `revokeAPIKey` takes; never its secret). Null for any other kind, and for a change made through
   * an API key before assetql recorded it.
   */
  apiKeyId: Maybe<Scalars['ID']['output']>;
  kind: ChangeActorKind;
  /** The username (for API_KEY, the key's owner), or the command's name for SYSTEM. */
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

export type CreateWebhookInput = {
  description?: InputMaybe<Scalars['String']['input']>;
  /** Which changes (at most 100 values a list); all without. */
  filter?: InputMaybe<ChangeFilter>;
  /** An http or https URL, at most 2,048 characters, without credentials. */
  url: Scalars['String']['input'];
};

export type DeleteWebhookInput = {
  id: Scalars['ID']['input'];
};

export type Mutation = {
  __typename?: 'Mutation';
  /**
   * Sends the group's changes that `filter` keeps to `url`, signed by the Standard Webhooks scheme
   * with the secret this answer shows, once. At most 20 webhooks a group.
   */
  createWebhook: WebhookResult;
  deleteWebhook: WebhookResult;
  /** Sends a delivery again, now, whatever became of it. */
  redeliverWebhook: WebhookDeliveryResult;
  /** Changes a webhook; `enabled: true` enables one that was disabled (its deliveries go on). */
  updateWebhook: WebhookResult;
};


export type MutationCreateWebhookArgs = {
  input: CreateWebhookInput;
};


export type MutationDeleteWebhookArgs = {
  input: DeleteWebhookInput;
};


export type MutationRedeliverWebhookArgs = {
  input: RedeliverWebhookInput;
};


export type MutationUpdateWebhookArgs = {
  input: UpdateWebhookInput;
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
  /** One change of the caller's group by its cursor (what a webhook payload too large to carry it refers to). */
  change: Maybe<Change>;
  /**
   * The change log of the caller's group (docs/events.md): newest first, or oldest first with
   * `order: OLDEST_FIRST`, where a cursor resumes exactly after the change it names (a cursor from
   * before the log's retention is refused with CURSOR_EXPIRED). `first` defaults to 50, at most 500.
   */
  changes: ChangeConnection;
  /** The caller's group's webhooks, oldest first (docs/events.md#webhooks). */
  webhooks: Array<Webhook>;
};


export type QueryChangeArgs = {
  cursor: Scalars['String']['input'];
};


export type QueryChangesArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  filter?: InputMaybe<ChangeFilter>;
  first?: InputMaybe<Scalars['Int']['input']>;
  order?: InputMaybe<ChangeOrder>;
};

export type RedeliverWebhookInput = {
  deliveryId: Scalars['ID']['input'];
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

export type UpdateWebhookInput = {
  description?: InputMaybe<Scalars['String']['input']>;
  enabled?: InputMaybe<Scalars['Boolean']['input']>;
  filter?: InputMaybe<ChangeFilter>;
  id: Scalars['ID']['input'];
  /** Only if the webhook is at this version (VERSION_CONFLICT otherwise). */
  ifVersion?: InputMaybe<Scalars['Int']['input']>;
  url?: InputMaybe<Scalars['String']['input']>;
};

/** An endpoint the group's changes are delivered to. */
export type Webhook = {
  __typename?: 'Webhook';
  createdAt: Scalars['DateTime']['output'];
  createdBy: Scalars['String']['output'];
  /** Its deliveries, newest first. `first` defaults to 50, at most 100. */
  deliveries: WebhookDeliveryConnection;
  description: Maybe<Scalars['String']['output']>;
  disabledReason: Maybe<Scalars['String']['output']>;
  /** False once disabled: by a user, by a `410 Gone`, or after days of failures (`disabledReason`). */
  enabled: Scalars['Boolean']['output'];
  filter: WebhookFilter;
  id: Scalars['ID']['output'];
  url: Scalars['String']['output'];
  version: Scalars['Int']['output'];
};


/** An endpoint the group's changes are delivered to. */
export type WebhookDeliveriesArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};

export type WebhookAttempt = {
  __typename?: 'WebhookAttempt';
  at: Scalars['DateTime']['output'];
  attempt: Scalars['Int']['output'];
  durationMs: Scalars['Int']['output'];
  error: Maybe<Scalars['String']['output']>;
  /** The endpoint's HTTP status; null when there was no answer (`error` says why). */
  status: Maybe<Scalars['Int']['output']>;
};

/** One change sent to one webhook: its requests carry `webhook-id: <id>`. */
export type WebhookDelivery = {
  __typename?: 'WebhookDelivery';
  /** Its attempts, newest first (the last 50). */
  attempts: Array<WebhookAttempt>;
  change: Maybe<Change>;
  createdAt: Scalars['DateTime']['output'];
  /** The change's cursor (`change(cursor:)` reads it while the log keeps it). */
  cursor: Scalars['String']['output'];
  id: Scalars['ID']['output'];
  /** When it is tried next, while pending. */
  nextAttemptAt: Maybe<Scalars['DateTime']['output']>;
  status: WebhookDeliveryStatus;
};

export type WebhookDeliveryConnection = {
  __typename?: 'WebhookDeliveryConnection';
  edges: Array<WebhookDeliveryEdge>;
  pageInfo: PageInfo;
};

export type WebhookDeliveryEdge = {
  __typename?: 'WebhookDeliveryEdge';
  cursor: Scalars['String']['output'];
  node: WebhookDelivery;
};

export type WebhookDeliveryResult = {
  __typename?: 'WebhookDeliveryResult';
  correlationId: Scalars['String']['output'];
  delivery: Maybe<WebhookDelivery>;
  errors: Array<WebhookError>;
};

export type WebhookDeliveryStatus =
  /** Its schedule ran out, or its webhook was disabled. */
  | 'FAILED'
  | 'PENDING'
  | 'SUCCEEDED';

export type WebhookError = {
  __typename?: 'WebhookError';
  message: Scalars['String']['output'];
  type: WebhookErrorType;
};

export type WebhookErrorType =
  | 'BAD_FILTER'
  /** A delivery that is pending already, or has had 50 attempts, is not sent again. */
  | 'DELIVERY_BUSY'
  /** Not an http or https URL, too long, with credentials, or reaching an address webhooks may not reach. */
  | 'INVALID_URL'
  | 'NOT_FOUND'
  | 'TOO_MANY_WEBHOOKS'
  | 'UNAUTHENTICATED'
  | 'VERSION_CONFLICT';

export type WebhookFilter = {
  __typename?: 'WebhookFilter';
  entities: Maybe<Array<ChangeEntity>>;
  ids: Maybe<Array<Scalars['ID']['output']>>;
  kinds: Maybe<Array<ChangeKind>>;
  profiles: Maybe<Array<Scalars['ID']['output']>>;
};

export type WebhookResult = {
  __typename?: 'WebhookResult';
  correlationId: Scalars['String']['output'];
  errors: Array<WebhookError>;
  /** The signing secret (`whsec_…`): shown by createWebhook only, and never again. */
  secret: Maybe<Scalars['String']['output']>;
  webhook: Maybe<Webhook>;
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
  CreateWebhookInput: CreateWebhookInput;
  DateTime: ResolverTypeWrapper<Scalars['DateTime']['output']>;
  DeleteWebhookInput: DeleteWebhookInput;
  JSONObject: ResolverTypeWrapper<Scalars['JSONObject']['output']>;
  Mutation: ResolverTypeWrapper<Record<PropertyKey, never>>;
  PageInfo: ResolverTypeWrapper<PageInfo>;
  Boolean: ResolverTypeWrapper<Scalars['Boolean']['output']>;
  Query: ResolverTypeWrapper<Record<PropertyKey, never>>;
  RedeliverWebhookInput: RedeliverWebhookInput;
  Subscription: ResolverTypeWrapper<Record<PropertyKey, never>>;
  UpdateWebhookInput: UpdateWebhookInput;
  Webhook: ResolverTypeWrapper<WebhookRow>;
  WebhookAttempt: ResolverTypeWrapper<AttemptRow>;
  WebhookDelivery: ResolverTypeWrapper<DeliveryRow>;
  WebhookDeliveryConnection: ResolverTypeWrapper<Omit<WebhookDeliveryConnection, 'edges'> & { edges: Array<ResolversTypes['WebhookDeliveryEdge']> }>;
  WebhookDeliveryEdge: ResolverTypeWrapper<Omit<WebhookDeliveryEdge, 'node'> & { node: ResolversTypes['WebhookDelivery'] }>;
  WebhookDeliveryResult: ResolverTypeWrapper<Omit<WebhookDeliveryResult, 'delivery'> & { delivery?: Maybe<ResolversTypes['WebhookDelivery']> }>;
  WebhookDeliveryStatus: WebhookDeliveryStatus;
  WebhookError: ResolverTypeWrapper<WebhookError>;
  WebhookErrorType: WebhookErrorType;
  WebhookFilter: ResolverTypeWrapper<WebhookFilter>;
  WebhookResult: ResolverTypeWrapper<Omit<WebhookResult, 'webhook'> & { webhook?: Maybe<ResolversTypes['Webhook']> }>;
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
  CreateWebhookInput: CreateWebhookInput;
  DateTime: Scalars['DateTime']['output'];
  DeleteWebhookInput: DeleteWebhookInput;
  JSONObject: Scalars['JSONObject']['output'];
  Mutation: Record<PropertyKey, never>;
  PageInfo: PageInfo;
  Boolean: Scalars['Boolean']['output'];
  Query: Record<PropertyKey, never>;
  RedeliverWebhookInput: RedeliverWebhookInput;
  Subscription: Record<PropertyKey, never>;
  UpdateWebhookInput: UpdateWebhookInput;
  Webhook: WebhookRow;
  WebhookAttempt: AttemptRow;
  WebhookDelivery: DeliveryRow;
  WebhookDeliveryConnection: Omit<WebhookDeliveryConnection, 'edges'> & { edges: Array<ResolversParentTypes['WebhookDeliveryEdge']> };
  WebhookDeliveryEdge: Omit<WebhookDeliveryEdge, 'node'> & { node: ResolversParentTypes['WebhookDelivery'] };
  WebhookDeliveryResult: Omit<WebhookDeliveryResult, 'delivery'> & { delivery?: Maybe<ResolversParentTypes['WebhookDelivery']> };
  WebhookError: WebhookError;
  WebhookFilter: WebhookFilter;
  WebhookResult: Omit<WebhookResult, 'webhook'> & { webhook?: Maybe<ResolversParentTypes['Webhook']> };
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
  apiKeyId?: Resolver<Maybe<ResolversTypes['ID']>, ParentType, ContextType>;
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
  createWebhook?: Resolver<ResolversTypes['WebhookResult'], ParentType, ContextType, RequireFields<MutationCreateWebhookArgs, 'input'>>;
  deleteWebhook?: Resolver<ResolversTypes['WebhookResult'], ParentType, ContextType, RequireFields<MutationDeleteWebhookArgs, 'input'>>;
  redeliverWebhook?: Resolver<ResolversTypes['WebhookDeliveryResult'], ParentType, ContextType, RequireFields<MutationRedeliverWebhookArgs, 'input'>>;
  updateWebhook?: Resolver<ResolversTypes['WebhookResult'], ParentType, ContextType, RequireFields<MutationUpdateWebhookArgs, 'input'>>;
}>;

export type PageInfoResolvers<ContextType = EventsContext, ParentType extends ResolversParentTypes['PageInfo'] = ResolversParentTypes['PageInfo']> = ResolversObject<{
  endCursor?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  hasNextPage?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  hasPreviousPage?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  startCursor?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
}>;

export type QueryResolvers<ContextType = EventsContext, ParentType extends ResolversParentTypes['Query'] = ResolversParentTypes['Query']> = ResolversObject<{
  change?: Resolver<Maybe<ResolversTypes['Change']>, ParentType, ContextType, RequireFields<QueryChangeArgs, 'cursor'>>;
  changes?: Resolver<ResolversTypes['ChangeConnection'], ParentType, ContextType, Partial<QueryChangesArgs>>;
  webhooks?: Resolver<Array<ResolversTypes['Webhook']>, ParentType, ContextType>;
}>;

export type SubscriptionResolvers<ContextType = EventsContext, ParentType extends ResolversParentTypes['Subscription'] = ResolversParentTypes['Subscription']> = ResolversObject<{
  changes?: SubscriptionResolver<ResolversTypes['Change'], "changes", ParentType, ContextType, Partial<SubscriptionChangesArgs>>;
}>;

export type WebhookResolvers<ContextType = EventsContext, ParentType extends ResolversParentTypes['Webhook'] = ResolversParentTypes['Webhook']> = ResolversObject<{
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  createdBy?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  deliveries?: Resolver<ResolversTypes['WebhookDeliveryConnection'], ParentType, ContextType, Partial<WebhookDeliveriesArgs>>;
  description?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  disabledReason?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  enabled?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  filter?: Resolver<ResolversTypes['WebhookFilter'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  url?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  version?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
}>;

export type WebhookAttemptResolvers<ContextType = EventsContext, ParentType extends ResolversParentTypes['WebhookAttempt'] = ResolversParentTypes['WebhookAttempt']> = ResolversObject<{
  at?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  attempt?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  durationMs?: Resolver<ResolversTypes['Int'], ParentType, ContextType>;
  error?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  status?: Resolver<Maybe<ResolversTypes['Int']>, ParentType, ContextType>;
}>;

export type WebhookDeliveryResolvers<ContextType = EventsContext, ParentType extends ResolversParentTypes['WebhookDelivery'] = ResolversParentTypes['WebhookDelivery']> = ResolversObject<{
  attempts?: Resolver<Array<ResolversTypes['WebhookAttempt']>, ParentType, ContextType>;
  change?: Resolver<Maybe<ResolversTypes['Change']>, ParentType, ContextType>;
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  nextAttemptAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  status?: Resolver<ResolversTypes['WebhookDeliveryStatus'], ParentType, ContextType>;
}>;

export type WebhookDeliveryConnectionResolvers<ContextType = EventsContext, ParentType extends ResolversParentTypes['WebhookDeliveryConnection'] = ResolversParentTypes['WebhookDeliveryConnection']> = ResolversObject<{
  edges?: Resolver<Array<ResolversTypes['WebhookDeliveryEdge']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
}>;

export type WebhookDeliveryEdgeResolvers<ContextType = EventsContext, ParentType extends ResolversParentTypes['WebhookDeliveryEdge'] = ResolversParentTypes['WebhookDeliveryEdge']> = ResolversObject<{
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  node?: Resolver<ResolversTypes['WebhookDelivery'], ParentType, ContextType>;
}>;

export type WebhookDeliveryResultResolvers<ContextType = EventsContext, ParentType extends ResolversParentTypes['WebhookDeliveryResult'] = ResolversParentTypes['WebhookDeliveryResult']> = ResolversObject<{
  correlationId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  delivery?: Resolver<Maybe<ResolversTypes['WebhookDelivery']>, ParentType, ContextType>;
  errors?: Resolver<Array<ResolversTypes['WebhookError']>, ParentType, ContextType>;
}>;

export type WebhookErrorResolvers<ContextType = EventsContext, ParentType extends ResolversParentTypes['WebhookError'] = ResolversParentTypes['WebhookError']> = ResolversObject<{
  message?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['WebhookErrorType'], ParentType, ContextType>;
}>;

export type WebhookFilterResolvers<ContextType = EventsContext, ParentType extends ResolversParentTypes['WebhookFilter'] = ResolversParentTypes['WebhookFilter']> = ResolversObject<{
  entities?: Resolver<Maybe<Array<ResolversTypes['ChangeEntity']>>, ParentType, ContextType>;
  ids?: Resolver<Maybe<Array<ResolversTypes['ID']>>, ParentType, ContextType>;
  kinds?: Resolver<Maybe<Array<ResolversTypes['ChangeKind']>>, ParentType, ContextType>;
  profiles?: Resolver<Maybe<Array<ResolversTypes['ID']>>, ParentType, ContextType>;
}>;

export type WebhookResultResolvers<ContextType = EventsContext, ParentType extends ResolversParentTypes['WebhookResult'] = ResolversParentTypes['WebhookResult']> = ResolversObject<{
  correlationId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  errors?: Resolver<Array<ResolversTypes['WebhookError']>, ParentType, ContextType>;
  secret?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  webhook?: Resolver<Maybe<ResolversTypes['Webhook']>, ParentType, ContextType>;
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
  Webhook?: WebhookResolvers<ContextType>;
  WebhookAttempt?: WebhookAttemptResolvers<ContextType>;
  WebhookDelivery?: WebhookDeliveryResolvers<ContextType>;
  WebhookDeliveryConnection?: WebhookDeliveryConnectionResolvers<ContextType>;
  WebhookDeliveryEdge?: WebhookDeliveryEdgeResolvers<ContextType>;
  WebhookDeliveryResult?: WebhookDeliveryResultResolvers<ContextType>;
  WebhookError?: WebhookErrorResolvers<ContextType>;
  WebhookFilter?: WebhookFilterResolvers<ContextType>;
  WebhookResult?: WebhookResultResolvers<ContextType>;
}>;


import type { GraphQLResolveInfo, GraphQLScalarType, GraphQLScalarTypeConfig } from 'graphql';
import type { IssueRow, SubjectKey } from '../subgraphs/issues/issues.repository.ts';
import type { IssuesContext } from '../subgraphs/issues/context.ts';
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
  _FieldSet: { input: unknown; output: unknown; }
};

export type CreateIssueInput = {
  description?: InputMaybe<Scalars['String']['input']>;
  displayName: Scalars['String']['input'];
  status?: InputMaybe<IssueStatus>;
  subject?: InputMaybe<IssueSubjectInput>;
};

export type Issue = {
  __typename?: 'Issue';
  audit: IssueAudit;
  createdAt: Scalars['DateTime']['output'];
  description: Maybe<Scalars['String']['output']>;
  displayName: Scalars['String']['output'];
  id: Scalars['ID']['output'];
  status: IssueStatus;
  /** What the issue is about; null for a free-standing issue. */
  subject: Maybe<IssueSubject>;
};

export type IssueAudit = {
  __typename?: 'IssueAudit';
  createdAt: Scalars['DateTime']['output'];
  createdBy: IssueAuditUser;
};

export type IssueAuditUser = {
  __typename?: 'IssueAuditUser';
  /** The username of the user (or API key owner) who acted. */
  userId: Scalars['ID']['output'];
};

export type IssueEdge = {
  __typename?: 'IssueEdge';
  cursor: Scalars['String']['output'];
  node: Issue;
};

export type IssueErrorType =
  /** An input value is out of range or malformed; the message names it. */
  | 'INVALID_INPUT'
  /** The caller is not signed in. */
  | 'UNAUTHENTICATED';

export type IssueMutationError = {
  __typename?: 'IssueMutationError';
  message: Scalars['String']['output'];
  type: IssueErrorType;
};

export type IssueMutationResult = {
  __typename?: 'IssueMutationResult';
  correlationId: Scalars['String']['output'];
  errors: Array<IssueMutationError>;
  issue: Maybe<Issue>;
};

export type IssueStatus =
  | 'CLOSED'
  | 'IN_PROGRESS'
  | 'OPEN'
  | 'RESOLVED';

/**
 * What an issue is about. `type` names the kind of subject (`asset` for assets) and `reference`
 * identifies it within that kind; the assets subgraph resolves `assetReference` from the same key.
 */
export type IssueSubject = {
  __typename?: 'IssueSubject';
  /** Issues about this subject, newest first. */
  issues: IssuesConnection;
  reference: Scalars['ID']['output'];
  type: Scalars['String']['output'];
};


/**
 * What an issue is about. `type` names the kind of subject (`asset` for assets) and `reference`
 * identifies it within that kind; the assets subgraph resolves `assetReference` from the same key.
 */
export type IssueSubjectIssuesArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};

export type IssueSubjectInput = {
  reference: Scalars['ID']['input'];
  type: Scalars['String']['input'];
};

export type Issues = {
  __typename?: 'Issues';
  /** Newest first. `first` defaults to 20 and may be at most 500. */
  all: IssuesConnection;
  byId: Maybe<Issue>;
};


export type IssuesAllArgs = {
  after?: InputMaybe<Scalars['String']['input']>;
  first?: InputMaybe<Scalars['Int']['input']>;
};


export type IssuesByIdArgs = {
  id: Scalars['ID']['input'];
};

export type IssuesConnection = {
  __typename?: 'IssuesConnection';
  edges: Array<IssueEdge>;
  pageInfo: PageInfo;
};

export type Mutation = {
  __typename?: 'Mutation';
  /** Opens an issue, optionally about a subject such as an asset (assetql addition, see docs/schema.md). */
  createIssue: IssueMutationResult;
};


export type MutationCreateIssueArgs = {
  correlationId?: InputMaybe<Scalars['String']['input']>;
  input: CreateIssueInput;
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
  /** Issues of the caller's group (spec §4.2). */
  issues: Issues;
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
  Issue: Issue;
  IssueSubject: IssueSubject;
}>;

/** Mapping of federation reference types */
export type FederationReferenceTypes = ResolversObject<{
  Issue:
    ( { __typename: 'Issue' }
    & GraphQLRecursivePick<FederationTypes['Issue'], {"id":true}> );
  IssueSubject:
    ( { __typename: 'IssueSubject' }
    & GraphQLRecursivePick<FederationTypes['IssueSubject'], {"type":true,"reference":true}> );
}>;



/** Mapping between all available schema types and the resolvers types */
export type ResolversTypes = ResolversObject<{
  CreateIssueInput: CreateIssueInput;
  String: ResolverTypeWrapper<Scalars['String']['output']>;
  DateTime: ResolverTypeWrapper<Scalars['DateTime']['output']>;
  Issue: ResolverTypeWrapper<IssueRow>;
  ID: ResolverTypeWrapper<Scalars['ID']['output']>;
  IssueAudit: ResolverTypeWrapper<IssueAudit>;
  IssueAuditUser: ResolverTypeWrapper<IssueAuditUser>;
  IssueEdge: ResolverTypeWrapper<Omit<IssueEdge, 'node'> & { node: ResolversTypes['Issue'] }>;
  IssueErrorType: IssueErrorType;
  IssueMutationError: ResolverTypeWrapper<IssueMutationError>;
  IssueMutationResult: ResolverTypeWrapper<Omit<IssueMutationResult, 'issue'> & { issue?: Maybe<ResolversTypes['Issue']> }>;
  IssueStatus: IssueStatus;
  IssueSubject: ResolverTypeWrapper<SubjectKey>;
  Int: ResolverTypeWrapper<Scalars['Int']['output']>;
  IssueSubjectInput: IssueSubjectInput;
  Issues: ResolverTypeWrapper<Record<string, never>>;
  IssuesConnection: ResolverTypeWrapper<Omit<IssuesConnection, 'edges'> & { edges: Array<ResolversTypes['IssueEdge']> }>;
  Mutation: ResolverTypeWrapper<Record<PropertyKey, never>>;
  PageInfo: ResolverTypeWrapper<PageInfo>;
  Boolean: ResolverTypeWrapper<Scalars['Boolean']['output']>;
  Query: ResolverTypeWrapper<Record<PropertyKey, never>>;
}>;

/** Mapping between all available schema types and the resolvers parents */
export type ResolversParentTypes = ResolversObject<{
  CreateIssueInput: CreateIssueInput;
  String: Scalars['String']['output'];
  DateTime: Scalars['DateTime']['output'];
  Issue: IssueRow;
  ID: Scalars['ID']['output'];
  IssueAudit: IssueAudit;
  IssueAuditUser: IssueAuditUser;
  IssueEdge: Omit<IssueEdge, 'node'> & { node: ResolversParentTypes['Issue'] };
  IssueMutationError: IssueMutationError;
  IssueMutationResult: Omit<IssueMutationResult, 'issue'> & { issue?: Maybe<ResolversParentTypes['Issue']> };
  IssueSubject: SubjectKey;
  Int: Scalars['Int']['output'];
  IssueSubjectInput: IssueSubjectInput;
  Issues: Record<string, never>;
  IssuesConnection: Omit<IssuesConnection, 'edges'> & { edges: Array<ResolversParentTypes['IssueEdge']> };
  Mutation: Record<PropertyKey, never>;
  PageInfo: PageInfo;
  Boolean: Scalars['Boolean']['output'];
  Query: Record<PropertyKey, never>;
}>;

export interface DateTimeScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['DateTime'], any> {
  name: 'DateTime';
}

export type IssueResolvers<ContextType = IssuesContext, ParentType extends ResolversParentTypes['Issue'] = ResolversParentTypes['Issue'], FederationReferenceType extends FederationReferenceTypes['Issue'] = FederationReferenceTypes['Issue']> = ResolversObject<{
  __resolveReference?: ReferenceResolver<Maybe<ResolversTypes['Issue']> | FederationReferenceType, FederationReferenceType, ContextType>;
  audit?: Resolver<ResolversTypes['IssueAudit'], ParentType, ContextType>;
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  description?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  displayName?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  status?: Resolver<ResolversTypes['IssueStatus'], ParentType, ContextType>;
  subject?: Resolver<Maybe<ResolversTypes['IssueSubject']>, ParentType, ContextType>;
}>;

export type IssueAuditResolvers<ContextType = IssuesContext, ParentType extends ResolversParentTypes['IssueAudit'] = ResolversParentTypes['IssueAudit']> = ResolversObject<{
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  createdBy?: Resolver<ResolversTypes['IssueAuditUser'], ParentType, ContextType>;
}>;

export type IssueAuditUserResolvers<ContextType = IssuesContext, ParentType extends ResolversParentTypes['IssueAuditUser'] = ResolversParentTypes['IssueAuditUser']> = ResolversObject<{
  userId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
}>;

export type IssueEdgeResolvers<ContextType = IssuesContext, ParentType extends ResolversParentTypes['IssueEdge'] = ResolversParentTypes['IssueEdge']> = ResolversObject<{
  cursor?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  node?: Resolver<ResolversTypes['Issue'], ParentType, ContextType>;
}>;

export type IssueMutationErrorResolvers<ContextType = IssuesContext, ParentType extends ResolversParentTypes['IssueMutationError'] = ResolversParentTypes['IssueMutationError']> = ResolversObject<{
  message?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['IssueErrorType'], ParentType, ContextType>;
}>;

export type IssueMutationResultResolvers<ContextType = IssuesContext, ParentType extends ResolversParentTypes['IssueMutationResult'] = ResolversParentTypes['IssueMutationResult']> = ResolversObject<{
  correlationId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  errors?: Resolver<Array<ResolversTypes['IssueMutationError']>, ParentType, ContextType>;
  issue?: Resolver<Maybe<ResolversTypes['Issue']>, ParentType, ContextType>;
}>;

export type IssueSubjectResolvers<ContextType = IssuesContext, ParentType extends ResolversParentTypes['IssueSubject'] = ResolversParentTypes['IssueSubject'], FederationReferenceType extends FederationReferenceTypes['IssueSubject'] = FederationReferenceTypes['IssueSubject']> = ResolversObject<{
  __resolveReference?: ReferenceResolver<Maybe<ResolversTypes['IssueSubject']> | FederationReferenceType, FederationReferenceType, ContextType>;
  issues?: Resolver<ResolversTypes['IssuesConnection'], ParentType, ContextType, Partial<IssueSubjectIssuesArgs>>;
  reference?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
}>;

export type IssuesResolvers<ContextType = IssuesContext, ParentType extends ResolversParentTypes['Issues'] = ResolversParentTypes['Issues']> = ResolversObject<{
  all?: Resolver<ResolversTypes['IssuesConnection'], ParentType, ContextType, Partial<IssuesAllArgs>>;
  byId?: Resolver<Maybe<ResolversTypes['Issue']>, ParentType, ContextType, RequireFields<IssuesByIdArgs, 'id'>>;
}>;

export type IssuesConnectionResolvers<ContextType = IssuesContext, ParentType extends ResolversParentTypes['IssuesConnection'] = ResolversParentTypes['IssuesConnection']> = ResolversObject<{
  edges?: Resolver<Array<ResolversTypes['IssueEdge']>, ParentType, ContextType>;
  pageInfo?: Resolver<ResolversTypes['PageInfo'], ParentType, ContextType>;
}>;

export type MutationResolvers<ContextType = IssuesContext, ParentType extends ResolversParentTypes['Mutation'] = ResolversParentTypes['Mutation']> = ResolversObject<{
  createIssue?: Resolver<ResolversTypes['IssueMutationResult'], ParentType, ContextType, RequireFields<MutationCreateIssueArgs, 'input'>>;
}>;

export type PageInfoResolvers<ContextType = IssuesContext, ParentType extends ResolversParentTypes['PageInfo'] = ResolversParentTypes['PageInfo']> = ResolversObject<{
  endCursor?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  hasNextPage?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  hasPreviousPage?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  startCursor?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
}>;

export type QueryResolvers<ContextType = IssuesContext, ParentType extends ResolversParentTypes['Query'] = ResolversParentTypes['Query']> = ResolversObject<{
  issues?: Resolver<ResolversTypes['Issues'], ParentType, ContextType>;
}>;

export type Resolvers<ContextType = IssuesContext> = ResolversObject<{
  DateTime?: GraphQLScalarType;
  Issue?: IssueResolvers<ContextType>;
  IssueAudit?: IssueAuditResolvers<ContextType>;
  IssueAuditUser?: IssueAuditUserResolvers<ContextType>;
  IssueEdge?: IssueEdgeResolvers<ContextType>;
  IssueMutationError?: IssueMutationErrorResolvers<ContextType>;
  IssueMutationResult?: IssueMutationResultResolvers<ContextType>;
  IssueSubject?: IssueSubjectResolvers<ContextType>;
  Issues?: IssuesResolvers<ContextType>;
  IssuesConnection?: IssuesConnectionResolvers<ContextType>;
  Mutation?: MutationResolvers<ContextType>;
  PageInfo?: PageInfoResolvers<ContextType>;
  Query?: QueryResolvers<ContextType>;
}>;


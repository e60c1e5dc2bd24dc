import type { GraphQLResolveInfo, GraphQLScalarType, GraphQLScalarTypeConfig } from 'graphql';
import type { AuthContext } from '../subgraphs/auth/context.ts';
export type Maybe<T> = T | null;
export type InputMaybe<T> = Maybe<T>;
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

export type AuthApiKey = {
  __typename?: 'AuthAPIKey';
  apiKeyId: Scalars['ID']['output'];
  /** The session ID to send in `x-svc-sessionid`; shown once, when the key is created, and null afterwards. */
  apiKeySessionId: Maybe<Scalars['String']['output']>;
  authenticated: Scalars['Boolean']['output'];
  createdAt: Maybe<Scalars['DateTime']['output']>;
  expiresAt: Maybe<Scalars['DateTime']['output']>;
  expiresAtHard: Maybe<Scalars['DateTime']['output']>;
  lastUsedAt: Maybe<Scalars['DateTime']['output']>;
  userGroup: Scalars['String']['output'];
  username: Scalars['String']['output'];
};

export type AuthApiKeyResult = {
  __typename?: 'AuthAPIKeyResult';
  apiKey: Maybe<AuthApiKey>;
  correlationId: Scalars['String']['output'];
  errors: Array<AuthError>;
};

/** The challenge a pending sign-in waits on (spec §5.2). */
export type AuthChallengeName =
  | 'MFA_SETUP'
  | 'NEW_PASSWORD_REQUIRED'
  | 'SMS_MFA'
  | 'SOFTWARE_TOKEN_MFA';

export type AuthChangePasswordInput = {
  currentPassword: Scalars['String']['input'];
  /** Must pass the password policy (docs/auth.md §9). */
  newPassword: Scalars['String']['input'];
};

export type AuthConfig = {
  __typename?: 'AuthConfig';
  loginEnabled: Scalars['Boolean']['output'];
  ssoEnabled: Scalars['Boolean']['output'];
  ssoUrl: Maybe<Scalars['String']['output']>;
};

export type AuthConfirmSignInInput = {
  /**
   * The one-time code for SMS_MFA, SOFTWARE_TOKEN_MFA and MFA_SETUP; for NEW_PASSWORD_REQUIRED,
   * the new password (as Amplify's `challengeResponse`).
   */
  code: Scalars['String']['input'];
  mfaType: AuthChallengeName;
  /**
   * With a right MFA code, remember this device, so that its next sign-ins skip MFA (assetql
   * addition; it counts where devices are remembered on the user's opt-in, the default). The
   * answer's `session.deviceKey` is then the device's whole key, secret included: keep it and send
   * it as `deviceKey` at the next sign-in.
   */
  rememberDevice?: InputMaybe<Scalars['Boolean']['input']>;
};

export type AuthCreateApiKeyInput = {
  /** A name for the key, unique among the caller's keys. */
  apiKeyId: Scalars['ID']['input'];
  userGroup: Scalars['String']['input'];
};

export type AuthCredentials = {
  __typename?: 'AuthCredentials';
  accessKeyId: Scalars['String']['output'];
  expiration: Scalars['DateTime']['output'];
  secretAccessKey: Scalars['String']['output'];
  sessionToken: Scalars['String']['output'];
};

export type AuthError = {
  __typename?: 'AuthError';
  message: Scalars['String']['output'];
  type: AuthErrorType;
};

/** The catalogue of authentication error types (docs/auth.md). */
export type AuthErrorType =
  /** The pending challenge expired or took too many wrong codes; sign in again. */
  | 'CHALLENGE_EXPIRED'
  /** The code is wrong, expired or already used. */
  | 'CODE_MISMATCH'
  /** An API key with that id already exists for this user. */
  | 'DUPLICATE_ID'
  /** The user has no access to that group. */
  | 'GROUP_ACCESS_DENIED'
  /** An input value is malformed; the message names it. */
  | 'INVALID_INPUT'
  /** The password is too short or too common. */
  | 'INVALID_PASSWORD'
  /** The identity token was rejected. */
  | 'INVALID_TOKEN'
  /** Too many attempts; try again later. */
  | 'LIMIT_EXCEEDED'
  /** Sign-in of that kind is disabled by configuration. */
  | 'LOGIN_DISABLED'
  /** Unknown user or wrong password; the two are never told apart. */
  | 'NOT_AUTHORIZED'
  /** No such API key, device or session. */
  | 'NOT_FOUND'
  /** No challenge of that name is pending for this session. */
  | 'NO_PENDING_CHALLENGE'
  /** The session is signed in, but this needs a recent reauthenticate. */
  | 'REAUTHENTICATION_REQUIRED'
  /** The operation needs a signed-in session. */
  | 'UNAUTHENTICATED'
  /** The user is disabled. */
  | 'USER_DISABLED';

export type AuthFederatedSignInInput = {
  clientApplicationType: ClientApplicationType;
  /** An OpenID Connect ID token from a configured identity provider. */
  cognitoIdToken: Scalars['String']['input'];
  deviceKey?: InputMaybe<Scalars['String']['input']>;
  deviceName?: InputMaybe<Scalars['String']['input']>;
};

export type AuthForgetSpecificDevicesInput = {
  deviceKeys: Array<Scalars['String']['input']>;
};

export type AuthForgotPasswordInput = {
  loginUsername: Scalars['String']['input'];
};

export type AuthForgotPasswordResult = {
  __typename?: 'AuthForgotPasswordResult';
  correlationId: Scalars['String']['output'];
  errors: Array<AuthError>;
};

export type AuthForgotPasswordSubmitInput = {
  confirmationCode: Scalars['String']['input'];
  loginUsername: Scalars['String']['input'];
  password: Scalars['String']['input'];
};

export type AuthRevokeApiKeyInput = {
  apiKeyId: Scalars['ID']['input'];
};

export type AuthSessionResult = {
  __typename?: 'AuthSessionResult';
  correlationId: Scalars['String']['output'];
  errors: Array<AuthError>;
  session: Maybe<Session>;
};

export type AuthSetSessionUserGroupInput = {
  userGroup: Scalars['String']['input'];
};

export type AuthSignInInput = {
  clientApplicationType: ClientApplicationType;
  /** A device key from an earlier sign-in on this device; a new one is issued when absent or unknown. */
  deviceKey?: InputMaybe<Scalars['String']['input']>;
  /** A human name for the device, e.g. `Pixel 9` or `Firefox on Linux`. */
  deviceName?: InputMaybe<Scalars['String']['input']>;
  loginUsername: Scalars['String']['input'];
  password: Scalars['String']['input'];
};

export type AuthSignOutSessionInput = {
  /** A `sessionRef` from `User.sessions`. */
  sessionRef: Scalars['ID']['input'];
};

export type AuthSoftwareToken = {
  __typename?: 'AuthSoftwareToken';
  /** An `otpauth://totp/...` URI for QR codes. */
  otpauthUri: Scalars['String']['output'];
  /** Base32 TOTP secret. */
  secret: Scalars['String']['output'];
};

export type AuthSoftwareTokenResult = {
  __typename?: 'AuthSoftwareTokenResult';
  correlationId: Scalars['String']['output'];
  errors: Array<AuthError>;
  softwareToken: Maybe<AuthSoftwareToken>;
};

/** One of a user's signed-in sessions, as `User.sessions` lists it (assetql addition). */
export type AuthUserSession = {
  __typename?: 'AuthUserSession';
  clientApplicationType: ClientApplicationType;
  createdAt: Scalars['DateTime']['output'];
  /** True for the session that asks. */
  current: Scalars['Boolean']['output'];
  deviceKey: Maybe<Scalars['String']['output']>;
  deviceName: Maybe<Scalars['String']['output']>;
  /** The soft (idle) expiry, accurate to about a minute. */
  expiresAt: Scalars['DateTime']['output'];
  expiresAtHard: Scalars['DateTime']['output'];
  /** The client address at sign-in. */
  ipAddress: Maybe<Scalars['String']['output']>;
  lastAuthenticatedAt: Maybe<Scalars['DateTime']['output']>;
  /** The last request, accurate to about a minute. */
  lastSeenAt: Scalars['DateTime']['output'];
  /**
   * An opaque reference for signOutSession. It is not the session ID and cannot be presented as
   * one; it stays the same when the session's ID is rotated.
   */
  sessionRef: Scalars['ID']['output'];
  /** The group the session acts in. */
  userGroup: Maybe<Scalars['String']['output']>;
};

/**
 * The kind of client that signs in; it sets the session lifetimes (spec §5.5).
 * EXPLORER: the web explorer and browser apps, 7 days idle / 30 days max.
 * MOBILE_ANDROID, MOBILE_IOS: 60 days idle / 365 days max.
 * API_KEY: machine clients, 60 days idle / 365 days max.
 */
export type ClientApplicationType =
  | 'API_KEY'
  | 'EXPLORER'
  | 'MOBILE_ANDROID'
  | 'MOBILE_IOS';

export type Config = {
  __typename?: 'Config';
  auth: AuthConfig;
};

export type Device = {
  __typename?: 'Device';
  createdAt: Scalars['DateTime']['output'];
  /** The device's public key; it alone never skips MFA. */
  deviceKey: Scalars['ID']['output'];
  lastIpAddress: Maybe<Scalars['String']['output']>;
  lastSignedInAt: Maybe<Scalars['DateTime']['output']>;
  name: Maybe<Scalars['String']['output']>;
  /** True while a sign-in with the device's whole key skips MFA (docs/auth.md §7). */
  remembered: Scalars['Boolean']['output'];
};

/** The owner of an entity in another subgraph: a user acting in a group. */
export type EntityOwner = {
  __typename?: 'EntityOwner';
  group: Scalars['String']['output'];
  /** The user, when the caller may see them. */
  user: Maybe<User>;
  username: Scalars['String']['output'];
};

export type Mutation = {
  __typename?: 'Mutation';
  /** During an MFA_SETUP challenge: a new TOTP secret for an authenticator app (assetql addition). */
  associateSoftwareToken: AuthSoftwareTokenResult;
  /**
   * Changes the caller's password: needs the current one, issues this session a new ID and ends
   * the user's other sessions (API keys stay) (assetql addition).
   */
  changePassword: AuthSessionResult;
  confirmSignIn: AuthSessionResult;
  createAPIKey: AuthApiKeyResult;
  federatedSignIn: AuthSessionResult;
  forgetDevices: AuthSessionResult;
  forgotPassword: AuthForgotPasswordResult;
  forgotPasswordSubmit: AuthSessionResult;
  reauthenticate: AuthSessionResult;
  /** Revokes one of the caller's API keys at once (assetql addition). */
  revokeAPIKey: AuthApiKeyResult;
  setSessionUserGroup: AuthSessionResult;
  signIn: AuthSessionResult;
  signOut: AuthSessionResult;
  /**
   * Ends one of the caller's sessions, named by `User.sessions.sessionRef`; ending another session
   * than the caller's needs a password entered within 15 minutes (assetql addition).
   */
  signOutSession: AuthSessionResult;
};


export type MutationChangePasswordArgs = {
  input: AuthChangePasswordInput;
};


export type MutationConfirmSignInArgs = {
  input: AuthConfirmSignInInput;
};


export type MutationCreateApiKeyArgs = {
  input: AuthCreateApiKeyInput;
};


export type MutationFederatedSignInArgs = {
  input: AuthFederatedSignInInput;
};


export type MutationForgetDevicesArgs = {
  input: AuthForgetSpecificDevicesInput;
};


export type MutationForgotPasswordArgs = {
  input: AuthForgotPasswordInput;
};


export type MutationForgotPasswordSubmitArgs = {
  input: AuthForgotPasswordSubmitInput;
};


export type MutationReauthenticateArgs = {
  input: ReauthenticationInput;
};


export type MutationRevokeApiKeyArgs = {
  input: AuthRevokeApiKeyInput;
};


export type MutationSetSessionUserGroupArgs = {
  input: AuthSetSessionUserGroupInput;
};


export type MutationSignInArgs = {
  input: AuthSignInInput;
};


export type MutationSignOutSessionArgs = {
  input: AuthSignOutSessionInput;
};

export type Query = {
  __typename?: 'Query';
  /** Public configuration (spec §5.6); answers anonymous callers too. */
  config: Config;
  /** Temporary storage credentials scoped to `group` (default: the session's group) (spec §5.6). */
  credentials: Maybe<AuthCredentials>;
  /** The caller's session; an anonymous caller gets `authenticated: false` and nulls (spec §5.2). */
  session: Maybe<Session>;
  /** A user; callers may read only themselves. `id` is the login username. */
  user: Maybe<User>;
};


export type QueryCredentialsArgs = {
  group?: InputMaybe<Scalars['String']['input']>;
};


export type QueryUserArgs = {
  id: Scalars['ID']['input'];
};

export type ReauthenticationInput = {
  password: Scalars['String']['input'];
};

export type Session = {
  __typename?: 'Session';
  authenticated: Maybe<Scalars['Boolean']['output']>;
  challengeName: Maybe<AuthChallengeName>;
  /** Details of the pending challenge, e.g. `{ destination: "+1******89" }` for SMS_MFA. */
  challengeParam: Maybe<Scalars['JSONObject']['output']>;
  clientApplicationType: Maybe<ClientApplicationType>;
  /**
   * The device this session signed in on; send it as `deviceKey` at the next sign-in. In the answer
   * of a sign-in that remembered the device (or signed in with it remembered), the whole key
   * `<key>.<secret>`, shown there only; elsewhere the public key.
   */
  deviceKey: Maybe<Scalars['String']['output']>;
  /** The soft (idle) expiry; it moves forward with activity, never past `expiresAtHard`. */
  expiresAt: Maybe<Scalars['DateTime']['output']>;
  /** The hard expiry: the session ends then whatever the activity. */
  expiresAtHard: Maybe<Scalars['DateTime']['output']>;
  lastAuthenticatedAt: Maybe<Scalars['DateTime']['output']>;
  /** The tenant group the session acts in. */
  userGroup: Maybe<Scalars['String']['output']>;
  /** Every group the user may switch to with setSessionUserGroup. */
  userGroups: Maybe<Array<Scalars['String']['output']>>;
  username: Maybe<Scalars['String']['output']>;
};

export type User = {
  __typename?: 'User';
  /** The user's API keys, without their session IDs (assetql addition). */
  apiKeys: Array<AuthApiKey>;
  devices: Array<Device>;
  email: Maybe<Scalars['String']['output']>;
  groups: Array<Scalars['String']['output']>;
  /** The login username. */
  id: Scalars['ID']['output'];
  phone: Maybe<Scalars['String']['output']>;
  /** The user's signed-in sessions, newest first; not API keys or pending challenges (assetql addition). */
  sessions: Array<AuthUserSession>;
  username: Scalars['String']['output'];
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
  EntityOwner: EntityOwner;
  User: User;
}>;

/** Mapping of federation reference types */
export type FederationReferenceTypes = ResolversObject<{
  EntityOwner:
    ( { __typename: 'EntityOwner' }
    & GraphQLRecursivePick<FederationTypes['EntityOwner'], {"username":true,"group":true}> );
  User:
    ( { __typename: 'User' }
    & GraphQLRecursivePick<FederationTypes['User'], {"id":true}> );
}>;



/** Mapping between all available schema types and the resolvers types */
export type ResolversTypes = ResolversObject<{
  AuthAPIKey: ResolverTypeWrapper<AuthApiKey>;
  ID: ResolverTypeWrapper<Scalars['ID']['output']>;
  String: ResolverTypeWrapper<Scalars['String']['output']>;
  Boolean: ResolverTypeWrapper<Scalars['Boolean']['output']>;
  AuthAPIKeyResult: ResolverTypeWrapper<AuthApiKeyResult>;
  AuthChallengeName: AuthChallengeName;
  AuthChangePasswordInput: AuthChangePasswordInput;
  AuthConfig: ResolverTypeWrapper<AuthConfig>;
  AuthConfirmSignInInput: AuthConfirmSignInInput;
  AuthCreateAPIKeyInput: AuthCreateApiKeyInput;
  AuthCredentials: ResolverTypeWrapper<AuthCredentials>;
  AuthError: ResolverTypeWrapper<AuthError>;
  AuthErrorType: AuthErrorType;
  AuthFederatedSignInInput: AuthFederatedSignInInput;
  AuthForgetSpecificDevicesInput: AuthForgetSpecificDevicesInput;
  AuthForgotPasswordInput: AuthForgotPasswordInput;
  AuthForgotPasswordResult: ResolverTypeWrapper<AuthForgotPasswordResult>;
  AuthForgotPasswordSubmitInput: AuthForgotPasswordSubmitInput;
  AuthRevokeAPIKeyInput: AuthRevokeApiKeyInput;
  AuthSessionResult: ResolverTypeWrapper<AuthSessionResult>;
  AuthSetSessionUserGroupInput: AuthSetSessionUserGroupInput;
  AuthSignInInput: AuthSignInInput;
  AuthSignOutSessionInput: AuthSignOutSessionInput;
  AuthSoftwareToken: ResolverTypeWrapper<AuthSoftwareToken>;
  AuthSoftwareTokenResult: ResolverTypeWrapper<AuthSoftwareTokenResult>;
  AuthUserSession: ResolverTypeWrapper<AuthUserSession>;
  ClientApplicationType: ClientApplicationType;
  Config: ResolverTypeWrapper<Config>;
  DateTime: ResolverTypeWrapper<Scalars['DateTime']['output']>;
  Device: ResolverTypeWrapper<Device>;
  EntityOwner: ResolverTypeWrapper<{ username: string; group: string }>;
  JSONObject: ResolverTypeWrapper<Scalars['JSONObject']['output']>;
  Mutation: ResolverTypeWrapper<Record<PropertyKey, never>>;
  Query: ResolverTypeWrapper<Record<PropertyKey, never>>;
  ReauthenticationInput: ReauthenticationInput;
  Session: ResolverTypeWrapper<Session>;
  User: ResolverTypeWrapper<{ id: string; username: string }>;
}>;

/** Mapping between all available schema types and the resolvers parents */
export type ResolversParentTypes = ResolversObject<{
  AuthAPIKey: AuthApiKey;
  ID: Scalars['ID']['output'];
  String: Scalars['String']['output'];
  Boolean: Scalars['Boolean']['output'];
  AuthAPIKeyResult: AuthApiKeyResult;
  AuthChangePasswordInput: AuthChangePasswordInput;
  AuthConfig: AuthConfig;
  AuthConfirmSignInInput: AuthConfirmSignInInput;
  AuthCreateAPIKeyInput: AuthCreateApiKeyInput;
  AuthCredentials: AuthCredentials;
  AuthError: AuthError;
  AuthFederatedSignInInput: AuthFederatedSignInInput;
  AuthForgetSpecificDevicesInput: AuthForgetSpecificDevicesInput;
  AuthForgotPasswordInput: AuthForgotPasswordInput;
  AuthForgotPasswordResult: AuthForgotPasswordResult;
  AuthForgotPasswordSubmitInput: AuthForgotPasswordSubmitInput;
  AuthRevokeAPIKeyInput: AuthRevokeApiKeyInput;
  AuthSessionResult: AuthSessionResult;
  AuthSetSessionUserGroupInput: AuthSetSessionUserGroupInput;
  AuthSignInInput: AuthSignInInput;
  AuthSignOutSessionInput: AuthSignOutSessionInput;
  AuthSoftwareToken: AuthSoftwareToken;
  AuthSoftwareTokenResult: AuthSoftwareTokenResult;
  AuthUserSession: AuthUserSession;
  Config: Config;
  DateTime: Scalars['DateTime']['output'];
  Device: Device;
  EntityOwner: { username: string; group: string };
  JSONObject: Scalars['JSONObject']['output'];
  Mutation: Record<PropertyKey, never>;
  Query: Record<PropertyKey, never>;
  ReauthenticationInput: ReauthenticationInput;
  Session: Session;
  User: { id: string; username: string };
}>;

export type AuthApiKeyResolvers<ContextType = AuthContext, ParentType extends ResolversParentTypes['AuthAPIKey'] = ResolversParentTypes['AuthAPIKey']> = ResolversObject<{
  apiKeyId?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  apiKeySessionId?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  authenticated?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  createdAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  expiresAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  expiresAtHard?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  lastUsedAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  userGroup?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  username?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
}>;

export type AuthApiKeyResultResolvers<ContextType = AuthContext, ParentType extends ResolversParentTypes['AuthAPIKeyResult'] = ResolversParentTypes['AuthAPIKeyResult']> = ResolversObject<{
  apiKey?: Resolver<Maybe<ResolversTypes['AuthAPIKey']>, ParentType, ContextType>;
  correlationId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  errors?: Resolver<Array<ResolversTypes['AuthError']>, ParentType, ContextType>;
}>;

export type AuthConfigResolvers<ContextType = AuthContext, ParentType extends ResolversParentTypes['AuthConfig'] = ResolversParentTypes['AuthConfig']> = ResolversObject<{
  loginEnabled?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  ssoEnabled?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  ssoUrl?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
}>;

export type AuthCredentialsResolvers<ContextType = AuthContext, ParentType extends ResolversParentTypes['AuthCredentials'] = ResolversParentTypes['AuthCredentials']> = ResolversObject<{
  accessKeyId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  expiration?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  secretAccessKey?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  sessionToken?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
}>;

export type AuthErrorResolvers<ContextType = AuthContext, ParentType extends ResolversParentTypes['AuthError'] = ResolversParentTypes['AuthError']> = ResolversObject<{
  message?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  type?: Resolver<ResolversTypes['AuthErrorType'], ParentType, ContextType>;
}>;

export type AuthForgotPasswordResultResolvers<ContextType = AuthContext, ParentType extends ResolversParentTypes['AuthForgotPasswordResult'] = ResolversParentTypes['AuthForgotPasswordResult']> = ResolversObject<{
  correlationId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  errors?: Resolver<Array<ResolversTypes['AuthError']>, ParentType, ContextType>;
}>;

export type AuthSessionResultResolvers<ContextType = AuthContext, ParentType extends ResolversParentTypes['AuthSessionResult'] = ResolversParentTypes['AuthSessionResult']> = ResolversObject<{
  correlationId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  errors?: Resolver<Array<ResolversTypes['AuthError']>, ParentType, ContextType>;
  session?: Resolver<Maybe<ResolversTypes['Session']>, ParentType, ContextType>;
}>;

export type AuthSoftwareTokenResolvers<ContextType = AuthContext, ParentType extends ResolversParentTypes['AuthSoftwareToken'] = ResolversParentTypes['AuthSoftwareToken']> = ResolversObject<{
  otpauthUri?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  secret?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
}>;

export type AuthSoftwareTokenResultResolvers<ContextType = AuthContext, ParentType extends ResolversParentTypes['AuthSoftwareTokenResult'] = ResolversParentTypes['AuthSoftwareTokenResult']> = ResolversObject<{
  correlationId?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  errors?: Resolver<Array<ResolversTypes['AuthError']>, ParentType, ContextType>;
  softwareToken?: Resolver<Maybe<ResolversTypes['AuthSoftwareToken']>, ParentType, ContextType>;
}>;

export type AuthUserSessionResolvers<ContextType = AuthContext, ParentType extends ResolversParentTypes['AuthUserSession'] = ResolversParentTypes['AuthUserSession']> = ResolversObject<{
  clientApplicationType?: Resolver<ResolversTypes['ClientApplicationType'], ParentType, ContextType>;
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  current?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
  deviceKey?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  deviceName?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  expiresAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  expiresAtHard?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  ipAddress?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  lastAuthenticatedAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  lastSeenAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  sessionRef?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  userGroup?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
}>;

export type ConfigResolvers<ContextType = AuthContext, ParentType extends ResolversParentTypes['Config'] = ResolversParentTypes['Config']> = ResolversObject<{
  auth?: Resolver<ResolversTypes['AuthConfig'], ParentType, ContextType>;
}>;

export interface DateTimeScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['DateTime'], any> {
  name: 'DateTime';
}

export type DeviceResolvers<ContextType = AuthContext, ParentType extends ResolversParentTypes['Device'] = ResolversParentTypes['Device']> = ResolversObject<{
  createdAt?: Resolver<ResolversTypes['DateTime'], ParentType, ContextType>;
  deviceKey?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  lastIpAddress?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  lastSignedInAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  name?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  remembered?: Resolver<ResolversTypes['Boolean'], ParentType, ContextType>;
}>;

export type EntityOwnerResolvers<ContextType = AuthContext, ParentType extends ResolversParentTypes['EntityOwner'] = ResolversParentTypes['EntityOwner'], FederationReferenceType extends FederationReferenceTypes['EntityOwner'] = FederationReferenceTypes['EntityOwner']> = ResolversObject<{
  __resolveReference?: ReferenceResolver<Maybe<ResolversTypes['EntityOwner']> | FederationReferenceType, FederationReferenceType, ContextType>;
  group?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
  user?: Resolver<Maybe<ResolversTypes['User']>, ParentType, ContextType>;
  username?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
}>;

export interface JsonObjectScalarConfig extends GraphQLScalarTypeConfig<ResolversTypes['JSONObject'], any> {
  name: 'JSONObject';
}

export type MutationResolvers<ContextType = AuthContext, ParentType extends ResolversParentTypes['Mutation'] = ResolversParentTypes['Mutation']> = ResolversObject<{
  associateSoftwareToken?: Resolver<ResolversTypes['AuthSoftwareTokenResult'], ParentType, ContextType>;
  changePassword?: Resolver<ResolversTypes['AuthSessionResult'], ParentType, ContextType, RequireFields<MutationChangePasswordArgs, 'input'>>;
  confirmSignIn?: Resolver<ResolversTypes['AuthSessionResult'], ParentType, ContextType, RequireFields<MutationConfirmSignInArgs, 'input'>>;
  createAPIKey?: Resolver<ResolversTypes['AuthAPIKeyResult'], ParentType, ContextType, RequireFields<MutationCreateApiKeyArgs, 'input'>>;
  federatedSignIn?: Resolver<ResolversTypes['AuthSessionResult'], ParentType, ContextType, RequireFields<MutationFederatedSignInArgs, 'input'>>;
  forgetDevices?: Resolver<ResolversTypes['AuthSessionResult'], ParentType, ContextType, RequireFields<MutationForgetDevicesArgs, 'input'>>;
  forgotPassword?: Resolver<ResolversTypes['AuthForgotPasswordResult'], ParentType, ContextType, RequireFields<MutationForgotPasswordArgs, 'input'>>;
  forgotPasswordSubmit?: Resolver<ResolversTypes['AuthSessionResult'], ParentType, ContextType, RequireFields<MutationForgotPasswordSubmitArgs, 'input'>>;
  reauthenticate?: Resolver<ResolversTypes['AuthSessionResult'], ParentType, ContextType, RequireFields<MutationReauthenticateArgs, 'input'>>;
  revokeAPIKey?: Resolver<ResolversTypes['AuthAPIKeyResult'], ParentType, ContextType, RequireFields<MutationRevokeApiKeyArgs, 'input'>>;
  setSessionUserGroup?: Resolver<ResolversTypes['AuthSessionResult'], ParentType, ContextType, RequireFields<MutationSetSessionUserGroupArgs, 'input'>>;
  signIn?: Resolver<ResolversTypes['AuthSessionResult'], ParentType, ContextType, RequireFields<MutationSignInArgs, 'input'>>;
  signOut?: Resolver<ResolversTypes['AuthSessionResult'], ParentType, ContextType>;
  signOutSession?: Resolver<ResolversTypes['AuthSessionResult'], ParentType, ContextType, RequireFields<MutationSignOutSessionArgs, 'input'>>;
}>;

export type QueryResolvers<ContextType = AuthContext, ParentType extends ResolversParentTypes['Query'] = ResolversParentTypes['Query']> = ResolversObject<{
  config?: Resolver<ResolversTypes['Config'], ParentType, ContextType>;
  credentials?: Resolver<Maybe<ResolversTypes['AuthCredentials']>, ParentType, ContextType, Partial<QueryCredentialsArgs>>;
  session?: Resolver<Maybe<ResolversTypes['Session']>, ParentType, ContextType>;
  user?: Resolver<Maybe<ResolversTypes['User']>, ParentType, ContextType, RequireFields<QueryUserArgs, 'id'>>;
}>;

export type SessionResolvers<ContextType = AuthContext, ParentType extends ResolversParentTypes['Session'] = ResolversParentTypes['Session']> = ResolversObject<{
  authenticated?: Resolver<Maybe<ResolversTypes['Boolean']>, ParentType, ContextType>;
  challengeName?: Resolver<Maybe<ResolversTypes['AuthChallengeName']>, ParentType, ContextType>;
  challengeParam?: Resolver<Maybe<ResolversTypes['JSONObject']>, ParentType, ContextType>;
  clientApplicationType?: Resolver<Maybe<ResolversTypes['ClientApplicationType']>, ParentType, ContextType>;
  deviceKey?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  expiresAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  expiresAtHard?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  lastAuthenticatedAt?: Resolver<Maybe<ResolversTypes['DateTime']>, ParentType, ContextType>;
  userGroup?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  userGroups?: Resolver<Maybe<Array<ResolversTypes['String']>>, ParentType, ContextType>;
  username?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
}>;

export type UserResolvers<ContextType = AuthContext, ParentType extends ResolversParentTypes['User'] = ResolversParentTypes['User'], FederationReferenceType extends FederationReferenceTypes['User'] = FederationReferenceTypes['User']> = ResolversObject<{
  __resolveReference?: ReferenceResolver<Maybe<ResolversTypes['User']> | FederationReferenceType, FederationReferenceType, ContextType>;
  apiKeys?: Resolver<Array<ResolversTypes['AuthAPIKey']>, ParentType, ContextType>;
  devices?: Resolver<Array<ResolversTypes['Device']>, ParentType, ContextType>;
  email?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  groups?: Resolver<Array<ResolversTypes['String']>, ParentType, ContextType>;
  id?: Resolver<ResolversTypes['ID'], ParentType, ContextType>;
  phone?: Resolver<Maybe<ResolversTypes['String']>, ParentType, ContextType>;
  sessions?: Resolver<Array<ResolversTypes['AuthUserSession']>, ParentType, ContextType>;
  username?: Resolver<ResolversTypes['String'], ParentType, ContextType>;
}>;

export type Resolvers<ContextType = AuthContext> = ResolversObject<{
  AuthAPIKey?: AuthApiKeyResolvers<ContextType>;
  AuthAPIKeyResult?: AuthApiKeyResultResolvers<ContextType>;
  AuthConfig?: AuthConfigResolvers<ContextType>;
  AuthCredentials?: AuthCredentialsResolvers<ContextType>;
  AuthError?: AuthErrorResolvers<ContextType>;
  AuthForgotPasswordResult?: AuthForgotPasswordResultResolvers<ContextType>;
  AuthSessionResult?: AuthSessionResultResolvers<ContextType>;
  AuthSoftwareToken?: AuthSoftwareTokenResolvers<ContextType>;
  AuthSoftwareTokenResult?: AuthSoftwareTokenResultResolvers<ContextType>;
  AuthUserSession?: AuthUserSessionResolvers<ContextType>;
  Config?: ConfigResolvers<ContextType>;
  DateTime?: GraphQLScalarType;
  Device?: DeviceResolvers<ContextType>;
  EntityOwner?: EntityOwnerResolvers<ContextType>;
  JSONObject?: GraphQLScalarType;
  Mutation?: MutationResolvers<ContextType>;
  Query?: QueryResolvers<ContextType>;
  Session?: SessionResolvers<ContextType>;
  User?: UserResolvers<ContextType>;
}>;


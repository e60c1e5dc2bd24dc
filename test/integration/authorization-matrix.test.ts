import {
  buildClientSchema,
  GraphQLEnumType,
  type GraphQLField,
  GraphQLInputObjectType,
  type GraphQLInputType,
  GraphQLList,
  GraphQLNonNull,
  type GraphQLObjectType,
  GraphQLScalarType,
  type GraphQLSchema,
  getIntrospectionQuery,
  getNamedType,
  type IntrospectionQuery,
  isLeafType,
  isObjectType,
} from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lifetimeOf } from '../../src/shared/session-policy.ts';
import { openApiKey } from '../../src/subgraphs/auth/api-keys.ts';
import { openSession } from '../../src/subgraphs/auth/sessions.ts';
import { disableUser } from '../../src/subgraphs/auth/users.ts';
import { BASE, type DemoApp, ensureMember, startDemoApp } from '../helpers/app.ts';
import { SseReader } from '../helpers/sse.ts';

// Every Query, Mutation and Subscription root field of the composed schema, called by every kind of caller
// that must not reach the demo tenant's data. EXPECTED must name every root field: a field added
// to any subgraph without a rule here fails the first test.

const CALLERS = ['anonymous', 'otherTenant', 'apiKey', 'expired', 'disabled'] as const;
type Caller = (typeof CALLERS)[number];

/**
 * What a caller gets from one root field:
 * - `code:X`: a top-level error with `extensions.code` X and the field null;
 * - `error:X`: a mutation result whose `errors[0].type` is X, payload null;
 * - `signedOut`: an object with `authenticated: false`;
 * - `null`, `empty` (an empty list or connection), `ok` (data, no error).
 */
type Outcome = `code:${string}` | `error:${string}` | 'signedOut' | 'null' | 'empty' | 'ok';

/** Expired sessions and disabled users are anonymous: no data, no session. */
const asAnonymous = (anonymous: Outcome, others: Partial<Record<Caller, Outcome>> = {}) =>
  ({ anonymous, expired: anonymous, disabled: anonymous, ...others }) as Record<Caller, Outcome>;

const EXPECTED: Record<string, Record<Caller, Outcome>> = {
  // Query
  'Query.assetProfiles': asAnonymous('code:UNAUTHENTICATED', { otherTenant: 'empty', apiKey: 'ok' }),
  'Query.assets': asAnonymous('code:UNAUTHENTICATED', { otherTenant: 'null', apiKey: 'ok' }),
  'Query.assetFilters': asAnonymous('code:UNAUTHENTICATED', { otherTenant: 'empty', apiKey: 'ok' }),
  'Query.assetFilter': asAnonymous('code:UNAUTHENTICATED', { otherTenant: 'null', apiKey: 'ok' }),
  // The demo tenant has a download (made for deleteAssetDownload below); only its own caller sees it.
  'Query.assetFilterDownloads': asAnonymous('code:UNAUTHENTICATED', {
    otherTenant: 'empty',
    apiKey: 'ok',
  }),
  'Query.session': asAnonymous('signedOut', { otherTenant: 'ok', apiKey: 'ok' }),
  'Query.credentials': asAnonymous('code:UNAUTHENTICATED', {
    otherTenant: 'code:FORBIDDEN',
    apiKey: 'code:CREDENTIALS_UNAVAILABLE',
  }),
  'Query.user': asAnonymous('code:UNAUTHENTICATED', { otherTenant: 'null', apiKey: 'ok' }),
  'Query.config': asAnonymous('ok', { otherTenant: 'ok', apiKey: 'ok' }),
  'Query.issues': asAnonymous('code:UNAUTHENTICATED', { otherTenant: 'empty', apiKey: 'ok' }),
  'Query.changes': asAnonymous('code:UNAUTHENTICATED', { otherTenant: 'empty', apiKey: 'ok' }),
  // Aimed at a change of the demo tenant: another tenant's caller finds nothing at its cursor.
  'Query.change': asAnonymous('code:UNAUTHENTICATED', { otherTenant: 'null', apiKey: 'ok' }),
  'Query.webhooks': asAnonymous('code:UNAUTHENTICATED', { otherTenant: 'empty', apiKey: 'ok' }),
  // A stream's outcome is its first event after the demo tenant writes (subscriptionAnswer).
  'Subscription.changes': asAnonymous('code:UNAUTHENTICATED', { otherTenant: 'empty', apiKey: 'ok' }),
  // Mutations of the assets subgraph: never a write without a signed-in caller, never one into
  // another group (the demo profile 'well' does not exist for the other tenant).
  'Mutation.updateAssetProfile': asAnonymous('error:UNAUTHENTICATED', {
    otherTenant: 'error:NOT_FOUND',
    apiKey: 'ok',
  }),
  'Mutation.putAssetProfileExtension': asAnonymous('error:UNAUTHENTICATED', {
    otherTenant: 'error:NOT_FOUND',
    apiKey: 'ok',
  }),
  'Mutation.removeAssetProfileExtension': asAnonymous('error:UNAUTHENTICATED', {
    otherTenant: 'error:NOT_FOUND',
    apiKey: 'error:NOT_FOUND',
  }),
  'Mutation.updateAssetProfileViewConfiguration': asAnonymous('error:UNAUTHENTICATED', {
    otherTenant: 'error:NOT_FOUND',
    apiKey: 'ok',
  }),
  'Mutation.updateAssetProfileViewLayout': asAnonymous('error:UNAUTHENTICATED', {
    otherTenant: 'error:NOT_FOUND',
    apiKey: 'ok',
  }),
  'Mutation.updateAssetProfileAssetConversionConfiguration': asAnonymous('error:UNAUTHENTICATED', {
    otherTenant: 'error:NOT_FOUND',
    apiKey: 'error:INVALID_INPUT',
  }),
  'Mutation.createAssetFilter': asAnonymous('error:UNAUTHENTICATED', {
    otherTenant: 'error:NOT_FOUND',
    apiKey: 'ok',
  }),
  'Mutation.updateAssetFilter': asAnonymous('error:UNAUTHENTICATED', {
    otherTenant: 'error:NOT_FOUND',
    apiKey: 'ok',
  }),
  'Mutation.upsertAssets': asAnonymous('error:UNAUTHENTICATED', {
    otherTenant: 'error:NOT_FOUND',
    apiKey: 'ok',
  }),
  'Mutation.deleteAssets': asAnonymous('error:UNAUTHENTICATED', {
    otherTenant: 'error:NOT_FOUND',
    apiKey: 'ok',
  }),
  'Mutation.recordObservations': asAnonymous('error:UNAUTHENTICATED', {
    otherTenant: 'error:NOT_FOUND',
    apiKey: 'ok',
  }),
  'Mutation.convertAssets': asAnonymous('error:UNAUTHENTICATED', {
    otherTenant: 'error:NOT_FOUND',
    apiKey: 'error:NOT_FOUND',
  }),
  'Mutation.createAssetFilterDownload': asAnonymous('error:UNAUTHENTICATED', {
    otherTenant: 'error:NOT_FOUND',
    apiKey: 'ok',
  }),
  // Aimed at a download of the demo tenant: another tenant does not find it; the API key (of the
  // demo group, called after it) deletes it.
  'Mutation.deleteAssetDownload': asAnonymous('error:UNAUTHENTICATED', {
    otherTenant: 'error:NOT_FOUND',
    apiKey: 'ok',
  }),
  // Webhooks: a group's own (the demo group has one, made below; another tenant makes its own).
  'Mutation.createWebhook': asAnonymous('error:UNAUTHENTICATED', { otherTenant: 'ok', apiKey: 'ok' }),
  'Mutation.updateWebhook': asAnonymous('error:UNAUTHENTICATED', {
    otherTenant: 'error:NOT_FOUND',
    apiKey: 'ok',
  }),
  'Mutation.deleteWebhook': asAnonymous('error:UNAUTHENTICATED', {
    otherTenant: 'error:NOT_FOUND',
    apiKey: 'ok',
  }),
  'Mutation.redeliverWebhook': asAnonymous('error:UNAUTHENTICATED', {
    otherTenant: 'error:NOT_FOUND',
    apiKey: 'error:NOT_FOUND',
  }),
  // Mutations of the auth subgraph. Sign-in and password reset are open by nature (and give
  // nothing for wrong credentials); the others need a signed-in session, and an API key is not one.
  'Mutation.signIn': asAnonymous('error:NOT_AUTHORIZED', {
    otherTenant: 'error:NOT_AUTHORIZED',
    apiKey: 'error:NOT_AUTHORIZED',
  }),
  'Mutation.confirmSignIn': asAnonymous('error:NO_PENDING_CHALLENGE', {
    otherTenant: 'error:NO_PENDING_CHALLENGE',
    apiKey: 'error:NO_PENDING_CHALLENGE',
  }),
  'Mutation.signOut': asAnonymous('signedOut', { otherTenant: 'signedOut', apiKey: 'signedOut' }),
  'Mutation.federatedSignIn': asAnonymous('error:LOGIN_DISABLED', {
    otherTenant: 'error:LOGIN_DISABLED',
    apiKey: 'error:LOGIN_DISABLED',
  }),
  'Mutation.createAPIKey': asAnonymous('error:UNAUTHENTICATED', {
    otherTenant: 'error:GROUP_ACCESS_DENIED',
    apiKey: 'error:UNAUTHENTICATED',
  }),
  'Mutation.setSessionUserGroup': asAnonymous('error:UNAUTHENTICATED', {
    otherTenant: 'error:GROUP_ACCESS_DENIED',
    apiKey: 'error:UNAUTHENTICATED',
  }),
  'Mutation.reauthenticate': asAnonymous('error:UNAUTHENTICATED', {
    otherTenant: 'error:NOT_AUTHORIZED',
    apiKey: 'error:UNAUTHENTICATED',
  }),
  'Mutation.forgetDevices': asAnonymous('error:UNAUTHENTICATED', {
    otherTenant: 'error:INVALID_INPUT',
    apiKey: 'error:UNAUTHENTICATED',
  }),
  'Mutation.forgotPassword': asAnonymous('ok', { otherTenant: 'ok', apiKey: 'ok' }),
  'Mutation.forgotPasswordSubmit': asAnonymous('error:CODE_MISMATCH', {
    otherTenant: 'error:CODE_MISMATCH',
    apiKey: 'error:CODE_MISMATCH',
  }),
  'Mutation.revokeAPIKey': asAnonymous('error:UNAUTHENTICATED', {
    otherTenant: 'error:NOT_FOUND',
    apiKey: 'error:UNAUTHENTICATED',
  }),
  'Mutation.associateSoftwareToken': asAnonymous('error:NO_PENDING_CHALLENGE', {
    otherTenant: 'error:NO_PENDING_CHALLENGE',
    apiKey: 'error:NO_PENDING_CHALLENGE',
  }),
  // Another tenant's user has no password here; an API key may not change its user's password.
  'Mutation.changePassword': asAnonymous('error:UNAUTHENTICATED', {
    otherTenant: 'error:NOT_AUTHORIZED',
    apiKey: 'error:UNAUTHENTICATED',
  }),
  // A reference that is not one of the caller's sessions ends nothing.
  'Mutation.signOutSession': asAnonymous('error:UNAUTHENTICATED', {
    otherTenant: 'error:NOT_FOUND',
    apiKey: 'error:UNAUTHENTICATED',
  }),
  // Mutations of the issues subgraph.
  'Mutation.createIssue': asAnonymous('error:UNAUTHENTICATED', { otherTenant: 'ok', apiKey: 'ok' }),
};

/** Plausible values for arguments by name: the demo tenant's objects, wrong secrets. */
const VALUES: Record<string, unknown> = {
  profile: 'well',
  id: 'W-100-1-1',
  ids: ['W-100-1-1'],
  viewConfiguration: 'matrix-view',
  conversion: 'matrix-conversion',
  targetProfile: 'facility',
  loginUsername: 'demo',
  password: 'not-the-password',
  currentPassword: 'not-the-password',
  newPassword: 'a passphrase of the matrix',
  // Well formed, and no session's.
  sessionRef: '00000000-0000-4000-8000-000000000000',
  code: '000000',
  confirmationCode: '000000',
  cognitoIdToken: 'not-a-jwt',
  apiKeyId: 'matrix-key',
  userGroup: 'demo',
  group: 'demo',
  extension: 'matrix-extension',
  displayName: 'Matrix',
  filterId: 'matrix-filter',
  name: 'Matrix',
};

/** Ids the field takes by field, where the generic name would point at the wrong kind of object. */
const ARGUMENT_OVERRIDES: Record<string, Record<string, unknown>> = {
  'Query.assetFilter': { id: 'matrix-filter' },
  'Query.user': { id: 'demo' },
  // Another tenant asks for the demo group's credentials; an API key, for its own group's.
  'Query.credentials': { group: 'demo' },
  'Mutation.updateAssetProfile': { input: { profile: 'well', title: 'Wells' } },
  'Mutation.removeAssetProfileExtension': { input: { profile: 'well', extension: 'matrix-absent' } },
  'Mutation.updateAssetFilter': { input: { id: 'matrix-filter', displayName: 'Matrix renamed' } },
  'Mutation.updateAssetProfileViewConfiguration': {
    input: { profile: 'well', id: 'matrix-view', name: 'Matrix' },
  },
  'Mutation.updateAssetProfileViewLayout': {
    input: { profile: 'well', viewConfiguration: 'matrix-view', mediaType: 'WEB', widgets: [] },
  },
  'Mutation.createAssetFilter': {
    input: { id: 'matrix-new', displayName: 'Matrix', profile: 'well', subProfiles: [] },
  },
  'Mutation.createAssetFilterDownload': { input: { filterId: 'matrix-filter', name: 'matrix' } },
  'Mutation.upsertAssets': {
    input: { profile: 'well', assets: [{ id: 'W-MATRIX', properties: { name: 'Matrix' } }] },
  },
  'Mutation.deleteAssets': { input: { profile: 'well', ids: ['W-MATRIX'] } },
  'Mutation.recordObservations': {
    input: {
      profile: 'well',
      dataset: 'scada',
      observations: [{ id: 'W-100-1-1', at: '2026-11-21T00:00:00Z', values: { matrix: 1 } }],
    },
  },
  'Mutation.forgetDevices': { input: { deviceKeys: [] } },
};

// ------------------------------------------------------------------------------------------

let d: DemoApp;
let schema: GraphQLSchema;
/** The demo tenant's identifiers, which must never reach a caller of another tenant. */
let demoSecrets: string[];

const BASE_TIME = () => d.app.clock.now();

async function sessionRow(
  username: string,
  group: string,
  kind: 'session' | 'api_key',
  expired = false,
): Promise<string> {
  const now = BASE_TIME();
  const db = d.app.database.db;
  if (kind === 'api_key') {
    return openApiKey(db, now, { username, apiKeyId: `matrix-${crypto.randomUUID().slice(0, 12)}`, group });
  }
  // An expired session is one opened so long ago that its idle expiry has just passed.
  const openedAt = expired ? new Date(now.getTime() - lifetimeOf('EXPLORER').idleMs - 1000) : now;
  return (await openSession(db, openedAt, { kind: 'session', username, group, clientType: 'EXPLORER' })).id;
}

/** A fresh caller of each kind for each cell, so that one cell's signOut cannot change another. */
async function headersFor(caller: Caller): Promise<Record<string, string>> {
  switch (caller) {
    case 'anonymous':
      return {};
    case 'otherTenant':
      return { 'x-svc-sessionid': await sessionRow('mallory', 'other-tenant', 'session') };
    case 'apiKey':
      return { 'x-svc-sessionid': await sessionRow('demo', 'demo', 'api_key') };
    case 'expired':
      return { 'x-svc-sessionid': await sessionRow('demo', 'demo', 'session', true) };
    case 'disabled':
      return { 'x-svc-sessionid': await sessionRow('dora', 'demo', 'session') };
  }
}

function plausible(type: GraphQLInputType, name: string): unknown {
  if (type instanceof GraphQLNonNull) return plausible(type.ofType, name);
  if (name in VALUES) return VALUES[name];
  if (type instanceof GraphQLList) return [];
  if (type instanceof GraphQLEnumType) return type.getValues()[0]!.value;
  if (type instanceof GraphQLInputObjectType) {
    const out: Record<string, unknown> = {};
    for (const f of Object.values(type.getFields())) {
      if (f.type instanceof GraphQLNonNull && f.defaultValue === undefined)
        out[f.name] = plausible(f.type, f.name);
    }
    return out;
  }
  if (type instanceof GraphQLScalarType) {
    switch (type.name) {
      case 'Int':
        return 1;
      case 'Float':
        return 1;
      case 'Boolean':
        return false;
      case 'DateTime':
        return BASE_TIME().toISOString();
      case 'JSONObject':
      case 'JSON':
        return {};
      default:
        return 'matrix';
    }
  }
  return null;
}

/** Leaf fields without required arguments, and object fields to `depth` levels; `__typename` else. */
function selection(type: GraphQLObjectType, depth: number): string {
  const parts: string[] = [];
  for (const f of Object.values(type.getFields())) {
    if (f.args.some((a) => a.type instanceof GraphQLNonNull && a.defaultValue === undefined)) continue;
    // A request counts at most 10 listings (total-count.test.ts): a list of saved filters would
    // exceed it whoever asks, which says nothing of who may.
    if (f.name === 'totalCount' || f.name === 'totalCountIsExact') continue;
    const named = getNamedType(f.type);
    if (isLeafType(named)) parts.push(f.name);
    else if (depth > 0 && isObjectType(named)) parts.push(`${f.name} { ${selection(named, depth - 1)} }`);
  }
  return parts.length ? parts.join(' ') : '__typename';
}

function operation(kind: Kind, field: GraphQLField<unknown, unknown>, key: string) {
  const args = {
    ...Object.fromEntries(
      field.args
        .filter((a) => a.type instanceof GraphQLNonNull && a.defaultValue === undefined)
        .map((a) => [a.name, plausible(a.type, a.name)]),
    ),
    ...ARGUMENT_OVERRIDES[key],
  };
  const definitions = field.args
    .filter((a) => a.name in args)
    .map((a) => `$${a.name}: ${a.type.toString()}`)
    .join(', ');
  const passed = field.args
    .filter((a) => a.name in args)
    .map((a) => `${a.name}: $${a.name}`)
    .join(', ');
  const named = getNamedType(field.type);
  const select = isLeafType(named)
    ? ''
    : isObjectType(named)
      ? ` { ${selection(named, 2)} }`
      : ' { __typename }';
  const query = `${kind}${definitions ? `(${definitions})` : ''} { ${field.name}${passed ? `(${passed})` : ''}${select} }`;
  return { query, variables: args };
}

interface Answer {
  status: number;
  body: {
    data?: Record<string, unknown> | null;
    errors?: { message: string; path?: unknown[]; extensions?: Record<string, unknown> }[];
  };
}

function outcomeOf(answer: Answer, field: string): Outcome {
  const error = answer.body.errors?.[0];
  if (error) return `code:${String(error.extensions?.code)}`;
  const value = answer.body.data?.[field];
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return value.length ? 'ok' : 'empty';
  if (typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (Array.isArray(o.errors) && o.errors.length)
      return `error:${String((o.errors[0] as { type: unknown }).type)}`;
    if (o.authenticated === false) return 'signedOut';
    if ('session' in o && (o.session as { authenticated?: boolean } | null)?.authenticated === false)
      return 'signedOut';
    // A connection or a namespace object whose every list is empty.
    const lists = JSON.stringify(o).match(/"(edges|all)":\{?"?[^}]*?\[\]/g);
    if (lists && !/"node"/.test(JSON.stringify(o)) && !/"profile":"/.test(JSON.stringify(o))) return 'empty';
  }
  return 'ok';
}

beforeAll(async () => {
  d = await startDemoApp();
  const owner = d.demo;
  await ensureMember(d.app.database, 'mallory', 'other-tenant');
  await ensureMember(d.app.database, 'dora', 'demo');
  await disableUser(d.app.database.db, 'dora');
  // Objects of the demo tenant to aim at: a filter, a view and an issue.
  const made = await d.app.graphql(
    `mutation {
      f: createAssetFilter(input: { id: "matrix-filter", displayName: "Matrix filter", profile: "well", subProfiles: [] }) { errors { type } }
      v: updateAssetProfileViewConfiguration(input: { profile: "well", id: "matrix-view", name: "Matrix view" }) { errors { type } }
      i: createIssue(input: { displayName: "Matrix issue about a demo well", subject: { type: "asset", reference: "well/W-100-1-1" } }) { errors { type } issue { id } }
    }`,
    {},
    owner,
  );
  expect(made.body.errors).toBeUndefined();
  const download = await d.app.graphql<{ createAssetFilterDownload: { download: { id: string } } }>(
    `mutation { createAssetFilterDownload(input: { filterId: "matrix-filter", name: "matrix" }) { download { id } } }`,
    {},
    owner,
  );
  ARGUMENT_OVERRIDES['Mutation.deleteAssetDownload'] = {
    id: download.body.data!.createAssetFilterDownload.download.id,
  };
  // Two webhooks of the demo tenant (to a public address, for changes that never come): one to
  // change, one to delete; and a change of the demo tenant to ask for by its cursor.
  const hook = `mutation { createWebhook(input: { url: "http://93.184.216.34/hook", filter: { ids: ["matrix-never"] } }) { errors { type } webhook { id } } }`;
  const hooks = [];
  for (let i = 0; i < 2; i++) {
    const h = await d.app.graphql<any>(hook, {}, owner);
    expect(h.body.data.createWebhook.errors).toEqual([]);
    hooks.push(h.body.data.createWebhook.webhook.id);
  }
  ARGUMENT_OVERRIDES['Mutation.updateWebhook'] = { input: { id: hooks[0], description: 'Matrix' } };
  ARGUMENT_OVERRIDES['Mutation.deleteWebhook'] = { input: { id: hooks[1] } };
  ARGUMENT_OVERRIDES['Mutation.createWebhook'] = {
    input: { url: 'http://93.184.216.34/hook', filter: { ids: ['matrix-never'] } },
  };
  const newest = await d.app.graphql<any>('{ changes(first: 1) { edges { cursor } } }', {}, owner);
  ARGUMENT_OVERRIDES['Query.change'] = { cursor: newest.body.data.changes.edges[0].cursor };
  const introspection = await d.app.graphql<IntrospectionQuery>(getIntrospectionQuery(), {}, owner);
  schema = buildClientSchema(introspection.body.data!);
  const db = d.app.database.db;
  const assets = await db.selectFrom('assets').select('id').where('user_group', '=', 'demo').execute();
  const issues = await db.selectFrom('issues').select('id').where('user_group', '=', 'demo').execute();
  demoSecrets = [
    ...assets.map((a) => `"${a.id}"`),
    ...issues.map((i) => `"${i.id}"`),
    'Matrix filter',
    'Matrix view',
    'Matrix issue',
    'Red Deer',
  ];
}, 60_000);
afterAll(() => d.app.close());

type Kind = 'query' | 'mutation' | 'subscription';
const ROOTS = { query: 'Query', mutation: 'Mutation', subscription: 'Subscription' } as const;

function rootFields(): { key: string; kind: Kind; field: GraphQLField<unknown, unknown> }[] {
  const out: { key: string; kind: Kind; field: GraphQLField<unknown, unknown> }[] = [];
  for (const [kind, type] of [
    ['query', schema.getQueryType()],
    ['mutation', schema.getMutationType()],
    ['subscription', schema.getSubscriptionType()],
  ] as const) {
    for (const field of Object.values(type?.getFields() ?? {})) {
      out.push({ key: `${ROOTS[kind]}.${field.name}`, kind, field });
    }
  }
  return out;
}

let written = 0;
/**
 * A subscription as its caller sees it: opened over SSE, then the demo tenant writes, and the
 * stream's first event within a second and a half is the answer (none: empty).
 */
async function subscriptionAnswer(
  field: string,
  query: string,
  variables: Record<string, unknown>,
  headers: Record<string, string>,
): Promise<Answer> {
  const response = await d.app.handle(
    new Request(`${BASE}/api/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
      body: JSON.stringify({ query, variables }),
    }),
  );
  const reader = new SseReader(response);
  try {
    await new Promise((r) => setTimeout(r, 150));
    const w = await d.app.graphql<any>(
      'mutation($input: UpsertAssetsInput!) { upsertAssets(input: $input) { errors { message } } }',
      {
        input: {
          profile: 'site',
          assets: [{ id: `MATRIX-SUB-${++written}`, properties: { name: 'Red Deer' } }],
        },
      },
      d.demo,
    );
    expect(w.body.data?.upsertAssets.errors).toEqual([]);
    const first = await reader.next(1_500).catch(() => undefined);
    // Nothing came: as a list of no events.
    if (first?.event !== 'next') return { status: response.status, body: { data: { [field]: [] } } };
    return { status: response.status, body: first.data };
  } finally {
    await reader.cancel();
  }
}

describe('authorization matrix', () => {
  it('has a rule for every root field of the composed schema, and no rule for a field that is gone', () => {
    const fields = rootFields()
      .map((f) => f.key)
      .sort();
    expect(
      fields.filter((f) => !(f in EXPECTED)),
      'root fields without a rule',
    ).toEqual([]);
    expect(
      Object.keys(EXPECTED).filter((f) => !fields.includes(f)),
      'rules without a field',
    ).toEqual([]);
  });

  it('gives each kind of caller what its rule says, and another tenant nothing of the demo tenant', async () => {
    const actual: Record<string, Record<string, Outcome>> = {};
    const leaks: string[] = [];
    for (const { key, kind, field } of rootFields()) {
      if (!(key in EXPECTED)) continue;
      const { query, variables } = operation(kind, field, key);
      actual[key] = {};
      for (const caller of CALLERS) {
        const headers = await headersFor(caller);
        const answer =
          kind === 'subscription'
            ? await subscriptionAnswer(field.name, query, variables, headers)
            : ((await d.app.graphql(query, variables, headers)) as Answer);
        expect(answer.status, `${key} × ${caller}: ${JSON.stringify(answer.body)}`).toBeLessThan(500);
        actual[key][caller] = outcomeOf(answer, field.name);
        if (caller !== 'apiKey') {
          const text = JSON.stringify(answer.body.data ?? null);
          for (const secret of demoSecrets)
            if (text.includes(secret)) leaks.push(`${key} × ${caller}: ${secret}`);
        }
      }
    }
    expect(leaks).toEqual([]);
    expect(actual).toEqual(EXPECTED);
  }, 120_000);
});

describe('cross-tenant references', () => {
  it('another tenant can name the demo tenant’s objects but never reach them', async () => {
    const other = { 'x-svc-sessionid': await sessionRow('mallory', 'other-tenant', 'session') };
    const read = await d.app.graphql<Record<string, unknown>>(
      `{ assetProfiles { byId(profile: "well") { profile } }
         assets(profile: "well") { byId(id: "W-100-1-1") { id } }
         assetFilter(id: "matrix-filter") { id }
         user(id: "demo") { id } }`,
      {},
      other,
    );
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data).toEqual({
      assetProfiles: { byId: null },
      assets: null,
      assetFilter: null,
      user: null,
    });
    // An issue about the demo tenant's well keeps the reference but never resolves the asset.
    const issue = await d.app.graphql<{
      createIssue: {
        errors: unknown[];
        issue: { subject: { assetReference: { id: string; asset: unknown } } };
      };
    }>(
      `mutation { createIssue(input: { displayName: "Probe", subject: { type: "asset", reference: "well/W-100-1-1" } }) {
        errors { type } issue { subject { assetReference { id asset { id displayName } } } } } }`,
      {},
      other,
    );
    expect(issue.body.data!.createIssue.errors).toEqual([]);
    expect(issue.body.data!.createIssue.issue.subject.assetReference).toEqual({
      id: 'W-100-1-1',
      asset: null,
    });
    // The same filter id in another group is another filter; the demo one is untouched.
    const before = await d.app.graphql(
      `{ assetFilter(id: "matrix-filter") { displayName audit { version } } }`,
      {},
      d.demo,
    );
    const mine = await d.app.graphql<{ createAssetFilter: { errors: { type: string }[] } }>(
      `mutation { createAssetFilter(input: { id: "matrix-filter", displayName: "Mallory", profile: "well", subProfiles: [] }) { errors { type } } }`,
      {},
      other,
    );
    expect(mine.body.data!.createAssetFilter.errors).toEqual([{ type: 'NOT_FOUND' }]);
    const after = await d.app.graphql(
      `{ assetFilter(id: "matrix-filter") { displayName audit { version } } }`,
      {},
      d.demo,
    );
    expect(after.body).toEqual(before.body);
    expect(JSON.stringify(before.body)).toContain('Matrix');
  });
});

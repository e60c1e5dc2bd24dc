/**
 * The session script that the router checks, the pooler and the load balancer tests run (sign-in,
 * pages, relationships, issues, a write, group switch, reauthentication, sign-out), and how a
 * client carries its session through it: by header or by cookie, as a browser's jar does.
 */
import { expect } from 'vitest';

// biome-ignore-all lint/suspicious/noExplicitAny: GraphQL answers are read as the test needs them

export interface Answer {
  headers: Headers;
  body: { data?: any; errors?: { message: string; extensions?: Record<string, unknown> }[] };
}

/** How the client carries its session. */
export type Carrier = 'header' | 'cookie';

export interface Client {
  carrier: Carrier;
  session: string | undefined;
  /** Its address, as the load balancer in front of the router writes it. */
  address: string;
}

export function headersOf(client: Client): Record<string, string> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/graphql-response+json, application/json',
    'x-forwarded-for': client.address,
  };
  if (client.session && client.carrier === 'header') headers['x-svc-sessionid'] = client.session;
  if (client.session && client.carrier === 'cookie') headers.cookie = `svc_sessionid=${client.session}`;
  return headers;
}

/** Takes a session change the way a client does: the header, or the cookie jar. */
export function keep(client: Client, headers: Headers) {
  if (client.carrier === 'header') {
    const id = headers.get('x-svc-sessionid');
    if (id) client.session = id;
    return;
  }
  for (const cookie of headers.getSetCookie()) {
    const m = /^svc_sessionid=([^;]*)/.exec(cookie);
    if (m) client.session = m[1] || undefined;
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** What differs by request, not by router: correlation ids, generated ids and times. */
export function normalised(value: unknown, key?: string): unknown {
  if (Array.isArray(value)) return value.map((v) => normalised(v));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalised(v, k)]));
  }
  if (typeof value !== 'string') return value;
  if (key === 'correlationId') return '<correlation id>';
  if (UUID.test(value)) return '<uuid>';
  if (ISO.test(value)) return '<time>';
  return value;
}

export const SCRIPT: { name: string; query: string; variables?: Record<string, unknown> }[] = [
  {
    name: 'signIn',
    query: `mutation { signIn(input: { loginUsername: "demo", password: "demo", clientApplicationType: EXPLORER }) {
      correlationId errors { type message } session { authenticated username userGroup clientApplicationType userGroups } } }`,
  },
  {
    name: 'session',
    query: '{ session { authenticated username userGroup clientApplicationType challengeName userGroups } }',
  },
  {
    name: 'a page of assets',
    query: `{ assets(profile: "well") { profile all(first: 5) {
      pageInfo { hasNextPage endCursor }
      edges { cursor node { id profile displayName properties(only: ["status", "depth"]) } } } } }`,
  },
  {
    name: 'related',
    query: `{ assets(profile: "facility") { all(first: 2) { edges { node { id
      related(relationship: "wells") { __typename ... on AssetRelationshipMany { assets { id profile displayName } } }
    } } } } }`,
  },
  {
    name: 'issueSubject',
    query: `{ assets(profile: "well") { byId(id: "W-100-1-1") { id
      issueSubject { type reference assetReference { profile id asset { displayName } } issues { edges { node { displayName } } } }
    } } }`,
  },
  {
    name: 'issues',
    query: `{ issues { all(first: 50) { edges { node { displayName status
      subject { type reference assetReference { profile id asset { displayName } } } } } } } }`,
  },
  {
    name: 'createIssue',
    query: `mutation($input: CreateIssueInput!) { createIssue(input: $input) {
      correlationId errors { type message }
      issue { id displayName status audit { createdBy { userId } } subject { type reference assetReference { id } } } } }`,
    variables: {
      input: { displayName: 'Router check', subject: { type: 'asset', reference: 'well/W-100-1-2' } },
    },
  },
  {
    name: 'setSessionUserGroup',
    query: `mutation { setSessionUserGroup(input: { userGroup: "demo-east" }) {
      errors { type } session { authenticated username userGroup } } }`,
  },
  { name: 'session in the new group', query: '{ session { authenticated username userGroup } }' },
  {
    name: 'reauthenticate',
    query: `mutation { reauthenticate(input: { password: "demo" }) {
      errors { type } session { authenticated username userGroup } } }`,
  },
  {
    name: 'assets of the new group',
    query: '{ assets(profile: "well") { all(first: 3) { edges { node { id displayName } } } } }',
  },
  { name: 'signOut', query: 'mutation { signOut { errors { type } session { authenticated username } } }' },
  { name: 'session after signOut', query: '{ session { authenticated username } }' },
];

/** Sends `query` to `url` as `client`, taking any session change from the answer. */
export async function askAt(url: string, client: Client, query: string, variables = {}): Promise<Answer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: headersOf(client),
    body: JSON.stringify({ query, variables }),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await response.text();
  let body: Answer['body'];
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`not JSON (${response.status}) from ${url}: ${text.slice(0, 300)}`);
  }
  keep(client, response.headers);
  return { headers: response.headers, body };
}

/**
 * Runs the script step by step as `a` at `urlA` and as `b` at `urlB`: no answer at `urlA` has
 * errors, and each answer at `urlB` is the same once normalised.
 */
export async function expectScriptAlike(
  urlA: string,
  a: Client,
  urlB: string,
  b: Client,
  explain: () => string,
): Promise<void> {
  for (const step of SCRIPT) {
    const first = await askAt(urlA, a, step.query, step.variables);
    const second = await askAt(urlB, b, step.query, step.variables);
    expect(first.body.errors, `${step.name}\n${explain()}`).toBeUndefined();
    expect(normalised(second.body), step.name).toEqual(normalised(first.body));
  }
}

/** Signs a new client in at `url` as the script's user, by header, from `address`. */
export async function signedIn(url: string, address: string): Promise<Client> {
  const client: Client = { carrier: 'header', session: undefined, address };
  const r = await askAt(url, client, SCRIPT[0]!.query);
  expect(r.body.data?.signIn?.errors, JSON.stringify(r.body)).toEqual([]);
  return client;
}

const CREATE_ISSUE = `mutation($input: CreateIssueInput!) { createIssue(input: $input) { errors { type } issue { id } } }`;
const READ_ISSUE = 'query($id: ID!) { issues { byId(id: $id) { displayName } } }';

/** Creates an issue named `name` as `client` at `url`; its id. */
export async function createIssue(url: string, client: Client, name: string): Promise<string> {
  const made = await askAt(url, client, CREATE_ISSUE, {
    input: { displayName: name, subject: { type: 'asset', reference: 'well/W-100-1-2' } },
  });
  const id = made.body.data?.createIssue?.issue?.id;
  if (!id) throw new Error(`${name}: ${JSON.stringify(made.body)}`);
  return id;
}

/**
 * `tries` times, `client` writes (an issue) through one of `urls` and reads it back at once
 * through the next, while three other sessions (signed in at the last of `urls`) write through
 * all of them: the reads that did not see their write (none is the answer), how many other writes
 * went in meanwhile, and how long it took.
 */
export async function ownWritesUnderLoad(
  urls: readonly string[],
  client: Client,
  tries = 1_000,
): Promise<{ stale: string[]; loaded: number; ms: number }> {
  // One after another: a user's concurrent sign-ins are checked a few at a time.
  const writers: Client[] = [];
  for (const i of [1, 2, 3]) writers.push(await signedIn(urls.at(-1)!, `198.51.100.${100 + i}`));
  let loading = true;
  let loaded = 0;
  const load = writers.map(async (writer, w) => {
    for (let n = 0; loading; n++) {
      await createIssue(urls[n % urls.length]!, writer, `load ${w}-${n}`);
      loaded++;
    }
  });
  const stale: string[] = [];
  const started = Date.now();
  try {
    for (let n = 0; n < tries; n++) {
      const writeAt = urls[n % urls.length]!;
      const readAt = urls[(n + 1) % urls.length]!;
      const name = `mine ${n}`;
      const id = await createIssue(writeAt, client, name);
      const read = await askAt(readAt, client, READ_ISSUE, { id });
      if (read.body.data?.issues?.byId?.displayName !== name)
        stale.push(`${name}: ${JSON.stringify(read.body)}`);
    }
  } finally {
    loading = false;
    await Promise.all(load);
  }
  return { stale, loaded, ms: Date.now() - started };
}

/**
 * Trusted documents (docs/security.md#trusted-documents): a manifest applied with
 * `assetql documents apply`, the forms a request names a document by (the appendix's `documentId`,
 * Apollo's APQ with its exact `PersistedQueryNotFound`, Relay's `doc_id`), GET, batches, what
 * `ASSETQL_TRUSTED_DOCUMENTS=require` refuses and the explorer's exception, documents prepared at
 * start, and hostile clients: malformed ids, many clients registering random texts at once, and
 * clients that leave mid-request. Apollo Client's persisted-queries link and urql's persisted
 * exchange run unchanged against a served port.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ApolloClient, ApolloLink, gql, HttpLink, InMemoryCache } from '@apollo/client';
import { PersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { addTypenameToDocument } from '@apollo/client/utilities';
import {
  Client,
  cacheExchange,
  fetchExchange,
  formatDocument,
  stringifyDocument,
  gql as urqlGql,
} from '@urql/core';
import { persistedExchange } from '@urql/exchange-persisted';
import { parse, print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyManifest } from '../../src/cli/commands/documents.ts';
import { DEFAULT_DOCUMENT_LIMITS } from '../../src/config/index.ts';
import { sha256Hex } from '../../src/execution/trusted-documents.ts';
import { type Listening, listen } from '../../src/server/listen.ts';
import { type Metrics, NO_METRICS } from '../../src/shared/metrics.ts';
import {
  applyTrustedDocuments,
  loadTrustedDocuments,
  readTrustedDocuments,
  TrustedDocumentLimit,
} from '../../src/storage/trusted-documents.ts';
import { BASE, startTestApp, type TestApp } from '../helpers/app.ts';
import { freshDatabase, type TestDatabase } from '../helpers/database.ts';
import { partialBodyClient, rawClient } from '../helpers/raw-clients.ts';

const run = promisify(execFile);
const BIN = join(import.meta.dirname, '../../src/cli/bin.ts');

const WHO = 'query WhoAmI { session { authenticated username } }';
const USER = 'query UserById($id: ID!) { user(id: $id) { id username } }';
const LOGIN =
  'query LoginConfig { config { auth { ...Login } } }\nfragment Login on AuthConfig { loginEnabled }';
const SIGN_OUT = 'mutation SignOut { signOut { session { authenticated } errors { type } } }';
const RELAY = 'query RelayWhoAmI { session { authenticated } }';
const RELAY_ID = '4f0c5e0c2d7e6b1a9c8d7e6f5a4b3c2d';
/** Not in the manifest. */
const OTHER = 'query Other { session { username authenticated } }';
/** What the two clients send of their documents (each adds `__typename`, and prints it its own way). */
const CLIENT_QUERY = 'query ClientWhoAmI { session { authenticated username } }';
const APOLLO_TEXT = print(addTypenameToDocument(parse(CLIENT_QUERY)));
const URQL_TEXT = stringifyDocument(formatDocument(urqlGql(CLIENT_QUERY)));

const entry = (body: string, name: string, type = 'query', id = sha256Hex(body)) => ({
  id,
  name,
  type,
  body,
});
const MANIFEST = {
  format: 'apollo-persisted-query-manifest',
  version: 1,
  operations: [
    entry(WHO, 'WhoAmI'),
    entry(USER, 'UserById'),
    entry(LOGIN, 'LoginConfig'),
    entry(SIGN_OUT, 'SignOut', 'mutation'),
    entry(RELAY, 'RelayWhoAmI', 'query', RELAY_ID),
    entry(APOLLO_TEXT, 'ClientWhoAmI', 'query', `apollo-${sha256Hex(APOLLO_TEXT).slice(0, 16)}`),
    entry(URQL_TEXT, 'ClientWhoAmI', 'query', `urql-${sha256Hex(URQL_TEXT).slice(0, 16)}`),
  ],
};

let dir: string;
let database: TestDatabase;
/** `ASSETQL_TRUSTED_DOCUMENTS` unset (`allow`), and `require`, on the same database and manifest. */
let open: TestApp;
let only: TestApp;
let served: Listening;
let prepared = 0;
const metrics: Metrics = { ...NO_METRICS, preparedOperation: () => prepared++ };

interface Answer {
  status: number;
  headers: Headers;
  body: { data?: any; errors?: { message: string; extensions?: Record<string, unknown> }[] };
}

async function answer(response: Response): Promise<Answer> {
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Answer['body'],
  };
}

function post(app: TestApp, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return app
    .handle(
      new Request(`${BASE}/api/graphql`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/graphql-response+json',
          ...headers,
        },
        body: JSON.stringify(body),
      }),
    )
    .then(answer);
}

function get(
  app: TestApp,
  params: Record<string, string>,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return app
    .handle(
      new Request(`${BASE}/api/graphql?${new URLSearchParams(params)}`, {
        headers: { accept: 'application/graphql-response+json', ...headers },
      }),
    )
    .then(answer);
}

const apq = (text: string) => ({ persistedQuery: { version: 1, sha256Hash: sha256Hex(text) } });
const codeOf = (a: Answer) => a.body.errors?.[0]?.extensions?.code;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'aq-documents-'));
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(MANIFEST));
  database = await freshDatabase();
  // The command itself where another process can reach the database (PostgreSQL); its function
  // on the embedded database, which lives in this process.
  if (database.url) {
    const { stdout } = await run(process.execPath, [BIN, 'documents', 'apply', join(dir, 'manifest.json')], {
      env: { ...process.env, DATABASE_URL: database.url, ASSETQL_ENV: 'demo', LOG_LEVEL: 'warn' },
      timeout: 60_000,
    });
    expect(JSON.parse(stdout)).toMatchObject({ added: MANIFEST.operations.length, unchanged: 0 });
  } else {
    const applied = await applyManifest(database.db, join(dir, 'manifest.json'), {
      documentLimits: DEFAULT_DOCUMENT_LIMITS,
    });
    expect(applied).toEqual({ added: MANIFEST.operations.length, unchanged: 0, removed: 0 });
  }
  // A small APQ store (`maxPersistedQueries`), for a flood to pass its bound quickly; no sharing
  // between tenants (`busyAbove` 1: on a busy machine the flood's anonymous tenant would wait its
  // turn, REQUEST_RATE_LIMITED, which is fairness.test.ts's to test, not the store's).
  open = await startTestApp({
    database,
    metrics,
    config: { documentLimits: { maxPersistedQueries: 200 }, fairness: { busyAbove: 1 } },
  });
  only = await startTestApp({ database, config: { trustedDocuments: 'require' } });
  served = await listen((request, remote) => open.handle(request, remote), 0, '127.0.0.1');
}, 120_000);

afterAll(async () => {
  await served?.close();
  await open?.close();
  await only?.close();
  await database?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('assetql documents apply', () => {
  it('keeps every document, and applying it again changes nothing', async () => {
    const stored = await readTrustedDocuments(database.db);
    expect(stored.map((d) => d.id).sort()).toEqual(MANIFEST.operations.map((o) => o.id).sort());
    expect(stored.find((d) => d.id === RELAY_ID)).toMatchObject({ sha256: sha256Hex(RELAY), type: 'query' });
    const again = await applyManifest(database.db, join(dir, 'manifest.json'), open.config);
    expect(again).toEqual({ added: 0, unchanged: MANIFEST.operations.length, removed: 0 });
  });

  it('refuses an id applied before with another body, and writes nothing', async () => {
    const changed = { ...MANIFEST.operations[0]!, sha256: sha256Hex(OTHER), body: OTHER };
    const extra = {
      ...entry(LOGIN.replace('loginEnabled', 'ssoEnabled'), 'LoginConfig'),
      sha256: 'f'.repeat(64),
    };
    await expect(applyTrustedDocuments(database.db, [extra as never, changed as never])).rejects.toThrow(
      /already applied with another body/,
    );
    expect(await readTrustedDocuments(database.db)).toHaveLength(MANIFEST.operations.length);
  });

  it('with --replace, removes what the manifest no longer holds', async () => {
    const before = await readTrustedDocuments(database.db);
    const kept = before.filter((d) => d.id !== RELAY_ID);
    expect(await applyTrustedDocuments(database.db, kept, { replace: true })).toEqual({
      added: 0,
      unchanged: kept.length,
      removed: 1,
    });
    expect(await applyTrustedDocuments(database.db, before)).toMatchObject({ added: 1 });
  });

  it('refuses a manifest that would leave more documents than are kept, naming both, and writes nothing', async () => {
    const before = await readTrustedDocuments(database.db);
    const stored = (body: string, name: string) => ({
      ...entry(body, name),
      type: 'query' as const,
      sha256: sha256Hex(body),
    });
    const more = [stored(OTHER, 'Other'), stored('query Other2 { session { authenticated } }', 'Other2')];
    const maxDocuments = before.length + 1;
    await expect(applyTrustedDocuments(database.db, more, { maxDocuments })).rejects.toThrow(
      `would leave the deployment ${before.length + 2} trusted documents (${before.length} stored, 2 new); at most ${maxDocuments} are kept`,
    );
    await expect(
      applyTrustedDocuments(database.db, [...before, ...more], { replace: true, maxDocuments }),
    ).rejects.toThrow(TrustedDocumentLimit);
    expect(await readTrustedDocuments(database.db)).toEqual(before);
    // Replacing within the bound is taken.
    expect(await applyTrustedDocuments(database.db, before, { replace: true, maxDocuments })).toEqual({
      added: 0,
      unchanged: before.length,
      removed: 0,
    });
  });

  it('a process loads no more than the bound: the first by id, with a warning', async () => {
    const warnings: unknown[] = [];
    const log = { warn: (...args: unknown[]) => void warnings.push(args[0]) };
    const all = await loadTrustedDocuments(database.db, log as never);
    expect(all).toHaveLength(MANIFEST.operations.length);
    expect(warnings).toEqual([]);
    const loaded = await loadTrustedDocuments(database.db, log as never, 3);
    expect(loaded).toEqual(all.slice(0, 3));
    expect(warnings).toEqual([{ stored: MANIFEST.operations.length, loaded: 3, maxDocuments: 3 }]);
  });

  it('refuses a manifest that is not one, or whose documents do not fit the schema, naming each problem', async () => {
    const bad = {
      ...MANIFEST,
      operations: [
        entry('query Nope { nothingHere }', 'Nope'),
        entry(WHO, 'Misnamed'),
        entry(SIGN_OUT, 'SignOut', 'query'),
        { id: 'no spaces', name: 'X', type: 'query', body: WHO },
      ],
    };
    writeFileSync(join(dir, 'bad.json'), JSON.stringify(bad));
    writeFileSync(join(dir, 'wrong-format.json'), JSON.stringify({ ...MANIFEST, format: 'relay' }));
    // The command, once: exit code 1 and every problem, no stack (the user's to fix).
    const env = { ...process.env, DATA_DIR: dir, DATABASE_URL: '', ASSETQL_ENV: 'demo', LOG_LEVEL: 'warn' };
    const failed = await run(process.execPath, [BIN, 'documents', 'apply', join(dir, 'bad.json')], {
      env,
      timeout: 60_000,
    }).then(
      () => undefined,
      (e: { code: number; stderr: string }) => e,
    );
    expect(failed?.code).toBe(1);
    for (const text of [
      'Cannot query field "nothingHere"',
      'named "WhoAmI"',
      'is a mutation',
      '"id" must be',
    ])
      expect(failed?.stderr).toContain(text);
    expect(failed?.stderr).not.toMatch(/\n\s+at /);
    for (const [file, expected] of [
      ['wrong-format.json', '"format" must be "apollo-persisted-query-manifest"'],
      ['missing.json', 'cannot read'],
    ] as const)
      await expect(applyManifest(database.db, join(dir, file), open.config)).rejects.toThrow(expected);
    expect(await readTrustedDocuments(database.db)).toHaveLength(MANIFEST.operations.length);
  }, 60_000);
});

describe('the forms a document is named by', () => {
  it('documentId (sha256:) by POST and GET, answered at the fast door from the first request', async () => {
    const before = prepared;
    const byPost = await post(open, { documentId: `sha256:${sha256Hex(WHO)}` });
    expect(byPost.status).toBe(200);
    expect(byPost.body).toEqual({ data: { session: { authenticated: false, username: null } } });
    // Prepared at start: its first request skips the runtime's pipeline.
    expect(prepared).toBe(before + 1);
    const byGet = await get(open, { documentId: `sha256:${sha256Hex(LOGIN)}`, operationName: 'LoginConfig' });
    expect(byGet.body).toEqual({ data: { config: { auth: { loginEnabled: true } } } });
  });

  it('variables with an id, by POST and GET', async () => {
    const ada = { 'x-svc-sessionid': await open.sessionFor('ada', 'acme') };
    const byPost = await post(
      open,
      { documentId: `sha256:${sha256Hex(USER)}`, variables: { id: 'ada' } },
      ada,
    );
    expect(byPost.body).toEqual({ data: { user: { id: 'ada', username: 'ada' } } });
    const byGet = await get(
      open,
      { documentId: `sha256:${sha256Hex(USER)}`, variables: JSON.stringify({ id: 'ada' }) },
      ada,
    );
    expect(byGet.body).toEqual(byPost.body);
  });

  it("Relay's doc_id names a manifest's id, by POST and GET", async () => {
    const byPost = await post(open, { doc_id: RELAY_ID, variables: {} });
    expect(byPost.body).toEqual({ data: { session: { authenticated: false } } });
    expect((await get(open, { doc_id: RELAY_ID })).body).toEqual(byPost.body);
    // The appendix's custom id is the same id.
    expect((await post(open, { documentId: RELAY_ID })).body).toEqual(byPost.body);
  });

  it('an id no document has is a request error: 400, or 200 under application/json', async () => {
    for (const documentId of [`sha256:${sha256Hex(OTHER)}`, 'x-acme:nothing', 'nothing-here']) {
      const missed = await post(open, { documentId });
      expect(missed.status).toBe(400);
      expect(missed.body.data).toBeUndefined();
      expect(missed.body.errors).toEqual([
        {
          message: `No persisted document has the id ${documentId}.`,
          extensions: { code: 'PERSISTED_QUERY_NOT_IN_LIST' },
        },
      ]);
      expect((await post(open, { documentId }, { accept: 'application/json' })).status).toBe(200);
    }
  });

  it("APQ: Apollo's PersistedQueryNotFound on a miss, the text registered with its hash, then the hash alone", async () => {
    const text = 'query Apq1 { session { authenticated } }';
    const missed = await post(open, { extensions: apq(text) });
    expect(missed.status).toBe(200);
    expect(missed.body).toEqual({
      errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }],
    });
    // 200 whatever the Accept header, as Apollo Server answers it.
    expect((await post(open, { extensions: apq(text) }, { accept: 'application/json' })).status).toBe(200);
    const registered = await post(open, { query: text, extensions: apq(text) });
    expect(registered.body).toEqual({ data: { session: { authenticated: false } } });
    expect((await post(open, { extensions: apq(text) })).body).toEqual(registered.body);
    // And by GET, the extensions as JSON in the URL; also by the appendix's sha256 id.
    expect((await get(open, { extensions: JSON.stringify(apq(text)) })).body).toEqual(registered.body);
    expect((await post(open, { documentId: `sha256:${sha256Hex(text)}` })).body).toEqual(registered.body);
    // A manifest's document by its hash, never registered.
    expect((await post(open, { extensions: apq(WHO) })).body.data).toEqual({
      session: { authenticated: false, username: null },
    });
  });

  it('APQ: a hash that is not its text is refused, and nothing is registered', async () => {
    const text = 'query Apq2 { session { authenticated } }';
    const refused = await post(open, { query: text, extensions: apq(`${text} `) });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      errors: [{ message: 'provided sha does not match query', extensions: { code: 'BAD_REQUEST' } }],
    });
    expect(codeOf(await post(open, { extensions: apq(`${text} `) }))).toBe('PERSISTED_QUERY_NOT_FOUND');
    const version2 = await post(open, {
      extensions: { persistedQuery: { version: 2, sha256Hash: sha256Hex(text) } },
    });
    expect(version2.status).toBe(400);
    expect(version2.body.errors?.[0]?.message).toBe('Unsupported persisted query version');
  });

  it('a batch may name each of its operations by any form', async () => {
    const answered = await open.handle(
      new Request(`${BASE}/api/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
        body: JSON.stringify([
          { documentId: `sha256:${sha256Hex(WHO)}` },
          { doc_id: RELAY_ID },
          { extensions: apq(LOGIN) },
          { query: OTHER },
        ]),
      }),
    );
    expect(await answered.json()).toEqual([
      { data: { session: { authenticated: false, username: null } } },
      { data: { session: { authenticated: false } } },
      { data: { config: { auth: { loginEnabled: true } } } },
      { data: { session: { username: null, authenticated: false } } },
    ]);
  });

  it('never runs a mutation over GET (405), whatever names it', async () => {
    const ada = { 'x-svc-sessionid': await open.sessionFor('ada', 'acme') };
    for (const params of [
      { documentId: `sha256:${sha256Hex(SIGN_OUT)}` } as Record<string, string>,
      { extensions: JSON.stringify(apq(SIGN_OUT)) },
      { query: SIGN_OUT, extensions: JSON.stringify(apq(SIGN_OUT)) },
    ]) {
      const refused = await get(open, params, ada);
      expect(refused.status).toBe(405);
      expect(refused.body.data).toBeUndefined();
    }
    // Nothing ran: the session is still signed in, until the same mutation comes by POST.
    expect(
      (await post(open, { documentId: `sha256:${sha256Hex(WHO)}` }, ada)).body.data.session.authenticated,
    ).toBe(true);
    const signedOut = await post(open, { documentId: `sha256:${sha256Hex(SIGN_OUT)}` }, ada);
    expect(signedOut.body.data.signOut.errors).toEqual([]);
  });

  it('refuses malformed ids and hashes before looking anything up', async () => {
    const huge = 'a'.repeat(1_000_000);
    for (const body of [
      { documentId: huge },
      { documentId: `sha256:${sha256Hex(WHO).toUpperCase()}` },
      { documentId: 'sha256:abc' },
      { documentId: 'md5:0123' },
      { documentId: 42 },
      { doc_id: 'has space' },
      { extensions: { persistedQuery: { version: 1, sha256Hash: huge } } },
      { extensions: { persistedQuery: { version: 1, sha256Hash: sha256Hex(WHO).toUpperCase() } } },
      { extensions: { persistedQuery: { version: 1 } } },
      { extensions: { persistedQuery: 'yes' } },
      { documentId: `sha256:${sha256Hex(WHO)}`, extensions: apq(WHO) },
      { documentId: `sha256:${sha256Hex(WHO)}`, query: WHO },
    ]) {
      const refused = await post(open, body);
      expect(refused.status, JSON.stringify(body).slice(0, 100)).toBe(400);
      expect(codeOf(refused)).toBe('BAD_REQUEST');
      expect(JSON.stringify(refused.body).length).toBeLessThan(1000);
    }
  });
});

describe('ASSETQL_TRUSTED_DOCUMENTS=require', () => {
  it('refuses any other text: 400, or 200 under application/json, nothing run', async () => {
    const refused = await post(only, { query: OTHER });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      errors: [
        {
          message:
            'Only trusted documents run here: send the documentId of a document applied to this deployment.',
          extensions: { code: 'QUERY_NOT_IN_SAFELIST' },
        },
      ],
    });
    expect((await post(only, { query: OTHER }, { accept: 'application/json' })).status).toBe(200);
    expect((await get(only, { query: OTHER })).status).toBe(400);
    // Nor registered by APQ, which would make it anybody's.
    expect(codeOf(await post(only, { query: OTHER, extensions: apq(OTHER) }))).toBe('QUERY_NOT_IN_SAFELIST');
    expect(codeOf(await post(only, { extensions: apq(OTHER) }))).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  it('runs the trusted documents by every form, and their text as it is', async () => {
    const who = { data: { session: { authenticated: false, username: null } } };
    expect((await post(only, { documentId: `sha256:${sha256Hex(WHO)}` })).body).toEqual(who);
    expect((await post(only, { extensions: apq(WHO) })).body).toEqual(who);
    expect((await post(only, { query: WHO, extensions: apq(WHO) })).body).toEqual(who);
    expect((await post(only, { query: WHO })).body).toEqual(who);
    expect((await get(only, { documentId: `sha256:${sha256Hex(WHO)}` })).body).toEqual(who);
    expect((await post(only, { doc_id: RELAY_ID })).body.data).toEqual({ session: { authenticated: false } });
  });

  it('lets a session signed in as the explorer run anything, and nobody else', async () => {
    const explorer = { 'x-svc-sessionid': await only.sessionFor('eve', 'acme', { clientType: 'EXPLORER' }) };
    const mobile = { 'x-svc-sessionid': await only.sessionFor('eve', 'acme', { clientType: 'MOBILE_IOS' }) };
    expect((await post(only, { query: OTHER }, explorer)).body).toEqual({
      data: { session: { username: 'eve', authenticated: true } },
    });
    const introspection = await post(only, { query: '{ __schema { queryType { name } } }' }, explorer);
    expect(introspection.body.data.__schema.queryType.name).toBe('Query');
    expect(codeOf(await post(only, { query: OTHER }, mobile))).toBe('QUERY_NOT_IN_SAFELIST');
    // The explorer's own APQ texts are its own to run: registered, but not for anybody else.
    const text = 'query ExplorerOnly { session { authenticated } }';
    expect((await post(only, { query: text, extensions: apq(text) }, explorer)).body.data).toBeTruthy();
    expect((await post(only, { extensions: apq(text) }, explorer)).body.data).toBeTruthy();
    expect(codeOf(await post(only, { extensions: apq(text) }))).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect(codeOf(await post(only, { documentId: `sha256:${sha256Hex(text)}` }, mobile))).toBe(
      'PERSISTED_QUERY_NOT_IN_LIST',
    );
  });

  it('holds at the fast door too: a text the explorer made ready is still refused to others', async () => {
    const explorer = { 'x-svc-sessionid': await only.sessionFor('eve', 'acme', { clientType: 'EXPLORER' }) };
    const text = 'query FastDoor { session { authenticated } }';
    // Validated by the pipeline, twice: the fast door would take its next request.
    for (let i = 0; i < 3; i++) expect((await post(only, { query: text }, explorer)).status).toBe(200);
    expect(codeOf(await post(only, { query: text }))).toBe('QUERY_NOT_IN_SAFELIST');
  });

  it("lets a visitor sign in from the explorer's examples", async () => {
    const { EXAMPLES, examplesDocument } = await import('../../src/gateway/explorer/examples.ts');
    const signIn = EXAMPLES.find((e) => e.name === 'SignIn')!;
    for (const body of [
      { query: examplesDocument(), operationName: 'SignIn' },
      { query: signIn.query, operationName: 'SignIn' },
    ]) {
      const answered = await post(only, body);
      expect(answered.body.errors).toBeUndefined();
      // No demo user here: the sign-in ran, and said so.
      expect(answered.body.data.signIn.errors.length).toBeGreaterThan(0);
    }
  });
});

describe('ASSETQL_TRUSTED_DOCUMENTS=require and the web console', () => {
  it('lets a visitor open the console and sign in, and the session then runs what the console writes', async () => {
    const console = await import('../../src/console/app/documents.ts');
    const opened = await post(only, { query: console.START });
    expect(opened.body.errors).toBeUndefined();
    expect(opened.body.data.session.authenticated).toBe(false);
    const signIn = await post(only, {
      query: console.SIGN_IN,
      variables: {
        input: { loginUsername: 'nobody', password: 'not a password', clientApplicationType: 'EXPLORER' },
      },
    });
    expect(signIn.body.errors).toBeUndefined();
    // No such user: the sign-in ran, and said so.
    expect(signIn.body.data.signIn.errors.length).toBeGreaterThan(0);
    // What it sends once signed in runs on the session's explorer right, not as a trusted
    // document anybody (an API key, an app's session) may run.
    for (const query of [console.countsDocument(2), console.PROFILES, console.ASSETS, console.EXPORT_LINK])
      expect(codeOf(await post(only, { query }))).toBe('QUERY_NOT_IN_SAFELIST');
    const explorer = { 'x-svc-sessionid': await only.sessionFor('cy', 'acme', { clientType: 'EXPLORER' }) };
    expect((await post(only, { query: console.PROFILES }, explorer)).body.errors).toBeUndefined();
  });
});

describe('Apollo Client and urql, unchanged', () => {
  /** Each request a client sent: its method, and whether it carried the text. */
  function recording(sent: { method: string; text: boolean }[]): typeof fetch {
    return async (input, init) => {
      const request = new Request(input, init);
      const text =
        request.method === 'GET'
          ? new URL(request.url).searchParams.has('query')
          : 'query' in (await request.clone().json());
      sent.push({ method: request.method, text });
      return fetch(request);
    };
  }

  function apollo(url: string, sent: { method: string; text: boolean }[], get = false) {
    const link = ApolloLink.from([
      new PersistedQueryLink({ sha256: sha256Hex, useGETForHashedQueries: get }),
      new HttpLink({ uri: `${url}/api/graphql`, fetch: recording(sent) }),
    ]);
    return new ApolloClient({ link, cache: new InMemoryCache() });
  }

  it("Apollo Client's persisted-queries link: a miss, the text sent once, then the hash alone", async () => {
    const query = gql('query ApolloOnly { session { authenticated username } }');
    const sent: { method: string; text: boolean }[] = [];
    const first = await apollo(served.url, sent).query({ query });
    expect(first.data).toEqual({ session: { __typename: 'Session', authenticated: false, username: null } });
    expect(sent).toEqual([
      { method: 'POST', text: false },
      { method: 'POST', text: true },
    ]);
    // Another client (a new page) finds it registered; by GET too.
    const again: { method: string; text: boolean }[] = [];
    expect((await apollo(served.url, again, true).query({ query })).data).toEqual(first.data);
    expect(again).toEqual([{ method: 'GET', text: false }]);
  });

  it("urql's persisted exchange, by GET", async () => {
    const sent: { method: string; text: boolean }[] = [];
    const client = new Client({
      url: `${served.url}/api/graphql`,
      exchanges: [cacheExchange, persistedExchange({ preferGetForPersistedQueries: true }), fetchExchange],
      fetch: recording(sent),
    });
    const query = urqlGql('query UrqlOnly { session { authenticated } }');
    const first = await client.query(query, {}).toPromise();
    expect(first.error).toBeUndefined();
    expect(first.data).toEqual({ session: { __typename: 'Session', authenticated: false } });
    expect(sent[0]).toEqual({ method: 'GET', text: false });
    expect(sent.some((s) => s.text)).toBe(true);
    const again: { method: string; text: boolean }[] = [];
    const second = new Client({
      url: `${served.url}/api/graphql`,
      exchanges: [cacheExchange, persistedExchange({ preferGetForPersistedQueries: true }), fetchExchange],
      fetch: recording(again),
    });
    expect((await second.query(query, {}).toPromise()).data).toEqual(first.data);
    expect(again).toEqual([{ method: 'GET', text: false }]);
  });

  it('with require, both run their applied documents by hash and are refused any other', async () => {
    const strict = await listen((request, remote) => only.handle(request, remote), 0, '127.0.0.1');
    try {
      const sent: { method: string; text: boolean }[] = [];
      const apolloAnswer = await apollo(strict.url, sent).query({ query: gql(CLIENT_QUERY) });
      expect((apolloAnswer.data as { session?: unknown } | undefined)?.session).toEqual({
        __typename: 'Session',
        authenticated: false,
        username: null,
      });
      expect(sent).toEqual([{ method: 'POST', text: false }]);
      const urqlClient = new Client({
        url: `${strict.url}/api/graphql`,
        exchanges: [cacheExchange, persistedExchange({ preferGetForPersistedQueries: true }), fetchExchange],
        fetch: fetch,
      });
      expect((await urqlClient.query(urqlGql(CLIENT_QUERY), {}).toPromise()).data?.session).toEqual({
        __typename: 'Session',
        authenticated: false,
        username: null,
      });
      const refused = await apollo(strict.url, [])
        .query({ query: gql('query NotApplied { session { authenticated } }') })
        .then(
          () => undefined,
          (e: Error) => e,
        );
      expect(refused?.message).toContain('Only trusted documents run here');
      const urqlRefused = await urqlClient
        .query(urqlGql('query NotApplied { session { authenticated } }'), {})
        .toPromise();
      expect(urqlRefused.error?.graphQLErrors[0]?.extensions.code).toBe('QUERY_NOT_IN_SAFELIST');
    } finally {
      await strict.close();
    }
  });
});

describe('hostile clients', () => {
  it('registers only a text that parsed and validated: junk is answered its errors and kept nowhere', async () => {
    const junk = [
      'query Junk1 { session {',
      'not graphql at all',
      'query Junk2 { noSuchField }',
      'query Junk3 { session { user { devices { deviceKey } } } } query Junk3 { session { authenticated } }',
      // Over maxTokens (10,000), yet short enough to register (256 kB).
      `query Junk4 { ${'__typename '.repeat(10_001)}}`,
    ];
    for (const text of junk) {
      const sent = await post(open, { query: text, extensions: apq(text) });
      expect(sent.body.data ?? null, text).toBeNull();
      expect(sent.body.errors?.length, text).toBeGreaterThan(0);
      // By POST and GET the hash alone is still unknown: nothing was registered.
      expect(codeOf(await post(open, { extensions: apq(text) })), text).toBe('PERSISTED_QUERY_NOT_FOUND');
      expect(codeOf(await get(open, { extensions: JSON.stringify(apq(text)) })), text).toBe(
        'PERSISTED_QUERY_NOT_FOUND',
      );
    }
  });

  it('at the fast door, registers a text the pipeline validated before', async () => {
    const text = 'query FastApq { session { authenticated } }';
    // Kept, and so found at the fast door, from its second parse on (document-cache.ts).
    for (let i = 0; i < 2; i++)
      expect((await post(open, { query: text })).body.data).toEqual({ session: { authenticated: false } });
    const before = prepared;
    const registered = await post(open, { query: text, extensions: apq(text) });
    expect(registered.body.data).toEqual({ session: { authenticated: false } });
    expect(prepared).toBe(before + 1);
    expect((await post(open, { extensions: apq(text) })).body.data).toEqual({
      session: { authenticated: false },
    });
  });

  it('many clients registering random texts at once fill a bounded store, and honest clients still get through', async () => {
    const attackers = 16;
    const each = 20; // 320 texts: more than the store keeps (200)
    const honest = 'query Honest { session { authenticated } }';
    let honestAnswers = 0;
    const statuses = new Map<number, number>();
    const attack = Array.from({ length: attackers }, async (_, a) => {
      for (let i = 0; i < each; i++) {
        const text = `query Flood${a}x${i} { session { authenticated } }`;
        const r = await post(open, { query: text, extensions: apq(text) });
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      }
    });
    const client = (async () => {
      for (let i = 0; i < 20; i++) {
        let r = await post(open, { extensions: apq(honest) });
        if (codeOf(r) === 'PERSISTED_QUERY_NOT_FOUND')
          r = await post(open, { query: honest, extensions: apq(honest) });
        expect(r.body).toEqual({ data: { session: { authenticated: false } } });
        honestAnswers++;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    // And hashes that name nothing, which keep nothing.
    const guesses = Array.from({ length: 200 }, async (_, i) => {
      const r = await post(open, { extensions: apq(`guess ${i}`) });
      expect(codeOf(r)).toBe('PERSISTED_QUERY_NOT_FOUND');
    });
    await Promise.all([...attack, client, ...guesses]);
    expect(honestAnswers).toBe(20);
    expect([...statuses.keys()]).toEqual([200]);
    // The store kept at most its bound: the oldest registrations went first, the newest are there.
    const probe = async (i: number) => {
      let hits = 0;
      for (let a = 0; a < attackers; a++) {
        const text = `query Flood${a}x${i} { session { authenticated } }`;
        if ((await post(open, { extensions: apq(text) })).body.data) hits++;
      }
      return hits;
    };
    expect(await probe(0)).toBe(0);
    expect(await probe(each - 1)).toBe(attackers);
  }, 120_000);

  it('answers a text too long to register, and does not keep it', async () => {
    const text = `# ${'x'.repeat(300_000)}\nquery Long { session { authenticated } }`;
    const answered = await post(open, { query: text, extensions: apq(text) });
    expect(answered.body.data).toEqual({ session: { authenticated: false } });
    expect(codeOf(await post(open, { extensions: apq(text) }))).toBe('PERSISTED_QUERY_NOT_FOUND');
  });

  it('a client that leaves half-way through its registration registers nothing; one that leaves after does no harm', async () => {
    const text = 'query LeftEarly { session { authenticated } }';
    const body = JSON.stringify({ query: text, extensions: apq(text) });
    await partialBodyClient(served.url, '/api/graphql', body, {}, Math.floor(body.length / 2), 50);
    expect(codeOf(await post(open, { extensions: apq(text) }))).toBe('PERSISTED_QUERY_NOT_FOUND');
    // Whole requests whose clients go at once, by every form.
    const forms = [
      body,
      JSON.stringify({ documentId: `sha256:${sha256Hex(WHO)}` }),
      JSON.stringify({ extensions: apq(WHO) }),
      JSON.stringify({ doc_id: RELAY_ID }),
    ];
    await Promise.all(forms.flatMap((b) => [0, 1, 5].map((ms) => rawClient(served.url, b, {}, '}')(ms))));
    const aborted = new AbortController();
    const leaving = open.handle(
      new Request(`${BASE}/api/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ documentId: `sha256:${sha256Hex(WHO)}` }),
        signal: aborted.signal,
      }),
    );
    aborted.abort();
    const left = await leaving.then(
      (r) => r.status,
      (e: Error) => e.name,
    );
    expect([499, 'AbortError']).toContain(left);
    // Still serving every form.
    expect((await post(open, { extensions: apq(WHO) })).body.data.session.authenticated).toBe(false);
    expect((await post(open, { doc_id: RELAY_ID })).body.data.session.authenticated).toBe(false);
  });
});

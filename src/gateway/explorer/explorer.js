// The explorer's own script (served from this origin, so the CSP needs no inline script). It runs
// Hive Laboratory against the endpoint, opened on a tab of example operations that work on the
// demo tenant, and sends the session: the browser adds the same-origin `svc_sessionid` cookie
// itself, and a session ID typed into the bar goes in the `x-svc-sessionid` header of every
// request the page makes to the endpoint.
(async () => {
  const root = document.getElementById('laboratory');
  const endpoint = root.dataset.endpoint;
  const input = document.getElementById('assetql-session');
  const SESSION_KEY = 'assetql.explorer.sessionId';
  input.value = sessionStorage.getItem(SESSION_KEY) ?? '';
  input.addEventListener('input', () => sessionStorage.setItem(SESSION_KEY, input.value.trim()));

  const assets = new URL('assets/', `${location.origin}/plugins/sr/apolloGraphql/`);
  const base = new URL('monacoeditorwork/', assets);
  const workers = {
    editorWorkerService: 'editor.worker.bundle.js',
    json: 'json.worker.bundle.js',
    graphql: 'graphql.worker.bundle.js',
    typescript: 'ts.worker.bundle.js',
  };
  self.MonacoEnvironment = {
    globalAPI: false,
    getWorkerUrl: (_id, label) => new URL(workers[label] ?? workers.editorWorkerService, base).href,
  };

  const nativeFetch = window.fetch.bind(window);
  window.fetch = (resource, init = {}) => {
    const url = new URL(resource instanceof Request ? resource.url : String(resource), location.href);
    const sessionId = input.value.trim();
    if (url.origin === location.origin && url.pathname === endpoint && sessionId) {
      const headers = new Headers(
        init.headers ?? (resource instanceof Request ? resource.headers : undefined),
      );
      headers.set('x-svc-sessionid', sessionId);
      init = { ...init, headers };
    }
    return nativeFetch(resource, { credentials: 'same-origin', ...init });
  };

  const examples = await nativeFetch(new URL('examples.json', assets), { credentials: 'same-origin' }).then(
    (r) => r.json(),
  );
  const createdAt = new Date(0).toISOString();
  const operation = (id, name, query, variables = '{}') => ({
    id,
    name,
    query,
    variables,
    headers: '{}',
    extensions: '{}',
  });
  const examplesCollection = {
    id: 'assetql-examples',
    name: 'assetql examples',
    description: 'Operations that work on the demo tenant; run SignIn first.',
    createdAt,
    operations: examples.operations.map((e) => ({
      ...operation(`assetql-example-${e.name}`, e.name, e.query, e.variables),
      description: e.description,
      createdAt,
    })),
  };

  // What the person did here is kept in this browser (operations, tabs, collections), as
  // GraphiQL kept its tabs; a first visit opens on the examples.
  const KEPT = 'assetql.explorer.v1.';
  const kept = (name) => {
    try {
      return JSON.parse(localStorage.getItem(KEPT + name) ?? 'null');
    } catch (error) {
      if (error instanceof SyntaxError) return null;
      throw error;
    }
  };
  const keep = (name) => (value) => localStorage.setItem(KEPT + name, JSON.stringify(value));
  const collections = kept('collections') ?? [];
  root.textContent = '';
  HiveLaboratory.renderLaboratory(root, {
    enableDocs: true,
    defaultEndpoint: new URL(endpoint, location.origin).href,
    defaultSettings: {
      fetch: { credentials: 'same-origin' },
      subscriptions: { protocol: 'SSE' },
      introspection: { method: 'POST' },
    },
    defaultOperations: kept('operations') ?? [operation('assetql-examples', 'Examples', examples.document)],
    onOperationsChange: keep('operations'),
    defaultActiveOperationId: kept('activeOperationId') ?? 'assetql-examples',
    onActiveOperationIdChange: keep('activeOperationId'),
    defaultTabs: kept('tabs') ?? [
      { id: 'assetql-examples', type: 'operation', data: { id: 'assetql-examples', name: 'Examples' } },
    ],
    onTabsChange: keep('tabs'),
    defaultActiveTabId: kept('activeTabId') ?? 'assetql-examples',
    onActiveTabIdChange: keep('activeTabId'),
    // The examples as they ship, whatever was kept of them.
    defaultCollections: [examplesCollection, ...collections.filter((c) => c.id !== examplesCollection.id)],
    onCollectionsChange: keep('collections'),
  });
})().catch((error) => {
  document.getElementById('laboratory').textContent = `The explorer could not start: ${error.message}`;
});

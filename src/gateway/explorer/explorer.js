// The explorer's own script (served from this origin, so the CSP needs no inline script).
// It runs GraphiQL against the endpoint, and sends the session: the browser adds the
// same-origin `svc_sessionid` cookie itself, and a session ID typed into the bar goes in
// the `x-svc-sessionid` header of every request the page makes to the endpoint.
(() => {
  const root = document.getElementById('graphiql');
  const endpoint = root.dataset.endpoint;
  const input = document.getElementById('assetql-session');
  const STORAGE_KEY = 'assetql.explorer.sessionId';
  input.value = sessionStorage.getItem(STORAGE_KEY) ?? '';
  input.addEventListener('input', () => sessionStorage.setItem(STORAGE_KEY, input.value.trim()));

  const base = new URL('assets/monacoeditorwork/', `${location.origin}/plugins/sr/apolloGraphql/`);
  const workers = {
    editorWorkerService: 'editor.worker.bundle.js',
    json: 'json.worker.bundle.js',
    graphql: 'graphql.worker..bundle.js',
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

  // Yoga's GraphiQL ignores `defaultQuery`: it starts from the `?query=` URL parameter (which
  // it keeps up to date as you type), else its `query` option, else a welcome comment. A
  // `query` option would also win over the URL, so pass ours only when the URL has none.
  const DEFAULT_QUERY =
    '{\n  session {\n    authenticated\n    username\n    userGroup\n    expiresAt\n  }\n}\n';
  root.textContent = '';
  YogaGraphiQL.renderYogaGraphiQL(root, {
    endpoint,
    title: 'assetql',
    credentials: 'same-origin',
    ...(new URLSearchParams(location.search).get('query') ? {} : { query: DEFAULT_QUERY }),
  });
})();

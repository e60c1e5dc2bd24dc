// A page on another site than the API (its origin listed in ASSETQL_CORS_ORIGINS): the session
// cookie is SameSite=Lax, so the browser does not send it cross-site; the page keeps the session
// ID from `x-svc-sessionid` (readable because assetql exposes it to listed origins) and sends it
// back in the same header. Keep it in memory, or sessionStorage at most: any script on the page
// can read it.
let sessionId;

export async function graphql(api, query, variables = {}) {
  const headers = { 'content-type': 'application/json' };
  if (sessionId) headers['x-svc-sessionid'] = sessionId;
  const response = await fetch(api, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  const next = response.headers.get('x-svc-sessionid');
  if (next) sessionId = next;
  return response.json();
}

export async function signIn(api, loginUsername, password) {
  const answer = await graphql(
    api,
    `mutation($u: String!, $p: String!) {
      signIn(input: { loginUsername: $u, password: $p, clientApplicationType: EXPLORER }) {
        errors { type } session { authenticated username } } }`,
    { u: loginUsername, p: password },
  );
  return answer.data.signIn;
}

export async function signOut(api) {
  const answer = await graphql(api, 'mutation { signOut { session { authenticated } } }');
  sessionId = undefined;
  return answer.data.signOut;
}

export const hasSession = () => sessionId !== undefined;

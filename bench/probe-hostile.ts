import { graphql, startServer } from './lib.ts';

const PASSWORD = 'a bench password here';
const server = await startServer({ ASSETQL_DEMO_DATA: 'false', ASSETQL_TRUST_PROXY: '1' });
try {
  await server.cli(['demo', 'generate', '--assets', '500', '--group', 'noisy']);
  await server.cli(['users', 'add', 'n', '--group', 'noisy', '--password-stdin'], `${PASSWORD}\n`);
  const signIn = `mutation { signIn(input: { loginUsername: "n", password: "${PASSWORD}", clientApplicationType: EXPLORER }) { errors { type } session { authenticated } } }`;
  let t0 = performance.now();
  const s = await graphql(server.url, signIn, {}, { 'x-forwarded-for': '203.0.113.1' });
  console.log('signin', Math.round(performance.now() - t0));
  const headers = { 'x-svc-sessionid': s.headers.get('x-svc-sessionid')!, 'x-forwarded-for': '203.0.113.1' };
  const words = Array.from({ length: 60_000 }, (_, i) => `w${i % 100}`).join(' ');
  const inList = Array.from({ length: 20_000 }, (_, i) => `W-${i}`);
  const docs: [string, string, Record<string, unknown>][] = [
    [
      'page1000',
      `{ assets(profile: "well") { all(first: 1000) { edges { node { id displayName properties geometry } } } } }`,
      {},
    ],
    [
      'search60k',
      `query($f: AssetFilter) { assets(profile: "well") { all(filter: $f) { edges { node { id } } } } }`,
      { f: { search: words } },
    ],
    [
      'in20k',
      `query($f: AssetFilter) { assets(profile: "well") { all(filter: $f) { edges { node { id } } } } }`,
      { f: { property: { name: 'status', in: inList } } },
    ],
    ['alias', `{ ${Array.from({ length: 200 }, (_, i) => `a${i}: session { username }`).join(' ')} }`, {}],
    ['small', `{ session { username } }`, {}],
  ];
  for (let round = 0; round < 2; round++)
    for (const [name, q, v] of docs) {
      t0 = performance.now();
      const r = await graphql(server.url, q, v, headers);
      console.log(name, Math.round(performance.now() - t0), JSON.stringify(r.body).slice(0, 160));
    }
  for (let i = 0; i < 3; i++) {
    t0 = performance.now();
    await graphql(server.url, signIn, {}, { 'x-forwarded-for': '203.0.113.1' });
    console.log('signin', Math.round(performance.now() - t0));
  }
} finally {
  await server.close();
}

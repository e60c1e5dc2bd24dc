import { graphql, signIn, startServer } from './lib.ts';

const server = await startServer({ ASSETQL_DEMO_DATA: 'false' });
const controllers: AbortController[] = [];
try {
  await server.cli(['demo', 'generate', '--assets', '1', '--group', 'g1']);
  await server.cli(['users', 'add', 'u1', '--group', 'g1', '--password-stdin'], 'a bench password here\n');
  const s = await signIn(server.url, 'u1');
  const streams = Number(process.env.STREAMS ?? 20);
  for (let i = 0; i < streams; i++) {
    const c = new AbortController();
    controllers.push(c);
    const r = await fetch(`${server.url}/api/graphql`, {
      method: 'POST',
      signal: c.signal,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'x-svc-sessionid': s },
      body: JSON.stringify({ query: 'subscription { changes(filter: { kinds: [CREATED] }) { entityId } }' }),
    });
    const reader = r.body!.getReader();
    (async () => {
      try {
        for (;;) {
          const x = await reader.read();
          if (x.done) break;
        }
      } catch {}
    })();
  }
  await new Promise((r) => setTimeout(r, 1000));
  const times: number[] = [];
  const all: Promise<void>[] = [];
  const t0 = performance.now();
  for (let i = 0; i < 100; i++) {
    const due = t0 + i * 25;
    const w = due - performance.now();
    if (w > 0) await new Promise((r) => setTimeout(r, w));
    all.push(
      (async () => {
        const t = performance.now();
        await graphql(
          server.url,
          'mutation($input: UpsertAssetsInput!) { upsertAssets(input: $input) { errors { message } } }',
          { input: { profile: 'site', assets: [{ id: `S-${i}`, properties: { name: `x${i}` } }] } },
          { 'x-svc-sessionid': s },
        );
        times.push(Math.round(performance.now() - t));
      })(),
    );
  }
  await Promise.all(all);
  times.sort((a, b) => a - b);
  console.log('streams', streams, 'p50', times[50], 'p95', times[95], 'max', times[99]);
} finally {
  for (const c of controllers) c.abort();
  await server.close();
}

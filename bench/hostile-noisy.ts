import { type ChildProcess, type SpawnOptions, spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The noisy tenant's client in the noisy-neighbour bench (hostile.ts), run in a process of its own
 * at a lower CPU priority (`nice -n 10`): two tenants are two customers on two machines, and the
 * calm tenant's timings must include neither the noisy client's own work (serialising 200 kB
 * bodies, parsing pages of 1,000 assets) on a shared event loop nor its taking the core the calm
 * client shares with it. The server, on a core of its own, sees the same requests either way; the
 * report gives how many the noisy tenant sent.
 */

export type AbuseKind = 'documents' | 'downloads' | 'signIns';
export const KINDS: readonly AbuseKind[] = ['documents', 'downloads', 'signIns'];

export const PASSWORD = 'a bench password here';
export const EXPORT_LINK = `{ assetProfiles { byId(profile: "well") { assetsExport(properties: ["name", "status", "depth"]) { csvFileDownloadUrl(exportName: "bench") } } } }`;
export const signInAs = (username: string) =>
  `mutation { signIn(input: { loginUsername: "${username}", password: "${PASSWORD}", clientApplicationType: EXPLORER }) { errors { type } session { authenticated } } }`;

/** What the noisy tenant sent and how it was answered. */
export interface NoisyCounts {
  documents: number;
  documentsRefused: number;
  documentsServed: number;
  exportsStalled: number;
  exportsRefused: number;
  signIns: number;
  signInsThrottled: number;
  /** How each abusive document was answered the first time (status and first error). */
  answers: string[];
}

export const noCounts = (): NoisyCounts => ({
  documents: 0,
  documentsRefused: 0,
  documentsServed: 0,
  exportsStalled: 0,
  exportsRefused: 0,
  signIns: 0,
  signInsThrottled: 0,
  answers: [],
});

/** The noisy tenant: where the server is, who it is, and what it sends this phase. */
interface Noisy {
  url: string;
  username: string;
  /** Its address (`X-Forwarded-For`) and session header. */
  from: Record<string, string>;
  headers: Record<string, string>;
  kinds: readonly AbuseKind[];
  /** Which of the abusive documents it sends (indexes into {@link abusiveDocuments}): all by default. */
  only?: readonly number[];
  /** Sends each document's text unchanged, so that caches of parsed documents apply (default: a new text each time). */
  sameText?: boolean;
}

/** What the noisy tenant sends: the costliest documents the limits allow, and ones they refuse. */
export function abusiveDocuments(): { query: string; variables?: Record<string, unknown> }[] {
  const words = Array.from({ length: 60_000 }, (_, i) => `w${i % 100}`).join(' ');
  const inList = Array.from({ length: 20_000 }, (_, i) => `W-${i}`);
  const nested = (n: number): string =>
    n === 0
      ? 'id'
      : `id related(relationship: "facility") { ... on AssetRelationshipOne { asset { ${nested(n - 1)} } } }`;
  return [
    // Allowed, and as costly as allowed: a page of 1,000 wells with every property.
    {
      query: `{ assets(profile: "well") { all(first: 1000) { edges { node { id displayName properties } } } } }`,
    },
    // An expensive filter inside the bounds: 32 search words and a 498-item `in`.
    {
      query: `query($f: AssetFilter) { assets(profile: "well") { all(first: 1000, filter: $f) { edges { node { id } } } } }`,
      variables: {
        f: {
          or: [
            { search: Array.from({ length: 32 }, (_, i) => `w${i}`).join(' ') },
            { property: { name: 'status', in: Array.from({ length: 400 }, (_, i) => `s${i}`) } },
          ],
        },
      },
    },
    // Refused: too deep, an alias flood, a 60,000-word search, a 20,000-item `in`.
    { query: `{ assets(profile: "well") { all(first: 5) { edges { node { ${nested(10)} } } } } }` },
    { query: `{ ${Array.from({ length: 200 }, (_, i) => `a${i}: session { username }`).join(' ')} }` },
    {
      query: `query($f: AssetFilter) { assets(profile: "well") { all(filter: $f) { edges { node { id } } } } }`,
      variables: { f: { search: words } },
    },
    {
      query: `query($f: AssetFilter) { assets(profile: "well") { all(filter: $f) { edges { node { id } } } } }`,
      variables: { f: { property: { name: 'status', in: inList } } },
    },
  ];
}

/**
 * POSTs a GraphQL request body to the server at `url` as a tenant's client does: its status and
 * JSON answer (`{}` when there is none).
 */
export async function postGraphQL(url: string, headers: Record<string, string>, body: string) {
  const r = await fetch(`${url}/api/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
    signal: AbortSignal.timeout(60_000),
  });
  return { status: r.status, body: (await r.json().catch(() => ({}))) as any };
}

/** A link the server made (with the configured public URL) on the server at `url`, whatever port it chose. */
export const localLink = (link: string, url: string) => new URL(new URL(link).pathname, url);

/** Whether `nice` can lower a process's priority here. */
const niceable = () => spawnSync('nice', ['-n', '10', 'true']).status === 0;

/**
 * Starts the noisy tenant in its own process; the returned function stops it, lets go of what it
 * holds (stalled downloads) and tells what it sent.
 */
export function startNoisy(noisy: Noisy): () => Promise<NoisyCounts> {
  const node = [process.execPath, fileURLToPath(import.meta.url)];
  const options: SpawnOptions = { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] };
  const child: ChildProcess = niceable()
    ? spawn('nice', ['-n', '10', ...node], options)
    : spawn(node[0]!, node.slice(1), options);
  const done = new Promise<NoisyCounts>((resolve, reject) => {
    child.once('message', (counts) => resolve(counts as NoisyCounts));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the noisy tenant's process exited ${code}`)));
  });
  child.send(noisy);
  return async () => {
    child.send('stop');
    const counts = await done;
    child.kill();
    return counts;
  };
}

/** The noisy tenant's loops, on its thread, until told to stop. */
async function abuse(noisy: Noisy, stopped: Promise<void>): Promise<NoisyCounts> {
  let running = true;
  void stopped.then(() => {
    running = false;
  });
  const counts = noCounts();
  const { kinds } = noisy;
  // Variables serialised once per document, not once per request.
  const post = (query: string, variables = '{}', session = true) =>
    postGraphQL(
      noisy.url,
      session ? noisy.headers : noisy.from,
      `{"query":${JSON.stringify(query)},"variables":${variables}}`,
    );
  const documents = abusiveDocuments()
    .filter((_, i) => !noisy.only || noisy.only.includes(i))
    .map((d) => ({ query: d.query, variables: JSON.stringify(d.variables ?? {}) }));
  const stalled: ReadableStreamDefaultReader<Uint8Array>[] = [];
  const loops: Promise<void>[] = [];
  // Abusive documents from 3 loops, closed loop.
  for (let l = 0; l < (kinds.includes('documents') ? 3 : 0); l++)
    loops.push(
      (async () => {
        for (let i = l; running; i++) {
          const d = documents[i % documents.length]!;
          // A new document text each time (a comment), so that no cache of parsed, validated
          // or compiled documents spares the server any work.
          const r = await post(noisy.sameText ? d.query : `${d.query}\n# ${i}`, d.variables).catch(
            () => null,
          );
          counts.documents++;
          if (r && r.status === 200 && !r.body.errors) counts.documentsServed++;
          else counts.documentsRefused++;
          const k = i % documents.length;
          counts.answers[k] ??=
            `${r?.status ?? 'no answer'} ${r?.body.errors?.[0]?.message?.slice(0, 80) ?? 'served'}`;
        }
      })(),
    );
  // Sign-in bursts from 3 loops.
  for (let l = 0; l < (kinds.includes('signIns') ? 3 : 0); l++)
    loops.push(
      (async () => {
        while (running) {
          const r = await post(signInAs(noisy.username), '{}', false).catch(() => null);
          counts.signIns++;
          if (r?.body.data?.signIn?.errors?.[0]?.type === 'LIMIT_EXCEEDED') counts.signInsThrottled++;
        }
      })(),
    );
  // Downloads started and never read past the first chunk, up to 6 at once.
  loops.push(
    (async () => {
      while (running && kinds.includes('downloads')) {
        if (stalled.length < 6) {
          const r = await post(EXPORT_LINK).catch(() => null);
          const url = r?.body.data?.assetProfiles?.byId?.assetsExport?.csvFileDownloadUrl;
          if (url) {
            const download = await fetch(localLink(url, noisy.url), { headers: noisy.headers }).catch(
              () => null,
            );
            if (download?.ok && download.body) {
              const reader = download.body.getReader();
              await reader.read().catch(() => {});
              stalled.push(reader);
              counts.exportsStalled++;
            } else {
              if (download)
                counts.answers[documents.length] ??=
                  `download ${download.status}: ${(await download.text().catch(() => '')).slice(0, 80)}`;
              else counts.answers[documents.length] ??= 'download: no answer';
              counts.exportsRefused++;
            }
          }
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    })(),
  );
  await Promise.all(loops);
  await Promise.all(stalled.map((r) => r.cancel().catch(() => {})));
  return counts;
}

// Run as the noisy tenant's process: its orders come over IPC, the counts go back the same way.
if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) {
  const orders = new Promise<Noisy>((resolve) => process.once('message', (m) => resolve(m as Noisy)));
  const noisy = await orders;
  const stopped = new Promise<void>((resolve) => process.once('message', () => resolve()));
  process.send(await abuse(noisy, stopped));
}

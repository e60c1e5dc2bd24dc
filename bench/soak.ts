import { readFileSync } from 'node:fs';
import { graphql, startServer } from './lib.ts';

export interface SoakResult {
  engine: string;
  /** Closed-loop throughput of the mix (requests per second). */
  saturationRps: number;
  targetRps: number;
  seconds: number;
  requests: number;
  rps: number;
  errors: number;
  /** The first few failures, to explain a non-zero count. */
  errorSamples: string[];
  exports: number;
  signIns: number;
  writes: number;
  p50: number;
  p95: number;
  p99: number;
  /** Server resident set size (MB): at start, after the warm-up minute, at the end, max. */
  rss: { start: number; afterWarmup: number; end: number; max: number; warmupSeconds: number };
  /** end RSS within 15% of the RSS after the warm-up. */
  flat: boolean;
  /** RSS once per second (MB). */
  rssSeries: number[];
}

const ONLY = '["name", "status", "depth", "facilityId"]';
const READS = [
  `{ assets(profile: "well") { all(first: 20) { edges { node { id displayName properties(only: ${ONLY}) } } } } }`,
  `{ assets(profile: "well") { all(first: 20, filter: { property: { name: "status", equals: "producing" } }) { edges { node { id properties(only: ${ONLY}) } } } } }`,
  `{ session { authenticated username userGroup expiresAt } }`,
  `{ assets(profile: "facility") { all(first: 10) { edges { node { id displayName } } } } }`,
];
const SIGN_IN = `mutation { signIn(input: { loginUsername: "demo", password: "demo", clientApplicationType: EXPLORER }) { errors { type } session { authenticated } } }`;
const CREATE_ISSUE = `mutation($input: CreateIssueInput!) { createIssue(input: $input) { errors { type } issue { id } } }`;
const EXPORT_LINK = `{ assetProfiles { byId(profile: "well") { assetsExport(properties: ["name", "status", "depth"]) { csvFileDownloadUrl(exportName: "soak") } } } }`;
/** One sign-in every SIGN_IN_EVERY requests, one write every WRITE_EVERY. */
const SIGN_IN_EVERY = 50;
const WRITE_EVERY = 10;
const EXPORT_EVERY_MS = 3_000;

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
}

function percentile(sorted: number[], p: number) {
  return sorted.length
    ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
    : Number.NaN;
}

/**
 * Soak: the mixed workload (asset pages, filtered pages, the session query, a sign-in every
 * 50 requests, an issue created every 10, a CSV export every 3 s) first closed-loop to find
 * its saturation throughput, then paced at 80% of it for 10 minutes (`--quick`: 60 s),
 * counting errors and sampling the server's RSS every second.
 */
export async function soakBench(options: {
  quick: boolean;
  /** Paced run length, overriding the default (600 s, 60 s quick); the CI form runs 30 s. */
  seconds?: number;
  /** Every step, seconds each (`npm run bench -- --smoke`): that the scenario runs, not figures. */
  smoke?: boolean;
}): Promise<SoakResult> {
  const seconds = options.seconds ?? (options.smoke ? 3 : options.quick ? 60 : 600);
  const exportEveryMs = options.smoke ? 1_000 : EXPORT_EVERY_MS;
  const warmupSeconds = Math.min(options.quick ? 15 : 60, Math.floor(seconds / 4));
  const step = (what: string) => process.stderr.write(`bench: soak: ${what}\n`);
  const server = await startServer({
    ASSETQL_DEMO_DATA: 'true',
    ASSETQL_RATE_LIMITS: JSON.stringify({ signIn: { points: 1_000_000, seconds: 60 } }),
  });
  const pid = server.child.pid!;
  try {
    const signedIn = await graphql(server.url, SIGN_IN);
    const sessionId = signedIn.headers.get('x-svc-sessionid');
    if (!sessionId) throw new Error(`sign-in failed: ${JSON.stringify(signedIn.body)}`);

    let counter = 0;
    const counts = { exports: 0, signIns: 0, writes: 0 };
    const errorSamples: string[] = [];
    let errors = 0;
    const fail = (what: string) => {
      errors++;
      if (errorSamples.length < 5) errorSamples.push(what.slice(0, 300));
    };
    const post = async (query: string, variables: Record<string, unknown> = {}, session = true) => {
      const r = await fetch(`${server.url}/api/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(session ? { 'x-svc-sessionid': sessionId } : {}) },
        body: JSON.stringify({ query, variables }),
        signal: AbortSignal.timeout(30_000),
      });
      const body = (await r.json()) as { data?: Record<string, { errors?: unknown[] }>; errors?: unknown[] };
      const domain = body.data && Object.values(body.data).find((v) => v?.errors?.length);
      if (!r.ok || body.errors || domain) throw new Error(`${r.status} ${JSON.stringify(body)}`);
    };
    /** One request of the mix; resolves with its latency (ms), or undefined when it failed. */
    const one = async (): Promise<number | undefined> => {
      const i = ++counter;
      const t0 = performance.now();
      try {
        if (i % SIGN_IN_EVERY === 0) {
          await post(SIGN_IN, {}, false);
          counts.signIns++;
        } else if (i % WRITE_EVERY === 0) {
          await post(CREATE_ISSUE, { input: { displayName: `soak ${i}`, description: 'soak' } });
          counts.writes++;
        } else {
          await post(READS[i % READS.length]!);
        }
        return performance.now() - t0;
      } catch (e) {
        fail(String(e));
        return undefined;
      }
    };
    const exportOnce = async () => {
      try {
        const link = await graphql(server.url, EXPORT_LINK, {}, { 'x-svc-sessionid': sessionId });
        const url = link.body.data?.assetProfiles?.byId?.assetsExport?.csvFileDownloadUrl as
          | string
          | undefined;
        if (!url) throw new Error(`no export link: ${JSON.stringify(link.body)}`);
        const r = await fetch(new URL(new URL(url).pathname, server.url), {
          signal: AbortSignal.timeout(60_000),
        });
        const text = await r.text();
        if (!r.ok || text.split('\n').length < 2)
          throw new Error(`export ${r.status}: ${text.slice(0, 200)}`);
        counts.exports++;
      } catch (e) {
        fail(String(e));
      }
    };

    // Saturation: 8 closed loops for 10 s (5 s quick) after a short warm-up.
    const closed = async (secs: number) => {
      const end = performance.now() + secs * 1000;
      let done = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (performance.now() < end) if ((await one()) !== undefined) done++;
        }),
      );
      return done / secs;
    };
    step('warming up');
    await closed(options.smoke ? 0.5 : 3);
    step('measuring saturation');
    const saturationRps = await closed(options.smoke ? 1 : options.quick || options.seconds ? 8 : 20);
    const targetRps = Math.max(1, Math.floor(saturationRps * 0.8));
    errors = 0;
    errorSamples.length = 0;
    counts.exports = counts.signIns = counts.writes = 0;

    step(`${seconds} s at ${targetRps} requests/s (80% of ${saturationRps.toFixed(0)})`);
    const rssSeries: number[] = [rssMb(pid)];
    const sampler = setInterval(() => rssSeries.push(rssMb(pid)), 1000);
    const latencies: number[] = [];
    // Eight senders, each paced to an eighth of the rate. One that falls behind (the server is
    // slower than the target) sends its next request at once rather than a burst to catch up,
    // so the achieved rate shows a shortfall instead of an ever-growing queue.
    const SENDERS = 8;
    const interval = (1000 * SENDERS) / targetRps;
    const started = performance.now();
    const end = started + seconds * 1000;
    const exporting: Promise<void>[] = [];
    const exporter = setInterval(() => exporting.push(exportOnce()), exportEveryMs);
    await Promise.all(
      Array.from({ length: SENDERS }, async (_, k) => {
        let next = started + (k * interval) / SENDERS;
        while (next < end) {
          const wait = next - performance.now();
          if (wait > 0) await new Promise((r) => setTimeout(r, wait));
          const ms = await one();
          if (ms !== undefined) latencies.push(ms);
          next = Math.max(next + interval, performance.now());
        }
      }),
    );
    clearInterval(exporter);
    await Promise.all(exporting);
    const elapsed = (performance.now() - started) / 1000;
    clearInterval(sampler);
    rssSeries.push(rssMb(pid));

    latencies.sort((a, b) => a - b);
    const round = (n: number) => Math.round(n * 10) / 10;
    const afterWarmup = rssSeries[Math.min(warmupSeconds, rssSeries.length - 1)]!;
    const endRss = rssSeries.at(-1)!;
    return {
      engine: process.env.DATABASE_URL ? 'postgres' : 'pglite',
      saturationRps: round(saturationRps),
      targetRps,
      seconds,
      requests: latencies.length + errors,
      rps: round((latencies.length + errors) / elapsed),
      errors,
      errorSamples,
      ...counts,
      p50: round(percentile(latencies, 50)),
      p95: round(percentile(latencies, 95)),
      p99: round(percentile(latencies, 99)),
      rss: {
        start: round(rssSeries[0]!),
        afterWarmup: round(afterWarmup),
        end: round(endRss),
        max: round(Math.max(...rssSeries)),
        warmupSeconds,
      },
      flat: Math.abs(endRss - afterWarmup) <= afterWarmup * 0.15,
      rssSeries: rssSeries.map(round),
    };
  } finally {
    await server.close();
  }
}

export function soakMarkdown(r: SoakResult): string {
  return [
    `## Soak (${r.engine}, ${r.seconds} s)`,
    '',
    `Mixed workload: asset pages, filtered pages and the session query, an issue created every ${WRITE_EVERY} requests, a sign-in every ${SIGN_IN_EVERY}, a CSV export every ${EXPORT_EVERY_MS / 1000} s.`,
    '',
    '| saturation | paced at | achieved | requests | errors | exports | p50 | p95 | p99 |',
    '|---|---|---|---|---|---|---|---|---|',
    `| ${r.saturationRps} req/s | ${r.targetRps} req/s | ${r.rps} req/s | ${r.requests} | ${r.errors} | ${r.exports} | ${r.p50} ms | ${r.p95} ms | ${r.p99} ms |`,
    '',
    `Server RSS: ${r.rss.start} MB at start, ${r.rss.afterWarmup} MB after ${r.rss.warmupSeconds} s, ${r.rss.end} MB at the end, ${r.rss.max} MB at most — ${r.flat ? 'flat' : 'NOT flat'} (end within 15% of the value after the warm-up).`,
    ...(r.errorSamples.length
      ? ['', `First errors: ${r.errorSamples.map((e) => `\`${e}\``).join('; ')}`]
      : []),
    '',
  ].join('\n');
}

import { readFileSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import {
  type AbuseKind,
  EXPORT_LINK,
  KINDS,
  localLink,
  type NoisyCounts,
  noCounts,
  PASSWORD,
  postGraphQL,
  signInAs,
  startNoisy,
} from './hostile-noisy.ts';
import { graphql, median, percentile, type Sample, type Server, sample, startServer } from './lib.ts';

export interface HostileBenchResult {
  engine: string;
  /** The normal tenant's paced rate (requests per second) and each phase's length (s). */
  rate: number;
  seconds: number;
  rounds: number;
  /** Wells of each tenant. */
  normalAssets: number;
  hostileAssets: number;
  /** The normal tenant alone, and beside the hostile one: medians over the rounds (ms). */
  baseline: { p50: number; p95: number; p99: number; requests: number };
  abused: { p50: number; p95: number; p99: number; requests: number };
  /** abused p95 / baseline p95. */
  ratio: number;
  /** The calm tenant's p95 (ms) beside one kind of abuse at a time (one phase each, last round). */
  byKind: Record<AbuseKind, number>;
  /**
   * The calm tenant's p95 (ms) by kind of request, alone and beside the noisy tenant (every
   * round): which of its requests the noisy one slows.
   */
  byRequest: Record<CalmRequest, { alone: number; beside: number; count: number }>;
  /**
   * How late the calm tenant's client's own timers fired (p99 over 1-ms timers, worst round, ms),
   * alone and beside the noisy tenant: its timings include that delay, which is the bench
   * machine's, not the server's.
   */
  clientDelay: { alone: number; beside: number };
  /** Failed requests of the normal tenant, over every phase. */
  errors: number;
  errorSamples: string[];
  /** What the hostile tenant sent and how it was answered, over every round. */
  hostile: NoisyCounts;
  /** The server process died or was replaced during the run. */
  restarted: boolean;
  /** ratio ≤ 2 and no error. */
  withinTarget: boolean;
  /** The machine's 1-minute load average at start and end, for the record (2 cores shared). */
  load: { start: number; end: number };
}

type CalmRequest = 'page' | 'filtered' | 'session' | 'search' | 'issue' | 'export';
const READ_KINDS: readonly CalmRequest[] = ['page', 'filtered', 'session', 'search'];

const NORMAL = 'calm';
const HOSTILE = 'noisy';
const ONLY = '["name", "status", "depth", "facilityId"]';

const READS = [
  `{ assets(profile: "well") { all(first: 20) { edges { node { id displayName properties(only: ${ONLY}) } } } } }`,
  `{ assets(profile: "well") { all(first: 20, filter: { property: { name: "status", equals: "producing" } }) { edges { node { id properties(only: ${ONLY}) } } } } }`,
  `{ session { authenticated username userGroup expiresAt } }`,
  `{ assets(profile: "well") { all(first: 10, filter: { search: "well 1" }) { edges { node { id displayName } } } } }`,
];
const CREATE_ISSUE = `mutation($input: CreateIssueInput!) { createIssue(input: $input) { errors { type } issue { id } } }`;

/** Adds what one phase of the noisy tenant sent to the run's totals (first answers kept). */
function add(into: NoisyCounts, phase: NoisyCounts): void {
  for (const key of Object.keys(into) as (keyof NoisyCounts)[])
    if (key !== 'answers') into[key] += phase[key];
  phase.answers.forEach((answer, i) => {
    into.answers[i] ??= answer;
  });
}

function loadAverage(): number {
  try {
    return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  } catch {
    return Number.NaN;
  }
}

/**
 * Noisy neighbour: one tenant (`noisy`) sends abusive documents (the costliest the limits allow,
 * and ones they refuse: too deep, alias floods, 60,000-word searches, 20,000-item `in` lists),
 * starts CSV downloads and stops reading them, and signs in in bursts, while another (`calm`)
 * sends the ordinary mix (pages, filtered pages, the session, an issue every 10 requests, an
 * export every 25) at a fixed rate. Each round measures the calm tenant alone, then beside the
 * noisy one; figures are medians over the rounds. Each tenant comes from its own address
 * (`X-Forwarded-For` behind one trusted proxy), as two customers would.
 */
export async function hostileBench(options: {
  quick: boolean;
  smoke?: boolean;
}): Promise<HostileBenchResult> {
  const seconds = options.smoke ? 2 : options.quick ? 10 : 30;
  const rounds = options.smoke ? 1 : options.quick ? 2 : 3;
  const rate = options.smoke ? 5 : 20;
  const normalAssets = options.smoke ? 200 : 2_000;
  const hostileAssets = options.smoke ? 500 : options.quick ? 20_000 : 50_000;
  const step = (what: string) => process.stderr.write(`bench: hostile: ${what}\n`);
  const loadStart = loadAverage();
  const server = await startServer({ ASSETQL_DEMO_DATA: 'false', ASSETQL_TRUST_PROXY: '1' });
  const pid = server.child.pid;
  try {
    step(`generating ${normalAssets} + ${hostileAssets} wells`);
    await server.cli(['demo', 'generate', '--assets', String(normalAssets), '--group', NORMAL]);
    await server.cli(['demo', 'generate', '--assets', String(hostileAssets), '--group', HOSTILE]);
    const calm = await tenant(server, `${NORMAL}-user`, NORMAL, '198.51.100.10');
    const noisy = await tenant(server, `${HOSTILE}-user`, HOSTILE, '203.0.113.66');

    const errorSamples: string[] = [];
    let errors = 0;
    const failed = (what: string) => {
      errors++;
      if (errorSamples.length < 5) errorSamples.push(what.slice(0, 300));
    };
    let counter = 0;
    /** Where the calm tenant's latencies by kind go in the phase under way (none: not kept). */
    let timings: Map<CalmRequest, number[]> | undefined;
    const alone = new Map<CalmRequest, number[]>();
    const beside = new Map<CalmRequest, number[]>();
    /** One request of the calm tenant's mix, as a Response `sample` reads (`{}` when it went well). */
    const normal = async (): Promise<Response> => {
      const i = ++counter;
      const kind: CalmRequest =
        i % 25 === 5 ? 'export' : i % 10 === 0 ? 'issue' : READ_KINDS[i % READS.length]!;
      const into = timings;
      const t0 = performance.now();
      try {
        if (kind === 'export') {
          const r = await calm.post(EXPORT_LINK);
          const url = r.body.data?.assetProfiles?.byId?.assetsExport?.csvFileDownloadUrl;
          if (!url) throw new Error(`no export link: ${JSON.stringify(r.body)}`);
          const download = await fetch(localLink(url, server.url), {
            headers: calm.headers,
            signal: AbortSignal.timeout(30_000),
          });
          const text = await download.text();
          if (!download.ok || text.split('\n').length < 2) throw new Error(`download ${download.status}`);
        } else if (kind === 'issue') {
          const r = await calm.post(CREATE_ISSUE, { input: { displayName: `calm ${i}` } });
          if (r.status !== 200 || r.body.errors || r.body.data?.createIssue?.errors?.length)
            throw new Error(`${r.status} ${JSON.stringify(r.body)}`);
        } else {
          const r = await calm.post(READS[i % READS.length]!);
          if (r.status !== 200 || r.body.errors) throw new Error(`${r.status} ${JSON.stringify(r.body)}`);
        }
        if (into) {
          const list = into.get(kind) ?? [];
          list.push(performance.now() - t0);
          into.set(kind, list);
        }
        return Response.json({});
      } catch (e) {
        failed(`${String(e)}${(e as Error).cause ? ` (${String((e as Error).cause)})` : ''}`);
        return Response.json({ errors: [String(e)] });
      }
    };

    const hostile = noCounts();
    /** Starts the noisy tenant (in its own process); the returned function stops it. */
    const abuse = (kinds: readonly AbuseKind[] = KINDS) => {
      const stop = startNoisy({
        url: server.url,
        username: noisy.username,
        from: noisy.from,
        headers: noisy.headers,
        kinds,
      });
      return async () => add(hostile, await stop());
    };

    step('warming up');
    await sample({ request: normal, seconds: Math.max(1, seconds / 3), rate });
    errors = 0;
    errorSamples.length = 0;
    const baselines: Sample[] = [];
    const abused: Sample[] = [];
    const clientDelay = { alone: 0, beside: 0 };
    /** Runs `phase`, noting how late this process's timers fired meanwhile (p99, ms). */
    const timed = async <T>(phase: () => Promise<T>, into: 'alone' | 'beside'): Promise<T> => {
      const delay = monitorEventLoopDelay({ resolution: 1 });
      delay.enable();
      try {
        return await phase();
      } finally {
        delay.disable();
        // The histogram holds each interval between two 1-ms timers: what is past 1 ms is delay.
        clientDelay[into] = Math.max(clientDelay[into], delay.percentile(99) / 1e6 - 1);
      }
    };
    for (let round = 0; round < rounds; round++) {
      step(`round ${round + 1}/${rounds}: the calm tenant alone`);
      timings = alone;
      baselines.push(await timed(() => sample({ request: normal, seconds, rate }), 'alone'));
      step(`round ${round + 1}/${rounds}: beside the noisy tenant`);
      timings = undefined;
      const stop = abuse();
      await new Promise((r) => setTimeout(r, 1_000));
      timings = beside;
      abused.push(await timed(() => sample({ request: normal, seconds, rate }), 'beside'));
      timings = undefined;
      await stop();
    }
    const byRequest = {} as HostileBenchResult['byRequest'];
    for (const kind of [...READ_KINDS, 'issue', 'export'] as const) {
      const p95 = (list: number[] = []) =>
        percentile(
          [...list].sort((a, b) => a - b),
          95,
        );
      byRequest[kind] = {
        alone: p95(alone.get(kind)),
        beside: p95(beside.get(kind)),
        count: beside.get(kind)?.length ?? 0,
      };
    }
    const byKind = {} as Record<AbuseKind, number>;
    for (const kind of KINDS) {
      step(`beside ${kind} alone`);
      const stop = abuse([kind]);
      await new Promise((r) => setTimeout(r, 1_000));
      byKind[kind] = (await sample({ request: normal, seconds, rate })).p95;
      await stop();
    }
    const health = await fetch(`${server.url}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    const restarted = server.child.exitCode !== null || server.child.pid !== pid || !health;
    const summary = (s: Sample[]) => ({
      p50: median(s.map((x) => x.p50)),
      p95: median(s.map((x) => x.p95)),
      p99: median(s.map((x) => x.p99)),
      requests: s.reduce((n, x) => n + x.requests, 0),
    });
    const baseline = summary(baselines);
    const during = summary(abused);
    const ratio = during.p95 / baseline.p95;
    return {
      engine: process.env.DATABASE_URL ? 'postgres' : 'pglite',
      rate,
      seconds,
      rounds,
      normalAssets,
      hostileAssets,
      baseline,
      abused: during,
      ratio,
      byKind,
      byRequest,
      clientDelay,
      errors,
      errorSamples,
      hostile,
      restarted,
      withinTarget: ratio <= 2 && errors === 0 && !restarted,
      load: { start: loadStart, end: loadAverage() },
    };
  } finally {
    await server.close();
  }
}

/** A tenant's user, signed in, coming from its own address. */
async function tenant(server: Server, username: string, group: string, address: string) {
  await server.cli(['users', 'add', username, '--group', group, '--password-stdin'], `${PASSWORD}\n`);
  const from = { 'x-forwarded-for': address };
  const signedIn = await graphql(server.url, signInAs(username), {}, from);
  const sessionId = signedIn.headers.get('x-svc-sessionid');
  if (!sessionId) throw new Error(`sign-in failed: ${JSON.stringify(signedIn.body)}`);
  const headers = { ...from, 'x-svc-sessionid': sessionId };
  return {
    username,
    from,
    headers,
    post: (query: string, variables: Record<string, unknown> = {}, session = true) =>
      postGraphQL(server.url, session ? headers : from, JSON.stringify({ query, variables })),
  };
}

const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : '–');

export function hostileMarkdown(r: HostileBenchResult): string {
  const h = r.hostile;
  return [
    `## Noisy neighbour (${r.engine})`,
    '',
    `The calm tenant (${r.normalAssets} wells) at ${r.rate} requests/s, ${r.seconds} s per phase, ${r.rounds} round(s), medians; the noisy tenant (${r.hostileAssets} wells) beside it. Load average ${r.load.start.toFixed(1)} at start, ${r.load.end.toFixed(1)} at end (2 cores, shared).`,
    '',
    '| Calm tenant | p50 ms | p95 ms | p99 ms | requests |',
    '|---|---|---|---|---|',
    `| alone | ${ms(r.baseline.p50)} | ${ms(r.baseline.p95)} | ${ms(r.baseline.p99)} | ${r.baseline.requests} |`,
    `| beside the noisy tenant | ${ms(r.abused.p50)} | ${ms(r.abused.p95)} | ${ms(r.abused.p99)} | ${r.abused.requests} |`,
    '',
    `Beside one kind of abuse at a time, the calm tenant's p95: abusive documents ${ms(r.byKind.documents)} ms, stalled downloads ${ms(r.byKind.downloads)} ms, sign-in bursts ${ms(r.byKind.signIns)} ms.`,
    '',
    `The calm tenant's p95 by request, alone → beside the noisy tenant: ${Object.entries(r.byRequest)
      .map(([k, v]) => `${k} ${ms(v.alone)} → ${ms(v.beside)} ms (${v.count})`)
      .join(
        ', ',
      )}. The calm client's own timers fired late by ${ms(r.clientDelay.alone)} ms alone and ${ms(r.clientDelay.beside)} ms beside the noisy tenant (p99).`,
    '',
    `p95 ratio ${r.ratio.toFixed(2)} (target ≤ 2), calm-tenant errors ${r.errors}${r.errorSamples.length ? ` (${r.errorSamples.join('; ')})` : ''}, server restarted: ${r.restarted ? 'yes' : 'no'} → ${r.withinTarget ? 'within target' : '**outside target**'}.`,
    '',
    `Noisy tenant: ${h.documents} abusive documents (${h.documentsRefused} refused, ${h.documentsServed} served), ${h.exportsStalled} downloads stalled and ${h.exportsRefused} refused, ${h.signIns} sign-ins (${h.signInsThrottled} throttled). First answers: ${h.answers.map((a, i) => `${i + 1}. ${a}`).join('; ')}.`,
    '',
  ].join('\n');
}

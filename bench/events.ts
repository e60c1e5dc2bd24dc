import { readFileSync } from 'node:fs';
import { Agent, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { postgresBinDir, privateCluster } from '../test/helpers/processes.ts';
import { graphql, percentile, pinLoadGenerator, signIn, startServer } from './lib.ts';

/**
 * Live change streams (#38): many clients subscribed over GraphQL over SSE to the one-process
 * server, across groups, while each group's changes come at a steady rate; how long each change
 * takes from its write's answer to each of its group's clients, whether every client got every
 * change of its group exactly once, and what the streams cost the server in memory.
 */
export interface EventsBenchResult {
  engine: 'postgres' | 'pglite';
  streams: number;
  groups: number;
  /** Changes a second, all groups together. */
  rate: number;
  seconds: number;
  changes: number;
  /** Events the clients should have received (each change, once per stream of its group). */
  expected: number;
  delivered: number;
  missing: number;
  duplicates: number;
  /**
   * Whether the writes went through a second `assetql serve` on the same database (PostgreSQL),
   * the streams' server doing nothing but serve them, or through the streams' own server.
   */
  writer: 'other process' | 'same process';
  /**
   * From each change's commit (PostgreSQL's own record, `track_commit_timestamp`, on a server the
   * bench starts for it) to each client's event, in ms; absent without one.
   */
  fromCommitMs?: { p50: number; p95: number; p99: number; max: number };
  /**
   * From the change's own time (`Change.at`: when its writing transaction began, so at or before
   * its commit) to each client's event, in ms: an upper bound of commit → client.
   */
  fromStartMs: { p50: number; p95: number; p99: number; max: number };
  /** From the write's answer (or its sending) to each client's event, in ms. */
  latencyMs: { p50: number; p95: number; p99: number; max: number };
  fromSendMs: { p50: number; p95: number; p99: number };
  /** The server's RSS with the streams open, before the changes, and at the end. */
  rssMb: { streamsOpen: number; end: number; growth: number };
  /** The mutations' own answer times, for reference, and how many were refused as the server was busy. */
  writeMs: { p50: number; p95: number };
  refusedWrites: number;
  /** Cores busy while the changes came: the server's, and this process's (the clients and writers). */
  cpu: { server: number; writer: number; clients: number };
  webhooks: WebhookBenchResult;
}

/**
 * Webhook deliveries: a webhook per group to a receiver in this process that verifies every
 * signature; a burst of changes written at once; how fast they are delivered.
 */
export interface WebhookBenchResult {
  webhooks: number;
  changes: number;
  /** Distinct deliveries received (a delivery keeps its `webhook-id` on every attempt). */
  delivered: number;
  duplicates: number;
  /** Deliveries whose signature did not verify with their webhook's secret. */
  unverified: number;
  /** From the first write's sending to the last delivery. */
  seconds: number;
  perSecond: number;
  /** From a change's write answered to its delivery. */
  lagMs: { p50: number; p95: number };
}

const STREAMS_PER_SESSION = 20;

export async function eventsBench(options: { quick: boolean; smoke: boolean }): Promise<EventsBenchResult> {
  const { smoke, quick } = options;
  const groups = smoke ? 2 : 10;
  const streams = smoke ? 10 : quick ? 200 : 1_000;
  const rate = smoke ? 20 : 200;
  const seconds = smoke ? 2 : quick ? 5 : 15;
  const receiver = await webhookReceiver();
  // On PostgreSQL, one of its own that records when each transaction committed, so that the time
  // from commit to client is read, not bounded (the machine's server has it off, and turning it
  // on takes a restart).
  const cluster = process.env.DATABASE_URL && postgresBinDir() ? await commitTimedCluster() : undefined;
  const server = await startServer({
    ASSETQL_DEMO_DATA: 'false',
    ASSETQL_RATE_LIMITS: JSON.stringify({ signIn: { points: 10_000, seconds: 60 } }),
    ASSETQL_WEBHOOKS: JSON.stringify({ allowedHosts: [`127.0.0.1:${receiver.port}`] }),
    ...(cluster ? { DATABASE_URL: cluster.database } : {}),
  }).catch(async (e) => {
    await cluster?.destroy();
    throw e;
  });
  pinLoadGenerator();
  // On PostgreSQL the writes go through a second server on the same database, as a deployment of
  // several processes behind a load balancer sends them (docs/deploy.md): the streams' server
  // learns of them as it learns of any other process's (NOTIFY, then the log), and the time from
  // commit to client is what the streams cost, not how long a write waited behind 20,000 events
  // a second in the same event loop. It shares the streams' server's core (the clients, on the
  // other, would else hold its writes between their start and their commit).
  const other = process.env.DATABASE_URL && process.env.BENCH_EVENTS_WRITER !== 'same';
  const writerServer = other
    ? await startServer({ ...server.env, DATABASE_URL: server.env.DATABASE_URL! })
    : server;
  const controllers: AbortController[] = [];
  try {
    const names = Array.from({ length: groups }, (_, g) => `events-${g}`);
    // A user per group, with enough sessions for its share of the streams.
    const sessions = new Map<string, string[]>();
    for (const group of names) {
      await server.cli(['demo', 'generate', '--assets', '1', '--group', group]);
      await server.cli(
        ['users', 'add', `bencher-${group}`, '--group', group, '--password-stdin'],
        'a bench password here\n',
      );
      const count = Math.ceil(streams / groups / STREAMS_PER_SESSION);
      const list: string[] = [];
      for (let i = 0; i < count; i++) list.push(await signIn(server.url, `bencher-${group}`));
      sessions.set(group, list);
    }

    // Every event each stream receives: the change's asset id and when it arrived.
    const received: { group: string; seen: Map<string, number[]> }[] = [];
    // Each change's own time (`Change.at`), by asset id, in this process's performance clock.
    const changedAt = new Map<string, number>();
    // Opened 50 at a time, as clients that connect over a while: a burst of a thousand from one
    // tenant at once is what the fairness scheduler refuses (429, retried after its Retry-After).
    const open = async (s: number) => {
      const group = names[s % groups]!;
      const session = sessions.get(group)![Math.floor(s / groups / STREAMS_PER_SESSION)]!;
      const seen = new Map<string, number[]>();
      received.push({ group, seen });
      const controller = new AbortController();
      controllers.push(controller);
      for (let attempt = 0; ; attempt++) {
        const status = await stream(server.url, session, seen, changedAt, controller.signal);
        if (status === 429 && attempt < 20) {
          await new Promise((r) => setTimeout(r, 100 * (attempt + 1)));
          continue;
        }
        if (status !== 200) throw new Error(`stream answered ${status}`);
        return;
      }
    };
    for (let s = 0; s < streams; s += 50)
      await Promise.all(Array.from({ length: Math.min(50, streams - s) }, (_, i) => open(s + i)));
    // Every stream is in: its server has registered it (a stream starts from where the log stands).
    await new Promise((r) => setTimeout(r, smoke ? 500 : 2_000));
    const rssOpen = rssMb(server.child.pid!);

    const sentAt = new Map<string, number>();
    const answeredAt = new Map<string, number>();
    const writeTimes: number[] = [];
    let refusedWrites = 0;
    const total = rate * seconds;
    const perGroup = Math.floor(total / groups);
    const writing: Promise<void>[] = [];
    const writer = sessions;
    const start = performance.now();
    const serverCpu0 = cpuSeconds(server.child.pid!);
    const writerCpu0 = cpuSeconds(writerServer.child.pid!);
    const ownCpu0 = process.cpuUsage();
    for (let i = 0; i < perGroup; i++) {
      for (let g = 0; g < groups; g++) {
        const n = i * groups + g;
        // Spread evenly: change n goes out at n / rate seconds.
        const due = start + (n * 1000) / rate;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const group = names[g]!;
        const id = `B-${group}-${i}`;
        sentAt.set(id, performance.now());
        const write = async (): Promise<void> => {
          for (let attempt = 0; ; attempt++) {
            const r = await graphql(
              writerServer.url,
              'mutation($input: UpsertAssetsInput!) { upsertAssets(input: $input) { errors { message } } }',
              { input: { profile: 'site', assets: [{ id, properties: { name: id } }] } },
              { 'x-svc-sessionid': writer.get(group)![0]! },
            );
            // A busy server's refusals (fairness, a pool that could not answer in time) are retried, and counted.
            const code = r.body.errors?.[0]?.extensions?.code;
            if ((code === 'REQUEST_RATE_LIMITED' || code === 'SERVICE_UNAVAILABLE') && attempt < 50) {
              refusedWrites++;
              await new Promise((res) => setTimeout(res, 50));
              continue;
            }
            if (r.body.errors || r.body.data?.upsertAssets?.errors?.length)
              throw new Error(`write failed: ${JSON.stringify(r.body)}`);
            const now = performance.now();
            answeredAt.set(id, now);
            writeTimes.push(now - sentAt.get(id)!);
            return;
          }
        };
        writing.push(write());
      }
    }
    await Promise.all(writing);
    // The last changes reach their clients.
    const expected = perGroup * streams;
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline && countDelivered(received) < expected)
      await new Promise((r) => setTimeout(r, 100));
    const busy = (performance.now() - start) / 1000;
    const serverCpu = (cpuSeconds(server.child.pid!) - serverCpu0) / busy;
    const writerCpu = (cpuSeconds(writerServer.child.pid!) - writerCpu0) / busy;
    const own = process.cpuUsage(ownCpu0);
    const clientCpu = (own.user + own.system) / 1e6 / busy;
    await new Promise((r) => setTimeout(r, 500));
    const rssEnd = rssMb(server.child.pid!);
    for (const c of controllers) c.abort();
    const webhooks = await webhookPhase(
      server.url,
      names,
      sessions,
      receiver,
      smoke ? 20 : quick ? 300 : 1_000,
    );

    // When each change committed, from the cluster's own record, in this process's clock.
    const committedAt = cluster ? await commitTimes(cluster.database) : undefined;
    let delivered = 0;
    let missing = 0;
    let duplicates = 0;
    const latencies: number[] = [];
    const fromSend: number[] = [];
    const fromCommit: number[] = [];
    const fromStart: number[] = [];
    for (const { group, seen } of received) {
      for (let i = 0; i < perGroup; i++) {
        const id = `B-${group}-${i}`;
        const times = seen.get(id);
        if (!times) {
          missing++;
          continue;
        }
        delivered += times.length;
        duplicates += times.length - 1;
        latencies.push(Math.max(0, times[0]! - answeredAt.get(id)!));
        fromStart.push(times[0]! - changedAt.get(id)!);
        const committed = committedAt?.get(id);
        if (committed !== undefined) fromCommit.push(times[0]! - committed);
        fromSend.push(times[0]! - sentAt.get(id)!);
      }
    }
    latencies.sort((a, b) => a - b);
    fromCommit.sort((a, b) => a - b);
    fromStart.sort((a, b) => a - b);
    fromSend.sort((a, b) => a - b);
    writeTimes.sort((a, b) => a - b);
    const r1 = (x: number) => Math.round(x * 10) / 10;
    /** Of sorted times: their median, 95th and 99th percentiles and largest, to a tenth of a ms. */
    const spread = (sorted: number[]) => ({
      p50: r1(percentile(sorted, 50)),
      p95: r1(percentile(sorted, 95)),
      p99: r1(percentile(sorted, 99)),
      max: r1(sorted.at(-1) ?? 0),
    });
    return {
      engine: process.env.DATABASE_URL ? 'postgres' : 'pglite',
      streams,
      groups,
      rate,
      seconds,
      changes: perGroup * groups,
      expected,
      delivered,
      missing,
      duplicates,
      writer: writerServer === server ? 'same process' : 'other process',
      ...(fromCommit.length
        ? {
            fromCommitMs: spread(fromCommit),
          }
        : {}),
      fromStartMs: spread(fromStart),
      latencyMs: spread(latencies),
      fromSendMs: {
        p50: r1(percentile(fromSend, 50)),
        p95: r1(percentile(fromSend, 95)),
        p99: r1(percentile(fromSend, 99)),
      },
      rssMb: { streamsOpen: rssOpen, end: rssEnd, growth: r1(rssEnd - rssOpen) },
      writeMs: { p50: r1(percentile(writeTimes, 50)), p95: r1(percentile(writeTimes, 95)) },
      refusedWrites,
      cpu: {
        server: Math.round(serverCpu * 100) / 100,
        writer: writerServer === server ? 0 : Math.round(writerCpu * 100) / 100,
        clients: Math.round(clientCpu * 100) / 100,
      },
      webhooks,
    };
  } finally {
    for (const c of controllers) c.abort();
    if (writerServer !== server) await writerServer.close();
    await server.close();
    await cluster?.destroy();
    receiver.close();
  }
}

interface Receiver {
  port: number;
  /** Each group's webhook secret, once made. */
  secrets: Map<string, string>;
  /** Per delivery id: when it first arrived, and how often. */
  received: Map<string, { at: number; times: number; entityId: string }>;
  unverified: number;
  close(): void;
}

/** A receiver at `/hook/<group>` answering 204 at once, after verifying the signature. */
async function webhookReceiver(): Promise<Receiver> {
  const r: Receiver = { port: 0, secrets: new Map(), received: new Map(), unverified: 0, close: () => {} };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const group = decodeURIComponent(req.url?.split('/').pop() ?? '');
      const secret = r.secrets.get(group);
      let entityId = '';
      try {
        const verified = new Webhook(secret ?? 'whsec_none').verify(
          body,
          req.headers as Record<string, string>,
        ) as {
          data: { entityId: string };
        };
        entityId = verified.data.entityId;
      } catch {
        r.unverified++;
      }
      const id = String(req.headers['webhook-id']);
      const seen = r.received.get(id);
      if (seen) seen.times++;
      else r.received.set(id, { at: performance.now(), times: 1, entityId });
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  r.port = (server.address() as AddressInfo).port;
  r.close = () => {
    server.closeAllConnections();
    server.close();
  };
  return r;
}

/**
 * A webhook per group, then `perGroup` new assets per group written at once (upserts of 250),
 * every group at the same time; waits for every delivery (60 s at most).
 */
async function webhookPhase(
  base: string,
  groups: string[],
  sessions: Map<string, string[]>,
  receiver: Receiver,
  perGroup: number,
): Promise<WebhookBenchResult> {
  for (const group of groups) {
    const made = await graphql(
      base,
      'mutation($input: CreateWebhookInput!) { createWebhook(input: $input) { secret errors { message } } }',
      {
        input: {
          url: `http://127.0.0.1:${receiver.port}/hook/${encodeURIComponent(group)}`,
          filter: { entities: ['ASSET'], kinds: ['CREATED'] },
        },
      },
      { 'x-svc-sessionid': sessions.get(group)![0]! },
    );
    if (made.body.errors || made.body.data.createWebhook.errors.length)
      throw new Error(`createWebhook failed: ${JSON.stringify(made.body)}`);
    receiver.secrets.set(group, made.body.data.createWebhook.secret);
  }
  const answeredAt = new Map<string, number>();
  const start = performance.now();
  const BATCH = 250;
  await Promise.all(
    groups.map(async (group) => {
      for (let from = 0; from < perGroup; from += BATCH) {
        const assets = Array.from({ length: Math.min(BATCH, perGroup - from) }, (_, i) => ({
          id: `W-${group}-${from + i}`,
          properties: { name: `webhook ${from + i}` },
        }));
        const r = await graphql(
          base,
          'mutation($input: UpsertAssetsInput!) { upsertAssets(input: $input) { errors { message } } }',
          { input: { profile: 'site', assets } },
          { 'x-svc-sessionid': sessions.get(group)![0]! },
        );
        if (r.body.errors || r.body.data?.upsertAssets?.errors?.length)
          throw new Error(`write failed: ${JSON.stringify(r.body).slice(0, 500)}`);
        const now = performance.now();
        for (const a of assets) answeredAt.set(a.id, now);
      }
    }),
  );
  const changes = perGroup * groups.length;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline && receiver.received.size < changes)
    await new Promise((r) => setTimeout(r, 50));
  let last = start;
  let duplicates = 0;
  const lags: number[] = [];
  for (const { at, times, entityId } of receiver.received.values()) {
    last = Math.max(last, at);
    duplicates += times - 1;
    const answered = answeredAt.get(entityId);
    if (answered !== undefined) lags.push(Math.max(0, at - answered));
  }
  lags.sort((a, b) => a - b);
  const seconds = (last - start) / 1000;
  return {
    webhooks: groups.length,
    changes,
    delivered: receiver.received.size,
    duplicates,
    unverified: receiver.unverified,
    seconds: Math.round(seconds * 100) / 100,
    perSecond: Math.round(receiver.received.size / Math.max(seconds, 0.001)),
    lagMs: { p50: Math.round(percentile(lags, 50)), p95: Math.round(percentile(lags, 95)) },
  };
}

function countDelivered(received: { seen: Map<string, number[]> }[]): number {
  let n = 0;
  for (const { seen } of received) for (const times of seen.values()) n += times.length;
  return n;
}

const ENTITY = /"entityId":"([^"]+)","at":"([^"]+)"/g;
const BODY = JSON.stringify({
  query: 'subscription { changes(filter: { kinds: [CREATED] }) { entityId at } }',
});
const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY });

/**
 * Opens one stream over node:http (lighter per event than fetch: a thousand clients share this
 * process) and notes when each change's asset id arrived; resolves with the answer's status once
 * its headers are in, and reads on until `signal` fires.
 */
function stream(
  base: string,
  session: string,
  seen: Map<string, number[]>,
  changedAt: Map<string, number>,
  signal: AbortSignal,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${base}/api/graphql`,
      {
        method: 'POST',
        agent,
        signal,
        headers: {
          'content-type': 'application/json',
          accept: 'text/event-stream',
          'x-svc-sessionid': session,
          'content-length': Buffer.byteLength(BODY),
        },
      },
      (response) => {
        resolve(response.statusCode ?? 0);
        if (response.statusCode !== 200) {
          response.resume();
          return;
        }
        response.setEncoding('utf8');
        // An id is whole within one event, and events end with a blank line: what is left after
        // the last one waits for the next chunk.
        let rest = '';
        response.on('data', (chunk: string) => {
          const now = performance.now();
          const text = rest + chunk;
          const cut = text.lastIndexOf('\n\n');
          rest = cut === -1 ? text : text.slice(cut + 2);
          if (cut === -1) return;
          for (const m of text.slice(0, cut).matchAll(ENTITY)) {
            const times = seen.get(m[1]!);
            if (times) times.push(now);
            else seen.set(m[1]!, [now]);
            // The wall clock of the change's time, in this process's performance clock (one
            // machine, one clock).
            if (!changedAt.has(m[1]!)) changedAt.set(m[1]!, Date.parse(m[2]!) - performance.timeOrigin);
          }
        });
        response.on('error', () => {});
      },
    );
    request.on('error', (e) => (signal.aborted ? resolve(0) : reject(e)));
    request.end(BODY);
  });
}

/** CPU time a process has used, in seconds (utime + stime of /proc/<pid>/stat). */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function rssMb(pid: number): number {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
  return Math.round(kb / 102.4) / 10;
}

export function eventsMarkdown(r: EventsBenchResult): string {
  return [
    '## Change streams',
    '',
    `${r.streams} clients subscribed over GraphQL over SSE to one \`assetql serve\` (${r.engine}), across ${r.groups} groups; ${r.rate} changes a second for ${r.seconds} s, each an upsert of one asset through GraphQL ${r.writer === 'other process' ? 'sent to a second `assetql serve` on the same database' : 'sent to the same server'}, spread evenly over the groups. Each client reads every change of its group.`,
    '',
    '| | figure |',
    '|---|---|',
    `| changes | ${r.changes} |`,
    `| events expected / delivered | ${r.expected} / ${r.delivered} |`,
    `| missing, duplicated | ${r.missing}, ${r.duplicates} |`,
    ...(r.fromCommitMs
      ? [
          `| **from the change's commit to the client**, p50 / p95 / p99 / max | ${r.fromCommitMs.p50} / ${r.fromCommitMs.p95} / ${r.fromCommitMs.p99} / ${r.fromCommitMs.max} ms |`,
        ]
      : []),
    `| from the change's time (its transaction's start, before its commit) to the client, p50 / p95 / p99 / max | ${r.fromStartMs.p50} / ${r.fromStartMs.p95} / ${r.fromStartMs.p99} / ${r.fromStartMs.max} ms |`,
    `| latency from the write's answer, p50 / p95 / p99 / max | ${r.latencyMs.p50} / ${r.latencyMs.p95} / ${r.latencyMs.p99} / ${r.latencyMs.max} ms |`,
    `| from the write's sending, p50 / p95 / p99 | ${r.fromSendMs.p50} / ${r.fromSendMs.p95} / ${r.fromSendMs.p99} ms |`,
    `| the writes' own answer, p50 / p95 | ${r.writeMs.p50} / ${r.writeMs.p95} ms |`,
    `| writes refused while the server was busy (retried) | ${r.refusedWrites} |`,
    `| cores busy while the changes came: streams' server, writes' server, clients | ${r.cpu.server}, ${r.writer === 'other process' ? r.cpu.writer : '(the same)'}, ${r.cpu.clients} |`,
    `| server RSS with the streams open → at the end | ${r.rssMb.streamsOpen} → ${r.rssMb.end} MB (${r.rssMb.growth >= 0 ? '+' : ''}${r.rssMb.growth}) |`,
    '',
    ...(r.webhooks
      ? [
          '### Webhook deliveries',
          '',
          `The streams closed, a webhook per group (${r.webhooks.webhooks}) to a receiver in the bench process that verifies every signature (\`standardwebhooks\`) and answers 204; then ${r.webhooks.changes} new assets written at once, upserts of 250 in each group at the same time.`,
          '',
          '| | figure |',
          '|---|---|',
          `| deliveries expected / received | ${r.webhooks.changes} / ${r.webhooks.delivered} |`,
          `| duplicated, signatures not verified | ${r.webhooks.duplicates}, ${r.webhooks.unverified} |`,
          `| deliveries a second (first write sent → last delivery) | ${r.webhooks.perSecond} (${r.webhooks.seconds} s) |`,
          `| from a write's answer to its delivery, p50 / p95 | ${r.webhooks.lagMs.p50} / ${r.webhooks.lagMs.p95} ms |`,
          '',
        ]
      : []),
  ].join('\n');
}

/**
 * A PostgreSQL of the bench's own (`initdb`) that records each transaction's commit time, with
 * room for two servers' pools and a database for them; stopped and deleted by `destroy`.
 */
async function commitTimedCluster(): Promise<{ database: string; destroy(): Promise<void> }> {
  const cluster = await privateCluster();
  try {
    await onePass(cluster.url, [
      'alter system set track_commit_timestamp = on',
      'alter system set max_connections = 200',
    ]);
    await cluster.stop();
    await cluster.start();
    await onePass(cluster.url, ['create database events']);
  } catch (e) {
    await cluster.destroy();
    throw e;
  }
  const url = new URL(cluster.url);
  url.pathname = '/events';
  return { database: url.toString(), destroy: () => cluster.destroy() };
}

async function onePass(url: string, statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const s of statements) await client.query(s);
  } finally {
    await client.end();
  }
}

/** When each bench asset's creation committed, by asset id, in this process's performance clock. */
async function commitTimes(database: string): Promise<Map<string, number>> {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string; ms: string }>(
      `select entity_id as id, extract(epoch from pg_xact_commit_timestamp(xid(tx))) * 1000 as ms
       from changes where entity = 'ASSET' and kind = 'CREATED' and entity_id like 'B-%'`,
    );
    return new Map(rows.map((r) => [r.id, Number(r.ms) - performance.timeOrigin]));
  } finally {
    await client.end();
  }
}

import contentDisposition from 'content-disposition';
import { type ExportLimits, exportLimits } from '../../../config/index.ts';
import type { Clock } from '../../../shared/clock.ts';
import type { AccountStanding } from '../../../shared/identity.ts';
import type { Logger } from '../../../shared/logger.ts';
import { type Metrics, NO_METRICS } from '../../../shared/metrics.ts';
import { ownedStream } from '../../../shared/streams.ts';
import type { Database } from '../../../storage/database.ts';
import { EXPORTS_ROUTE } from '../descriptor.ts';
import { downloadById } from './downloads.ts';
import { ExportSlots } from './slots.ts';
import { resolveExport } from './spec.ts';
import { type ExportFormat, exportBytes } from './stream.ts';
import type { ExportTokens } from './tokens.ts';

const CONTENT_TYPES: Record<ExportFormat, string> = {
  CSV: 'text/csv; charset=utf-8; header=present',
  XLSX: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

/** What a busy answer asks a client to wait: about as long as a never-read download keeps its slot. */
const RETRY_AFTER_SECONDS = 10;

/** RFC 9457 problem details: a clear reason, nothing about the file. */
function problem(status: number, title: string, detail: string): Response {
  return new Response(JSON.stringify({ type: 'about:blank', title, status, detail }), {
    status,
    headers: { 'content-type': 'application/problem+json', 'cache-control': 'no-store' },
  });
}

export interface ExportHandlerDeps {
  database: Pick<Database, 'db' | 'pool' | 'engine'>;
  tokens: ExportTokens;
  /** Whether a link's maker may still export the group's data (auth's rule, handed over). */
  standing: AccountStanding;
  clock: Clock;
  log: Logger;
  /**
   * Bounds on downloads in this process. Each download holds a pooled database connection while
   * it streams, so without them a few slow downloads would starve the API.
   * @default DEFAULT_EXPORT_LIMITS
   */
  limits?: Partial<ExportLimits>;
  /** Counts downloads started and ended, and their bytes @default NO_METRICS */
  metrics?: Metrics;
}

/**
 * Serves `GET /exports/{token}`: the signed token is the only credential (like a pre-signed
 * object URL), so the link works in a browser or `curl` without a session. A tampered token
 * gets 403, an expired one 410, a revoked download 404, a link whose maker is no longer in good
 * standing in the group 403; no byte of data goes out before the export has been checked
 * against the profile as it is now.
 */
export function createExportHandler(deps: ExportHandlerDeps) {
  const limits = exportLimits(deps.limits);
  const slots = new ExportSlots(limits);
  const log = deps.log;
  const metrics = deps.metrics ?? NO_METRICS;
  return async (request: Request): Promise<Response> => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return new Response(null, { status: 405, headers: { allow: 'GET, HEAD' } });
    }
    const { pathname } = new URL(request.url);
    const token = pathname.slice(EXPORTS_ROUTE.path.length).split('/')[0] ?? '';
    const now = deps.clock.now();
    const check = deps.tokens.verify(token, Math.floor(now.getTime() / 1000));
    if (!check.ok) {
      return check.type === 'EXPIRED'
        ? problem(410, 'Link expired', 'This download link has expired; ask for a new one.')
        : problem(403, 'Invalid link', 'This download link is not valid.');
    }
    const payload = check.value;
    // The slot is taken before any database work, so that a burst of downloads beyond the
    // group's share is refused without a query; a HEAD streams nothing and needs none.
    const slot = request.method === 'GET' ? slots.take(payload.g) : undefined;
    if (slot && !slot.ok) {
      const busy = problem(
        503,
        'Exports busy',
        slot.type === 'TENANT_SHARE'
          ? `Your group already has ${limits.maxPerTenant} ${limits.maxPerTenant === 1 ? 'export' : 'exports'} streaming, its most at once; try again when one has finished.`
          : 'Too many exports are running; try again in a few seconds.',
      );
      busy.headers.set('retry-after', String(RETRY_AFTER_SECONDS));
      return busy;
    }
    // Until the body owns it, every way out (a refusal, a failed check) gives the slot back.
    let owned = false;
    try {
      let spec: { profile: string; properties: string[] | null; filter: Record<string, unknown> | null };
      let format: ExportFormat;
      let name: string;
      let maker: string;
      if (payload.k === 'q') {
        spec = { profile: payload.p, properties: payload.c, filter: payload.w };
        format = payload.f;
        name = payload.n;
        maker = payload.u;
      } else {
        const row = await downloadById(deps.database.db, payload.g, payload.d);
        if (!row) return problem(404, 'No such download', 'This download does not exist or was withdrawn.');
        if (row.expires_at <= now)
          return problem(410, 'Link expired', 'This download has expired; ask for a new one.');
        spec = { profile: row.profile, properties: row.properties, filter: row.predicate };
        format = row.format;
        name = row.name;
        maker = row.created_by;
      }
      // A link acts for whoever made it, so it works only while they could still read the data
      // themselves: a maker disabled, removed, or gone from the group (or none named) ends it.
      if (maker === '' || !(await deps.standing.inGoodStanding(maker, payload.g))) {
        return problem(
          403,
          'Link withdrawn',
          'Whoever made this link can no longer export this data; ask a current member for a new link.',
        );
      }
      const resolved = await resolveExport(deps.database.db, payload.g, spec);
      if (!resolved.ok) {
        return problem(409, 'Export no longer fits the profile', `${resolved.message} Ask for a new link.`);
      }
      const headers = {
        'content-type': CONTENT_TYPES[format],
        'content-disposition': contentDisposition(`${name}.${format === 'XLSX' ? 'xlsx' : 'csv'}`),
        'cache-control': 'private, no-store',
        'x-content-type-options': 'nosniff',
      };
      if (!slot) return new Response(null, { status: 200, headers });
      const bytes = exportBytes(deps.database, resolved.value, format);
      const body = ownedStream({
        // Counted only when metrics are on: off, the bytes flow exactly as before.
        source: deps.metrics ? counted(bytes, (n) => metrics.exportBytes(format, n)) : bytes,
        // The client went away (directly, or through the gateway that forwards its abort).
        signal: request.signal,
        // A download nobody starts reading (a link opened and left, a client that never reads)
        // gives its slot back soon; one whose reader stops part-way, after the longer idle limit.
        // Either way its database connection is returned and the connection cut.
        firstByteMs: limits.firstByteSeconds * 1000,
        idleMs: limits.idleSeconds * 1000,
        log,
        onEnd(end) {
          slot.value.release();
          metrics.exportEnded(format, end.kind);
          if (end.kind === 'failed') log.error({ err: end.error }, 'export failed while streaming');
          else if (end.kind === 'idle')
            log.warn({ waitingFor: end.waitingFor }, 'export abandoned: the reader stopped reading');
          else if (end.kind === 'aborted') log.debug('export cancelled: the reader went away');
        },
      });
      owned = true;
      metrics.exportStarted(format);
      return new Response(body, { status: 200, headers });
    } finally {
      if (!owned) slot?.value.release();
    }
  };
}

/** The chunks of `source`, each counted as it passes (metrics off: a no-op per chunk). */
async function* counted(
  source: AsyncIterable<Buffer>,
  count: (bytes: number) => void,
): AsyncGenerator<Buffer> {
  for await (const chunk of source) {
    count(chunk.byteLength);
    yield chunk;
  }
}

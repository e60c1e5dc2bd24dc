import contentDisposition from 'content-disposition';
import type { Clock } from '../../../shared/clock.ts';
import type { Logger } from '../../../shared/logger.ts';
import type { Database } from '../../../storage/database.ts';
import { downloadById } from './downloads.ts';
import { resolveExport } from './spec.ts';
import { type ExportFormat, exportBytes } from './stream.ts';
import type { ExportTokens } from './tokens.ts';

/** Where the assets subgraph serves files; the gateway forwards `/api/exports/*` here. */
export const SUBGRAPH_EXPORTS_PATH = '/exports/';

/** How long an export waits for its reader before giving up its database connection. */
const IDLE_MS = 2 * 60 * 1000;

const CONTENT_TYPES: Record<ExportFormat, string> = {
  CSV: 'text/csv; charset=utf-8; header=present',
  XLSX: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

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
  clock: Clock;
  log: Logger;
  /**
   * Exports streaming at once in this process. Each holds a pooled database connection for
   * its whole download, so without a bound a few slow downloads would starve the API.
   * @default MAX_CONCURRENT_EXPORTS
   */
  maxConcurrent?: number;
}

/** At most this many exports stream at once per process; more get 503 with Retry-After. */
export const MAX_CONCURRENT_EXPORTS = 3;

/**
 * Serves `GET /exports/{token}`: the signed token is the only credential (like a pre-signed
 * object URL), so the link works in a browser or `curl` without a session. A tampered token
 * gets 403, an expired one 410, a revoked download 404; no byte of data goes out before the
 * export has been checked against the profile as it is now.
 */
export function createExportHandler(deps: ExportHandlerDeps) {
  const maxConcurrent = deps.maxConcurrent ?? MAX_CONCURRENT_EXPORTS;
  let active = 0;
  return async (request: Request): Promise<Response> => {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return new Response(null, { status: 405, headers: { allow: 'GET, HEAD' } });
    }
    const { pathname } = new URL(request.url);
    const token = pathname.slice(SUBGRAPH_EXPORTS_PATH.length).split('/')[0] ?? '';
    const now = deps.clock.now();
    const check = deps.tokens.verify(token, Math.floor(now.getTime() / 1000));
    if (!check.ok) {
      return check.reason === 'EXPIRED'
        ? problem(410, 'Link expired', 'This download link has expired; ask for a new one.')
        : problem(403, 'Invalid link', 'This download link is not valid.');
    }
    const { payload } = check;
    let spec: { profile: string; properties: string[] | null; filter: Record<string, unknown> | null };
    let format: ExportFormat;
    let name: string;
    if (payload.k === 'q') {
      spec = { profile: payload.p, properties: payload.c, filter: payload.w };
      format = payload.f;
      name = payload.n;
    } else {
      const row = await downloadById(deps.database.db, payload.g, payload.d);
      if (!row) return problem(404, 'No such download', 'This download does not exist or was withdrawn.');
      if (row.expires_at <= now)
        return problem(410, 'Link expired', 'This download has expired; ask for a new one.');
      spec = { profile: row.profile, properties: row.properties, filter: row.predicate };
      format = row.format;
      name = row.name;
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
    if (request.method === 'HEAD') return new Response(null, { status: 200, headers });
    if (active >= maxConcurrent) {
      const busy = problem(503, 'Exports busy', 'Too many exports are running; try again in a few seconds.');
      busy.headers.set('retry-after', '10');
      return busy;
    }
    active++;
    let released = false;
    const release = () => {
      if (!released) active--;
      released = true;
      clearTimeout(idle);
    };
    const bytes = exportBytes(deps.database, resolved.value, format);
    const log = deps.log;
    // A reader that stops reading (or never starts) without going away would hold a database
    // connection and a slot; after IDLE_MS without a read the export is abandoned.
    let idle: NodeJS.Timeout | undefined;
    const abandonLater = (controller: ReadableStreamDefaultController<Uint8Array>) => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        log.warn('export abandoned: the reader stopped reading');
        release();
        controller.error(new Error('export reader idle'));
        void bytes.return(undefined);
      }, IDLE_MS);
      idle.unref();
    };
    const body = new ReadableStream<Uint8Array>(
      {
        start(controller) {
          abandonLater(controller);
        },
        async pull(controller) {
          clearTimeout(idle);
          try {
            const next = await bytes.next();
            if (next.done) {
              release();
              return controller.close();
            }
            controller.enqueue(next.value);
            abandonLater(controller);
          } catch (err) {
            release();
            log.error({ err }, 'export failed while streaming');
            controller.error(err);
          }
        },
        async cancel() {
          release();
          await bytes.return(undefined);
        },
      },
      // Nothing is read from the database until the reader asks for the first bytes.
      { highWaterMark: 0 },
    );
    return new Response(body, { status: 200, headers });
  };
}

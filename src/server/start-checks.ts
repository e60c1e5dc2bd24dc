import { existsSync, mkdirSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sql } from 'kysely';
import type { Database } from '../storage/database.ts';
import { type Listening, listen } from './listen.ts';

/**
 * What a start checks before it writes anything, in this order: the port (held at once), the
 * database a URL names (reached), the data dir (made and written). A start that fails one of
 * them stops with one line naming the setting to change (`PORT`, `DATABASE_URL`, `DATA_DIR`),
 * before any migration or demo data, and leaves the data dir as it found it.
 */
export class StartError extends Error {
  override name = 'StartError';
}

/** Binds the port the server will answer on; until it is handed the app, it answers 503. */
export async function holdPort(port: number, host: string): Promise<Listening> {
  try {
    return await listen(undefined, port, host);
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN')
      throw new StartError(
        `HOST ${host} is not an address of this machine: set HOST to one of its addresses`,
      );
    throw portRefusal(e, 'PORT', 'PORT', port, host);
  }
}

/** Binds the metrics port (ASSETQL_METRICS_PORT) the same way, before anything is written. */
export async function holdMetricsPort<T>(port: number, host: string, bind: () => Promise<T>): Promise<T> {
  try {
    return await bind();
  } catch (e) {
    throw portRefusal(e, 'ASSETQL_METRICS_PORT', 'it', port, host);
  }
}

/** A port that could not be bound, as the one line naming `setting` (`fix`: how the line names it again); else `e`. */
function portRefusal(e: unknown, setting: string, fix: string, port: number, host: string): unknown {
  const code = (e as { code?: unknown }).code;
  if (code === 'EADDRINUSE')
    return new StartError(
      `${setting} ${port} on ${host} is in use by another process: stop it, or set ${setting} to a free port`,
    );
  if (code === 'EACCES')
    return new StartError(
      `${setting} ${port} on ${host} needs privileges this process does not have: set ${fix} to 1024 or above`,
    );
  return e;
}

/** Runs one statement on the database `url` names; a failure is named as DATABASE_URL's. */
export async function reachDatabase(database: Database, url: string): Promise<void> {
  try {
    await sql`select 1`.execute(database.db);
  } catch (e) {
    const reason = e instanceof Error ? e.message || (e as { code?: string }).code || e.name : String(e);
    throw new StartError(
      `cannot use the database DATABASE_URL names (${withoutPassword(url)}): ${reason.replace(/\s*\n\s*/g, ' ')}; ` +
        'check DATABASE_URL, and that PostgreSQL runs there',
    );
  }
}

/**
 * Makes `dir` (and what it lacks above it) and checks that this process can write in it; a
 * failure is named as DATA_DIR's. Returns what undoes it for a start that fails later: the
 * folders it made, each removed only while empty.
 */
export function prepareDataDir(dir: string): () => void {
  // The folders this start makes: from the first missing one above `dir` down to `dir` itself.
  const missing: string[] = [];
  for (let at = dir; !existsSync(at) && dirname(at) !== at; at = dirname(at)) missing.push(at);
  const undo = () => {
    for (const at of missing) {
      try {
        rmdirSync(at);
      } catch (e) {
        // Not empty (something was written there after all), gone, or not this start's to
        // remove: left as it is, and the start's own error stays the one reported.
        if (typeof (e as { code?: unknown }).code === 'string') return;
        throw e;
      }
    }
  };
  try {
    mkdirSync(dir, { recursive: true });
    const probe = join(dir, `.assetql-probe-${process.pid}`);
    writeFileSync(probe, '');
    rmSync(probe);
  } catch (e) {
    undo();
    throw dataDirError(dir, e);
  }
  return undo;
}

/** Runs `fn`, which writes in the data dir; a file system failure is named as DATA_DIR's. */
export async function inDataDir<T>(dir: string, fn: () => T | Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (typeof (e as { syscall?: unknown }).syscall === 'string') throw dataDirError(dir, e);
    throw e;
  }
}

function dataDirError(dir: string, e: unknown): StartError {
  const reason = e instanceof Error ? e.message : String(e);
  return new StartError(
    `DATA_DIR ${dir} cannot be used (${reason}): set DATA_DIR to a folder this user can write`,
  );
}

/**
 * The URL as it may be shown: scheme, user, host, port and database; never a password, in its
 * place or in the query string (`?password=`, `sslpassword=`, `sslkey=`…, all left out).
 */
function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    const user = parsed.username ? `${parsed.username}${parsed.password ? ':***' : ''}@` : '';
    return `${parsed.protocol}//${user}${parsed.host}${parsed.pathname}`;
  } catch (e) {
    if (e instanceof TypeError) return '(not a URL)';
    throw e;
  }
}

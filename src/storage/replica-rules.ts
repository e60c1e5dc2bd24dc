// The read routing's decisions (storage/replicas.ts), as functions of what they are given.

/** What a statement is to the router: a read a replica may answer, a write, or a setting. */
export type StatementKind = 'read' | 'write' | 'setting';

const READ = /^\s*\(*\s*(select|with|values|table)\b/i;
const SETTING = /^\s*(set|reset|show)\b/i;
/** What makes a read statement write or lock: it goes to the primary, as a write. */
const WRITING =
  /\b(insert|update|delete|merge|truncate|copy|lock|nextval|setval|pg_notify|pg_advisory_\w+|for\s+(share|key\s+share))\b/i;

/** A statement's kind by its text: a read only when nothing in it may write or lock. */
export function statementKind(sql: string): StatementKind {
  if (SETTING.test(sql)) return 'setting';
  return READ.test(sql) && !WRITING.test(sql) ? 'read' : 'write';
}

/** A PostgreSQL LSN (`16/B374D848`) as a number. */
export function parseLsn(text: string): bigint {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

/** Where the primary's WAL stood at a check. */
export interface Sample {
  at: number;
  lsn: bigint;
}

/**
 * What a replica must have replayed at `now` not to lag past `maxLagMs`: what the primary had
 * flushed at the newest check at least that long ago (0 before there was one).
 */
export function lagBound(samples: readonly Sample[], now: number, maxLagMs: number): bigint {
  let bound = 0n;
  for (const s of samples) if (s.at <= now - maxLagMs && s.lsn > bound) bound = s.lsn;
  return bound;
}

/**
 * Which healthy replica answers a session's reads: any (in turn) that has replayed `lsn`, the
 * session's last write; else the one furthest along, to wait for; none without a healthy one.
 */
export function pickReplica<R extends { replayed: bigint }>(
  healthy: readonly R[],
  lsn: bigint | undefined,
  turn: number,
): { read: R } | { wait: R } | undefined {
  if (healthy.length === 0) return undefined;
  const ready = lsn === undefined ? healthy : healthy.filter((r) => r.replayed >= lsn);
  if (ready.length > 0) return { read: ready[turn % ready.length]! };
  return { wait: healthy.reduce((a, b) => (b.replayed > a.replayed ? b : a)) };
}

/**
 * Whether a statement that failed on a replica is asked of the primary instead: the replica went
 * away or refused (no SQLSTATE, connection classes 08 and 53, shutdown 57P01-57P03) — `down`, it
 * is skipped until its next check passes — or it could not run it as a standby (read-only 25006,
 * a conflict with recovery 40001, 40P01). Any other error (a statement timeout, a bad statement)
 * would fail on the primary too, and is the answer.
 */
export function replicaFailure(e: unknown): 'down' | 'refused' | undefined {
  const code = (e as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return 'down';
  if (/^(08|53)/.test(code) || /^57P0[123]$/.test(code)) return 'down';
  if (code === '25006' || code === '40001' || code === '40P01') return 'refused';
  return undefined;
}

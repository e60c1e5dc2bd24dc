import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Job } from './argon2-worker.ts';

/** NIST SP 800-63B rev 4: length and a blocklist, no composition rules. */
export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 256;

// OWASP's argon2id baseline: 19 MiB, 2 iterations, 1 lane (algorithm 2 is argon2id).
const ARGON2 = { algorithm: 2, memoryCost: 19_456, timeCost: 2, parallelism: 1 };

let blocklist: Set<string> | undefined;

// The common-password list is large (~20 MB resident with its package): it loads with the
// first password checked, not at start.
const require = createRequire(import.meta.url);
function commonPasswords(): string[] {
  const { dictionary } = require('@zxcvbn-ts/language-common') as typeof import('@zxcvbn-ts/language-common');
  return dictionary['passwords-common'] as string[];
}

/** Why a password may not be used, or null when it may. */
export function passwordProblem(password: string, username?: string): string | null {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH)
    return `The password must have at least ${MIN_PASSWORD_LENGTH} characters.`;
  if (length > MAX_PASSWORD_LENGTH) return `The password may have at most ${MAX_PASSWORD_LENGTH} characters.`;
  blocklist ??= new Set(commonPasswords().map((p) => p.toLowerCase()));
  const lower = password.toLowerCase();
  if (blocklist.has(lower)) return 'That password is too common; choose another.';
  if (username && lower === username.toLowerCase()) return 'The password may not be the username.';
  return null;
}

/**
 * argon2 runs on a few worker threads of lowered priority, at most one computation each, so
 * a burst of sign-ins cannot take the CPU from the event loop serving every other request;
 * further sign-ins queue here.
 */
const THREADS = Math.max(1, Math.min(4, availableParallelism() - 1));
interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}
let workers: { worker: Worker; busy: boolean }[] | undefined;
/**
 * An idle pool is let go after `idleMs` (a worker holds ~40 MB resident: its own V8, the
 * TypeScript loader, argon2's 19 MiB); the next hash starts it again in a few milliseconds.
 */
export const passwordPool = {
  idleMs: 15_000,
  /** Worker threads alive now. */
  size: () => workers?.length ?? 0,
  /**
   * argon2 computations asked for since the process started (hashes and verifications, those
   * against the dummy hash included): the work a request did, which tests compare.
   */
  computations: () => computations,
};
let idleTimer: NodeJS.Timeout | undefined;
let computations = 0;
const pending = new Map<number, Pending>();
const queue: { job: Omit<Job, 'id'>; p: Pending }[] = [];
let nextId = 1;

/** `.ts` when running from source, `.js` from the build in dist/. */
const MODULE_EXTENSION = import.meta.url.endsWith('.ts') ? '.ts' : '.js';

function pool() {
  workers ??= Array.from({ length: THREADS }, () => {
    const worker = new Worker(new URL(`./argon2-worker${MODULE_EXTENSION}`, import.meta.url));
    const slot = { worker, busy: false };
    worker.on('message', (m: { id: number; ok: boolean; result?: unknown; error?: string }) => {
      const p = pending.get(m.id);
      pending.delete(m.id);
      slot.busy = false;
      worker.unref();
      if (p) m.ok ? p.resolve(m.result) : p.reject(new Error(m.error));
      dispatch();
      releaseWhenIdle();
    });
    worker.on('error', (e) => {
      for (const p of pending.values()) p.reject(e);
      pending.clear();
    });
    // Held open only while computing (see dispatch), so an idle pool never delays exit.
    worker.unref();
    return slot;
  });
  return workers;
}

function releaseWhenIdle() {
  clearTimeout(idleTimer);
  if (queue.length > 0 || workers?.some((w) => w.busy)) return;
  idleTimer = setTimeout(() => {
    if (queue.length > 0 || !workers || workers.some((w) => w.busy)) return;
    const idle = workers;
    workers = undefined;
    for (const { worker } of idle) void worker.terminate();
  }, passwordPool.idleMs);
  idleTimer.unref();
}

function dispatch() {
  clearTimeout(idleTimer);
  for (const slot of pool()) {
    if (slot.busy) continue;
    const next = queue.shift();
    if (!next) return;
    const id = nextId++;
    slot.busy = true;
    slot.worker.ref();
    pending.set(id, next.p);
    slot.worker.postMessage({ ...next.job, id });
  }
}

function run<T>(job: Omit<Job, 'id'>): Promise<T> {
  computations++;
  return new Promise<T>((resolve, reject) => {
    queue.push({ job, p: { resolve: resolve as (v: unknown) => void, reject } });
    dispatch();
  });
}

export function hashPassword(password: string): Promise<string> {
  return run<string>({ op: 'hash', password, options: { ...ARGON2 } });
}

function verifyHash(hash: string, password: string): Promise<boolean> {
  return run<boolean>({ op: 'verify', password, hash, options: {} });
}

// Compared against when the user does not exist, so that the answer takes as long either way.
let dummy: Promise<string> | undefined;

/** Verifies `password`; with no stored hash it still spends the same time and answers false. */
export async function verifyPassword(stored: string | null | undefined, password: string): Promise<boolean> {
  if (!stored) {
    dummy ??= hashPassword('assetql-dummy-password-for-timing');
    const dummyHash = await dummy;
    await verifyHash(dummyHash, password).catch(() => false);
    return false;
  }
  return verifyHash(stored, password).catch(() => false);
}

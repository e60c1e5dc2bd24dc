// A password-hashing thread. It lowers its own scheduling priority first, so that argon2's
// deliberate CPU cost never takes the core from the event loop serving other requests.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { hashSync, verifySync } from '@node-rs/argon2';

export interface Job {
  id: number;
  op: 'hash' | 'verify';
  password: string;
  hash?: string;
  options: Record<string, number>;
}

try {
  // Linux: /proc/thread-self -> "<pid>/task/<tid>"; a thread's nice value is its own.
  const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  if (Number.isInteger(tid)) setPriority(tid, 10);
} catch (e) {
  // Elsewhere (no /proc/thread-self, or not allowed to lower it) the thread keeps the default
  // priority; anything but a system call's refusal is a fault.
  if (typeof (e as { code?: unknown }).code !== 'string') throw e;
}

parentPort?.on('message', (job: Job) => {
  try {
    const result =
      job.op === 'hash' ? hashSync(job.password, job.options) : verifySync(job.hash ?? '', job.password);
    parentPort?.postMessage({ id: job.id, ok: true, result });
  } catch (e) {
    parentPort?.postMessage({ id: job.id, ok: false, error: (e as Error).message });
  }
});

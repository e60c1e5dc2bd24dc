import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cpus } from '../lib.ts';

const ROOT = join(import.meta.dirname, '../..');
const TICK_MS = 10; // USER_HZ is 100 on Linux

export interface Proc {
  name: string;
  url: string;
  child: ChildProcess;
  /** The last output, to explain an exit. */
  tail(): string;
  stop(): Promise<void>;
}

/**
 * Starts `node <script> ...args` (`script` relative to the root, or absolute) pinned to CPU 0
 * (unless `cpus.pin` is off) and resolves with the URL it prints (`assetql ... at URL` or `peer at URL`).
 */
export function startPinned(
  name: string,
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  /** Node's own flags (`--trace-gc-nvp`). */
  flags: readonly string[] = [],
): Promise<Proc> {
  // resolve, not join: `script` is relative to the root (a peer) or absolute (the built bin.js).
  const command = [process.execPath, ...flags, resolve(ROOT, script), ...args];
  const child = spawn(
    cpus.pin ? 'taskset' : command[0]!,
    cpus.pin ? ['-c', '0', ...command] : command.slice(1),
    {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${output}`)), 90_000);
    const read = (b: Buffer) => {
      output += b.toString();
      if (process.env.BENCH_DEBUG) process.stderr.write(`${name}: ${b}`);
      const m = /^(?:assetql(?: subgraph \w+)?|peer) at (http:\/\/\S+)/m.exec(output);
      if (m) {
        clearTimeout(timer);
        resolve({ name, url: m[1]!, child, stop, tail: () => output.slice(-2000) });
      }
    };
    child.stdout!.on('data', read);
    child.stderr!.on('data', read);
    child.stdout!.on('data', (b: Buffer) => {
      output = (output + b.toString()).slice(-20_000);
    });
    child.stderr!.on('data', (b: Buffer) => {
      output = (output + b.toString()).slice(-20_000);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited ${code}:\n${output.slice(-3000)}`));
    });
  });
}

/** A process's name and the fields of `/proc/<pid>/stat` after it (from state, the 3rd), or null once it is gone. */
function procStat(pid: number | string): { name: string; fields: string[] } | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  const close = stat.lastIndexOf(')');
  return { name: stat.slice(stat.indexOf('(') + 1, close), fields: stat.slice(close + 2).split(' ') };
}

/** CPU time (user + system) of a process so far, in ms. */
export function cpuMs(pid: number): number {
  const fields = procStat(pid)?.fields;
  // utime is the 14th field, stime the 15th.
  return fields ? (Number(fields[11]) + Number(fields[12])) * TICK_MS : Number.NaN;
}

/**
 * CPU time (user + system) so far of every PostgreSQL process on this machine (server, backends,
 * background and parallel workers, those that have exited included), in ms; NaN when there is
 * none (the database is elsewhere). The peers bench runs alone against the database, so the
 * difference over a closed loop is what the system under test asked of PostgreSQL; on a machine
 * that shares its cores with the database, that is the part of the throughput no server can win
 * back.
 */
export function databaseCpuMs(): number {
  let total = 0;
  let found = false;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(entry);
    if (stat?.name !== 'postgres') continue;
    const f = stat.fields;
    // Its own time and its reaped children's (cutime, cstime): a backend or parallel worker that
    // exits moves its time into the postmaster's, so the sum only grows.
    total += (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * TICK_MS;
    found = true;
  }
  return found ? total : Number.NaN;
}

/** Resident set of a process in MB. */
export function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Samples the summed resident set of `pids` every 50 ms; `peak()` reads the highest so far. */
export function rssSampler(pids: number[]) {
  const total = () => pids.reduce((s, p) => s + rssMb(p), 0);
  let peak = total();
  const timer = setInterval(() => {
    peak = Math.max(peak, total());
  }, 50);
  return {
    peak: () => Math.max(peak, total()),
    stop: () => clearInterval(timer),
  };
}

import { randomBytes } from 'node:crypto';
import {
  linkSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/**
 * One owner per data dir. The process that opens the embedded database owns `DATA_DIR`, and says
 * so in `assetql.lock.json` before it opens a file of the database: its pid, the kernel's start
 * time of that pid (so that a pid reused after a crash is not taken for the owner), where it runs
 * (host, boot, pid namespace: a process in another container cannot be looked up by pid), the
 * command it runs and, once it serves the database, its socket. It touches the file every few
 * seconds while it lives. Any other process either attaches to that socket (a command beside a
 * running server, a subgraph of the distributed form) or is refused, and nothing else opens the
 * files while the owner lives.
 *
 * The file is made whole and at once (written aside, then hard-linked into place, which fails
 * when a file is there already), so no reader sees half of it and no two processes both make it.
 * A file whose process is gone is stale (a process of this machine and namespace that no longer
 * runs; elsewhere, one not touched for 30 s), and is replaced, never removed: the replacement is
 * renamed over it under a second link-made file, so that there is no moment without an owner
 * file for a third process to fill.
 */
export const OWNER_FILE = 'assetql.lock.json';
const TAKEOVER_FILE = 'assetql.lock.takeover';
/** How often an owner touches its file, and how old an untouched one from elsewhere may be. */
const HEARTBEAT_MS = 5_000;
const STALE_MS = 30_000;

/** Where the owner serves the embedded database. */
export type OwnerSocket = { path: string } | { host: string; port: number };

export interface DataDirOwner {
  pid: number;
  /** The kernel's start time of the process (Linux), to tell it from a later one of the same pid. */
  started?: string;
  /** The host, the boot and the pid namespace the pid is of (Linux). */
  host?: string;
  boot?: string;
  pidns?: string;
  /** What the owner runs (`assetql serve`), for the message that names it. */
  command?: string;
  /** Set once the owner serves the database. */
  socket?: OwnerSocket;
}

/** A data dir that cannot be had: owned by another live process, or not released in time. */
export class DataDirError extends Error {
  override name = 'DataDirError';
}

/** A data dir another live process owns, where this one may not attach. */
export class DataDirInUseError extends DataDirError {
  override name = 'DataDirInUseError';
  readonly owner: DataDirOwner;

  constructor(dataDir: string, owner: DataDirOwner) {
    const where = owner.host && owner.host !== hostname() ? ` on ${owner.host}` : '';
    super(
      `DATA_DIR ${dataDir} is in use by process ${owner.pid}${where}${owner.command ? ` (${owner.command})` : ''}: ` +
        'stop it, or set DATA_DIR to another folder',
    );
    this.owner = owner;
  }
}

/** This process's ownership of a data dir. */
export interface Ownership {
  /** Throws unless the data dir is still this process's (checked before its files are opened). */
  confirm(): void;
  /** Records where this process serves the database, for others to attach. */
  publish(socket: OwnerSocket): void;
  /** Gives the data dir up (the file goes, if it is still this process's). */
  release(): void;
}

export type Claim = { owned: Ownership } | { ownedBy: DataDirOwner };

/**
 * Claims `dataDir` for this process, or names its live owner. Makes the folder if need be.
 * Throws what the file system says when the folder cannot be made or written.
 */
export function claimDataDir(dataDir: string, command = commandLine()): Claim {
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, OWNER_FILE);
  const me = this_();
  me.command = command;
  for (let attempt = 0; attempt < 50; attempt++) {
    if (createWhole(file, me)) return { owned: ownership(file, me) };
    const read = readOwner(file);
    if (!read) continue;
    if (read.owner && isAlive(read.owner, read.touched)) return { ownedBy: read.owner };
    if (takeOverStale(dataDir, read.text, me)) return { owned: ownership(file, me) };
    pause(Math.min(10 * (attempt + 1), 200));
  }
  throw new DataDirError(
    `DATA_DIR ${dataDir}: ${OWNER_FILE} kept changing; is another process starting there?`,
  );
}

/** Waits `ms` without giving up the thread (a claim is made before anything else runs). */
function pause(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** The live owner of `dataDir` as its file says now, or undefined (none, or gone). */
export function ownerOf(dataDir: string): DataDirOwner | undefined {
  const read = readOwner(join(dataDir, OWNER_FILE));
  return read?.owner && isAlive(read.owner, read.touched) ? read.owner : undefined;
}

/**
 * Whether the process `owner` names still runs. One of this machine and pid namespace is looked
 * up by pid (the same start time, not a zombie); one of another boot of this host is gone; one
 * from elsewhere (another container or host on a shared volume) lives while it touches its file.
 */
export function isAlive(owner: DataDirOwner, touchedMs = Date.now()): boolean {
  const here = this_();
  const sameHost = owner.host === undefined || owner.host === here.host;
  if (sameHost && owner.boot !== undefined && here.boot !== undefined && owner.boot !== here.boot)
    return false;
  const sameSpace = sameHost && (owner.pidns === undefined || owner.pidns === here.pidns);
  if (!sameSpace) return Date.now() - touchedMs < STALE_MS;
  // This pid: this process (where start times tell), or a dead one's file that a process of the
  // same pid finds after a restart (PID 1 in a container every time).
  if (owner.pid === process.pid) return owner.started !== undefined && owner.started === here.started;
  try {
    process.kill(owner.pid, 0);
  } catch (e) {
    // EPERM: a process of another user has that pid; it may be the owner, run by that user.
    if ((e as { code?: unknown }).code !== 'EPERM') return false;
  }
  const stat = procStat(owner.pid);
  if (stat?.state === 'Z') return false;
  return owner.started === undefined || stat === undefined || stat.started === owner.started;
}

function ownership(file: string, me: DataDirOwner): Ownership {
  const mine = () => {
    const owner = readOwner(file)?.owner;
    return owner?.pid === me.pid && owner.started === me.started && owner.pidns === me.pidns;
  };
  // Touched while this process lives: others elsewhere judge it by that.
  const heartbeat = setInterval(() => {
    const now = new Date();
    try {
      if (mine()) utimesSync(file, now, now);
    } catch (e) {
      // Gone or unwritable for a moment: the next beat tries again.
      if (typeof (e as { code?: unknown }).code !== 'string') throw e;
    }
  }, HEARTBEAT_MS);
  heartbeat.unref();
  const confirm = () => {
    if (!mine())
      throw new DataDirError(`${file} is no longer this process's: another process took DATA_DIR over`);
  };
  return {
    confirm,
    publish(socket) {
      confirm();
      const aside = `${file}.${randomBytes(6).toString('hex')}`;
      writeFileSync(aside, JSON.stringify({ ...me, socket } satisfies DataDirOwner), { mode: 0o644 });
      renameSync(aside, file);
    },
    release() {
      clearInterval(heartbeat);
      if (mine()) rmSync(file, { force: true });
    },
  };
}

/** Makes `file` holding `owner`, whole, unless a file is there: true when this call made it. */
function createWhole(file: string, owner: DataDirOwner): boolean {
  const aside = `${file}.${randomBytes(6).toString('hex')}`;
  writeFileSync(aside, JSON.stringify(owner), { mode: 0o644 });
  try {
    linkSync(aside, file);
    return true;
  } catch (e) {
    if ((e as { code?: unknown }).code === 'EEXIST') return false;
    throw e;
  } finally {
    rmSync(aside, { force: true });
  }
}

/**
 * Replaces the stale owner file (holding `stale`) with this process's, with no moment without
 * one: under the takeover file (made by a link, so one process at a time), the file is read
 * again and, still the stale one, has this process's renamed over it. True when it did.
 */
function takeOverStale(dataDir: string, stale: string, me: DataDirOwner): boolean {
  const file = join(dataDir, OWNER_FILE);
  const mutex = join(dataDir, TAKEOVER_FILE);
  if (!createWhole(mutex, this_())) {
    // Another process is taking over; one that died doing so leaves its file, old or dead.
    const holder = readOwner(mutex);
    if (holder?.owner && isAlive(holder.owner, holder.touched) && Date.now() - holder.touched < 10_000)
      return false;
    const aside = `${mutex}.stale.${randomBytes(6).toString('hex')}`;
    try {
      renameSync(mutex, aside);
      rmSync(aside, { force: true });
    } catch (e) {
      if ((e as { code?: unknown }).code !== 'ENOENT') throw e;
    }
    return false;
  }
  try {
    if (readOwner(file)?.text !== stale) return false;
    const aside = `${file}.${randomBytes(6).toString('hex')}`;
    writeFileSync(aside, JSON.stringify(me), { mode: 0o644 });
    renameSync(aside, file);
    return true;
  } finally {
    rmSync(mutex, { force: true });
  }
}

/** The owner file's text, what it names (undefined when it is not an owner's), and when it was touched. */
function readOwner(file: string): { text: string; owner?: DataDirOwner; touched: number } | undefined {
  let text: string;
  let touched: number;
  try {
    touched = statSync(file).mtimeMs;
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as { code?: unknown }).code === 'ENOENT') return undefined;
    throw e;
  }
  return { text, owner: parseOwner(text), touched };
}

function parseOwner(text: string): DataDirOwner | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    if (e instanceof SyntaxError) return undefined;
    throw e;
  }
  const pid = (value as { pid?: unknown } | null)?.pid;
  return Number.isSafeInteger(pid) && (pid as number) > 0 ? (value as DataDirOwner) : undefined;
}

/** This process as an owner file names it. */
function this_(): DataDirOwner {
  return {
    pid: process.pid,
    started: procStat(process.pid)?.started,
    host: hostname(),
    boot: readOr('/proc/sys/kernel/random/boot_id'),
    pidns: linkOr('/proc/self/ns/pid'),
  };
}

/** The state and the kernel's start time of `pid` (fields 3 and 22 of /proc/<pid>/stat), where there is a /proc. */
function procStat(pid: number): { state: string; started: string } | undefined {
  const stat = readOr(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  // The command name (field 2) is in parentheses and may hold spaces: count from after it.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '', started: fields[19] ?? '' };
}

/** A file's text, or undefined when it cannot be read (no /proc, another user's, gone). */
function readOr(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (e) {
    if (typeof (e as { code?: unknown }).code === 'string') return undefined;
    throw e;
  }
}

function linkOr(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch (e) {
    if (typeof (e as { code?: unknown }).code === 'string') return undefined;
    throw e;
  }
}

/** `assetql <command>`, as the owner's message shows it (the command's word only: options may hold secrets). */
function commandLine(): string {
  const command = process.argv[2];
  return command && /^[a-z][a-z-]*$/.test(command) ? `assetql ${command}` : 'assetql';
}

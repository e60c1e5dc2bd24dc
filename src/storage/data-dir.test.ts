import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claimDataDir, DataDirInUseError, OWNER_FILE, ownerOf } from './data-dir.ts';

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'aq-datadir-'));
  dirs.push(dir);
  return dir;
}

const MODULE = new URL('./data-dir.ts', import.meta.url).pathname;

/**
 * A process that claims `dir` and prints `owned` or `owned-by <pid>`, then holds what it got
 * until killed (or, with `release`, gives it up and exits).
 */
function claimer(
  dir: string,
  then: 'hold' | 'exit' = 'hold',
): { child: ChildProcess; answer: Promise<string> } {
  const code = `
    import { claimDataDir } from ${JSON.stringify(MODULE)};
    const claim = claimDataDir(${JSON.stringify(dir)}, 'assetql test');
    process.stdout.write(('owned' in claim ? 'owned' : 'owned-by ' + claim.ownedBy.pid) + '\\n');
    if (${JSON.stringify(then)} === 'exit') process.exit(0);
    setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const answer = new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) resolve(out.trim());
    });
    child.once('exit', (code) => reject(new Error(`claimer exited ${code} without an answer`)));
  });
  return { child, answer };
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise<void>((resolve) => child.once('exit', () => resolve()));

describe('the owner of a data dir', () => {
  it('is the one process that claims it first; a live owner is named to every other', async () => {
    const dir = freshDir();
    const first = claimer(dir);
    expect(await first.answer).toBe('owned');
    const claim = claimDataDir(dir);
    expect(claim).toEqual({
      ownedBy: expect.objectContaining({ pid: first.child.pid, command: 'assetql test' }),
    });
    expect(ownerOf(dir)?.pid).toBe(first.child.pid);
    const refusal = new DataDirInUseError(dir, ownerOf(dir)!);
    expect(refusal.message).toBe(
      `DATA_DIR ${dir} is in use by process ${first.child.pid} (assetql test): stop it, or set DATA_DIR to another folder`,
    );
  });

  it('is taken over from a process that died, and from a file of a pid now running something else', async () => {
    const dir = freshDir();
    const dead = claimer(dir);
    expect(await dead.answer).toBe('owned');
    dead.child.kill('SIGKILL');
    await exited(dead.child);
    expect(ownerOf(dir)).toBeUndefined();
    const claim = claimDataDir(dir);
    expect('owned' in claim).toBe(true);
    if ('owned' in claim) claim.owned.release();
    expect(readdirSync(dir)).toEqual([]);

    // A file naming this very pid with another start time: a previous process of the same pid
    // (PID 1 of a container started again). As garbage, a half-written file is stale too.
    for (const text of [JSON.stringify({ pid: process.pid, started: '1' }), '{"pid":', '']) {
      writeFileSync(join(dir, OWNER_FILE), text);
      const again = claimDataDir(dir);
      expect('owned' in again, text).toBe(true);
      if ('owned' in again) again.owned.release();
    }
  });

  it('goes to exactly one of many processes claiming at once, dead owner or none', async () => {
    for (const stale of [false, true]) {
      const dir = freshDir();
      if (stale) writeFileSync(join(dir, OWNER_FILE), JSON.stringify({ pid: 2 ** 22 + 17, started: '1' }));
      const racers = Array.from({ length: 8 }, () => claimer(dir));
      const answers = await Promise.all(racers.map((r) => r.answer));
      const owners = racers.filter((_, i) => answers[i] === 'owned');
      expect(owners, answers.join(', ')).toHaveLength(1);
      const owner = owners[0]!.child.pid;
      expect(answers.filter((a) => a === `owned-by ${owner}`)).toHaveLength(7);
      expect(JSON.parse(readFileSync(join(dir, OWNER_FILE), 'utf8')).pid).toBe(owner);
      // Nothing left aside by the race: only the owner's file.
      expect(readdirSync(dir)).toEqual([OWNER_FILE]);
      for (const r of racers) r.child.kill('SIGKILL');
    }
  });

  it('is given up by its release, and only by its own', async () => {
    const dir = freshDir();
    const claim = claimDataDir(dir);
    if (!('owned' in claim)) throw new Error('not owned');
    claim.owned.publish({ path: join(dir, '.s.PGSQL.5432') });
    expect(ownerOf(dir)?.socket).toEqual({ path: join(dir, '.s.PGSQL.5432') });
    // Another process took it over meanwhile (this one was thought gone): its file stays.
    writeFileSync(join(dir, OWNER_FILE), JSON.stringify({ pid: process.pid + 1, started: 'x' }));
    claim.owned.release();
    expect(readdirSync(dir)).toEqual([OWNER_FILE]);
  });
});

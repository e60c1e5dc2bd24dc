import type { Exec } from '../exec.ts';

/** An asset is not at the version its writer expected (`ifVersion`); nothing was written. */
export class VersionConflictError extends Error {
  override name = 'VersionConflictError';
  readonly id: string;
  readonly expected: number;
  readonly actual: number;

  constructor(id: string, expected: number, actual: number) {
    super(`Asset ${id} is at version ${actual}, not ${expected}; read it again.`);
    this.id = id;
    this.expected = expected;
    this.actual = actual;
  }
}

/**
 * Locks the assets whose versions the writer states (`ifVersion`; 0 for an asset that must not
 * exist yet) until the transaction ends, and throws {@link VersionConflictError} at the first
 * that is at another version. In the write's transaction, before it writes.
 */
export async function checkVersions(
  exec: Exec,
  group: string,
  profile: string,
  expected: ReadonlyMap<string, number> | undefined,
): Promise<void> {
  if (!expected || expected.size === 0) return;
  const ids = [...expected.keys()].sort();
  // A row lock holds only what exists: two writers that both expect an asset to be absent
  // (`ifVersion: 0`) would both pass. A transaction lock on each key, taken in one order,
  // makes them wait for each other whether the row is there or not.
  await exec(
    `select pg_advisory_xact_lock(hashtextextended($1 || '/' || $2 || '/' || id, 0)) from unnest($3::text[]) id`,
    [group, profile, ids],
  );
  const rows = await exec<{ id: string; version: number }>(
    'select id, version from assets where user_group = $1 and profile = $2 and id = any($3::text[]) order by id for update',
    [group, profile, ids],
  );
  const actual = new Map(rows.map((r) => [r.id, r.version]));
  for (const [id, version] of expected) {
    const now = actual.get(id) ?? 0;
    if (now !== version) throw new VersionConflictError(id, version, now);
  }
}

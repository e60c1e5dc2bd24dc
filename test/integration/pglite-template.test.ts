import { existsSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { removeStaleTemplates } from '../helpers/database.ts';

describe("the tests' migrated PGlite template", () => {
  it("removes other code's templates once they are an hour old, and no others", () => {
    const at = (name: string) => join(tmpdir(), `assetql-pglite-migrated-${name}`);
    const kept = at(`kept-${process.pid}.tar`);
    const stale = at(`stale-${process.pid}.tar`);
    const partial = at(`stale-${process.pid}.tar.123`);
    const recent = at(`recent-${process.pid}.tar`);
    const other = join(tmpdir(), `not-a-template-${process.pid}.tar`);
    for (const f of [kept, stale, partial, recent, other]) writeFileSync(f, 'x');
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    for (const f of [kept, stale, partial, other]) utimesSync(f, twoHoursAgo, twoHoursAgo);
    try {
      removeStaleTemplates(kept);
      expect([kept, stale, partial, recent, other].map(existsSync)).toEqual([true, false, false, true, true]);
    } finally {
      for (const f of [kept, stale, partial, recent, other]) rmSync(f, { force: true });
    }
  });
});

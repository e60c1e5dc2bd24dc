import { afterAll } from 'vitest';
import { recordedStatements, startRecord } from './sql-recorder.ts';
import { loadParser, unscopedStatements } from './tenant-scope.ts';

/**
 * Tenant scoping by construction (docs/deploy.md, "Sharding by group"): a setup file of the
 * integration tests (vitest.config.ts). It records every statement the test file's process sends
 * (test/helpers/sql-recorder.ts) and, after the file's tests, fails the file when a statement of
 * the product reached a tenant table without its `user_group` (test/helpers/tenant-scope.ts) and
 * is not one of the few that cross groups on purpose (test/helpers/tenant-scope-allowlist.ts).
 *
 * Checked per test file, in the process that ran it, rather than once over the whole run: an
 * `afterAll` failure fails that file and names it, a run of one file checks what that file did,
 * and nothing passes between vitest's worker processes (forks pool; the files of one worker run
 * one after another in its process, each with a record of its own). A global teardown would see
 * the workers' records only through files, and its failure does not fail the run. The cost is
 * the parser's load (under 0.1 s) once per process, and under a millisecond per distinct
 * statement, each parsed once per process.
 *
 * Statements a test sends itself, and migrations', are recorded but not checked (the recorder
 * tells them by the caller's stack): a test's setup may write any group's rows, and a migration
 * works on every group's.
 */
const from = startRecord();

afterAll(async () => {
  const sent = recordedStatements(from);
  if (!sent.some((s) => s.origin === 'app')) return;
  await loadParser();
  const found = unscopedStatements(sent);
  if (found.length > 0)
    throw new Error(
      `${found.length} statement(s) reached a tenant table without its user_group (docs/deploy.md, "Sharding by group"):\n${found.join('\n')}`,
    );
});

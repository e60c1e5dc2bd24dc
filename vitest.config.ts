import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

// One copy of graphql: Node loads its CommonJS entry for our dependencies, so tests must too.
const graphqlEntry = createRequire(import.meta.url).resolve('graphql');

/**
 * Three scopes, as `npm test` runs them all and `npm run test:<scope>` one:
 * - `unit`: beside the code in src/, no database, browser or outside tool; runs in seconds.
 * - `integration`: test/integration/, against a real database (PGlite, or PostgreSQL with
 *   DATABASE_URL), in process.
 * - `e2e`: test/e2e/, real processes, browsers, routers and tools.
 */
export default defineConfig({
  resolve: { alias: [{ find: /^graphql$/, replacement: graphqlEntry }] },
  test: {
    // Each file gets its own database; two cores, so two files at a time.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          // The files run one after another in a worker's one process (not isolated): each
          // imported the whole app again, some 3-6 s of a core per file and a fifth of the suite's
          // CPU. They share nothing but the modules: each makes its own database and apps, sets
          // no environment and mocks nothing; a helper module that keeps state (the filters'
          // harness) starts it afresh in each file's beforeAll.
          isolate: false,
          // Fails a file whose statements reach a tenant table without its user_group.
          setupFiles: ['test/helpers/tenant-scope-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.e2e.ts', 'test/e2e/**/*.test.ts'],
          // A page that polls for what a browser shows waits as a user would on a busy machine:
          // 1 s (Vitest's default) was passed in CI by an asset page loading beside two test passes.
          expect: { poll: { timeout: 10_000 } },
        },
      },
    ],
  },
});

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
    // PGlite is WebAssembly, and Node 24's V8 can abort a worker (`Check failed:
    // jit_page.has_value()`) while freeing a wasm-to-JS import wrapper it has just tiered up
    // (Runtime_TierUpWasmToJSWrapper → WasmEngine::FreeDeadCode → WasmCodeAllocator::FreeCode):
    // one worker of a whole run, every test of it passed, and the run fails. Wrappers that never
    // tier up are never freed that way; the generic wrapper cost the PGlite tests nothing
    // measurable (18.0–18.4 s either way for two of them).
    execArgv: ['--wasm-wrapper-tiering-budget=1000000000'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      { extends: true, test: { name: 'unit', include: ['src/**/*.test.ts'] } },
      { extends: true, test: { name: 'integration', include: ['test/integration/**/*.test.ts'] } },
      { extends: true, test: { name: 'e2e', include: ['test/e2e/**/*.e2e.ts', 'test/e2e/**/*.test.ts'] } },
    ],
  },
});

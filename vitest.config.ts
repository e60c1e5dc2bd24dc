import { createRequire } from 'node:module';
import { defineConfig } from 'vitest/config';

// One copy of graphql: Node loads its CommonJS entry for our dependencies, so tests must too.
const graphqlEntry = createRequire(import.meta.url).resolve('graphql');

export default defineConfig({
  resolve: { alias: [{ find: /^graphql$/, replacement: graphqlEntry }] },
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'test/**/*.e2e.ts'],
    // Each file gets its own database; two cores, so two files at a time.
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});

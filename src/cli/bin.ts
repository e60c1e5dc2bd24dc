#!/usr/bin/env -S node --max-semi-space-size=32
// --max-semi-space-size=32 (young generation 2×32 MB instead of 2×16): request and export
// garbage dies young instead of being promoted. Measured on a million-row export: 1.5-2× the
// throughput and a third of the resident growth (docs/performance.md). `npm start` and the
// benchmarks pass the same flag; setting it from code after start does not have the effect.
import { run } from './cli.ts';

process.exitCode = await run(process.argv);

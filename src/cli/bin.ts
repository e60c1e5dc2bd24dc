#!/usr/bin/env -S node --max-semi-space-size=16
// --max-semi-space-size=16 caps the young generation at 2×16 MB. Left alone, V8 sizes it from
// the machine's memory (up to 2×64 MB on a 24 GB host), resident whether or not it is needed;
// 16 MB semi-spaces answer queries and exports as fast as 32 MB ones, with ~25 MB less at rest
// (docs/performance.md). `npm start` and the benchmarks pass the same flag; setting it from
// code after start does not have the effect.
import { run } from './cli.ts';

process.exitCode = await run(process.argv);

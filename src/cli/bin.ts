#!/usr/bin/env -S node --max-semi-space-size=16
// --max-semi-space-size=16 caps the young generation at 2×16 MB. Left alone, V8 sizes it from
// the machine's memory (up to 2×64 MB on a 24 GB host), resident whether or not it is needed;
// 16 MB semi-spaces answer queries and exports as fast as 32 MB ones, with ~25 MB less at rest
// (docs/performance.md). `npm start` and the benchmarks pass the same flag; setting it from
// code after start does not have the effect.
import { tracingRequested } from '../observability/active.ts';
import { markServedBuild } from '../server/served-build.ts';

// First of all: a build made beside this one meanwhile keeps the files this process loads.
markServedBuild();

// Tracing, when asked for, starts before anything else is loaded: its `pg` instrumentation
// patches the module as it loads. Without OTEL_EXPORTER_OTLP_ENDPOINT nothing of it is loaded.
if (tracingRequested(process.env)) {
  const { serviceNameOf, startTracing } = await import('../observability/tracing.ts');
  startTracing(serviceNameOf(process.argv));
}
const { run } = await import('./cli.ts');

process.exitCode = await run(process.argv);

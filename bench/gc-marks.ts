// Loaded into a traced service (`node --trace-gc-nvp --import bench/gc-marks.ts …`) by bench/gc.ts:
// each SIGUSR2 prints a mark with the time since the process started, the first `PROBE-START
// <ms>`, the next `PROBE-END <ms>`, around the requests that bench counts; V8's trace lines carry
// the same clock.
let marks = 0;
process.on('SIGUSR2', () => {
  // On a line of its own: V8's trace reaches the pipe in blocks that may end mid-line.
  process.stdout.write(`\n${marks++ === 0 ? 'PROBE-START' : 'PROBE-END'} ${performance.now()}\n`);
});

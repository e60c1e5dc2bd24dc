import { createRequire } from 'node:module';

export interface Progress {
  /** True when a bar is drawn (stderr is a terminal). */
  readonly active: boolean;
  update(value: number): void;
  stop(): void;
}

/** A progress bar on stderr, only when stderr is a terminal; otherwise does nothing. */
export function progress(label: string, total: number, unit: 'rows' | 'bytes'): Progress {
  if (!process.stderr.isTTY) return { active: false, update() {}, stop() {} };
  const human = (v: number) => (unit === 'bytes' ? `${(v / 1048576).toFixed(1)} MB` : String(v));
  // Loaded when a bar is drawn: `serve`, which draws none, never loads it.
  const { Presets, SingleBar } = createRequire(import.meta.url)(
    'cli-progress',
  ) as typeof import('cli-progress');
  const bar = new SingleBar(
    {
      stream: process.stderr,
      format: `${label.padEnd(10)} [{bar}] {percentage}% | {done}/{all} | {rate}/s | ETA {eta_formatted}`,
      hideCursor: true,
      fps: 5,
      etaBuffer: 20,
    },
    Presets.shades_classic,
  );
  const start = performance.now();
  bar.start(Math.max(total, 1), 0, { done: human(0), all: human(total), rate: '-' });
  let stopped = false;
  return {
    active: true,
    update(value: number) {
      const s = (performance.now() - start) / 1000;
      bar.update(value, { done: human(value), rate: s > 0 ? human(Math.round(value / s)) : '-' });
    },
    stop() {
      if (stopped) return;
      stopped = true;
      bar.stop();
    },
  };
}

/** Seconds to the millisecond, as summaries print them. */
export function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

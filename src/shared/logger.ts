import { pino } from 'pino';

export type Logger = pino.Logger;

/** One JSON logger for the process; request handlers bind `requestId` into a child. */
export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({
    level,
    base: { service: 'assetql' },
    redact: ['req.headers.cookie', 'req.headers["x-svc-sessionid"]'],
  });
}

import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config/index.ts';
import { UserError } from '../subgraphs/auth/users.ts';
import { errorReport, UsageError } from './errors.ts';

/** A Node system error as `listen` or `connect` makes one. */
function systemError(code: string, syscall: string, message: string) {
  return Object.assign(new Error(message), { code, syscall });
}

describe('errorReport', () => {
  it('says an expected error in one line, without a stack', () => {
    for (const [error, line] of [
      [new UserError('no user nobody'), 'assetql: no user nobody'],
      [new UsageError('--limit takes a positive integer'), 'assetql: --limit takes a positive integer'],
      [new ConfigError('invalid configuration: PORT: bad'), 'assetql: invalid configuration: PORT: bad'],
      [
        systemError('EADDRINUSE', 'listen', 'listen EADDRINUSE: address already in use 127.0.0.1:4000'),
        'assetql: listen EADDRINUSE: address already in use 127.0.0.1:4000',
      ],
      [
        Object.assign(new Error('database "nope" does not exist'), { code: '3D000', severity: 'FATAL' }),
        'assetql: database "nope" does not exist',
      ],
      // Node's connect to every address of a name: an AggregateError without a message of its own.
      [
        new AggregateError([
          systemError('ECONNREFUSED', 'connect', 'connect ECONNREFUSED ::1:5432'),
          systemError('ECONNREFUSED', 'connect', 'connect ECONNREFUSED 127.0.0.1:5432'),
        ]),
        'assetql: connect ECONNREFUSED ::1:5432; connect ECONNREFUSED 127.0.0.1:5432',
      ],
    ] as const) {
      expect(errorReport(error, 'info')).toBe(`${line}\n`);
    }
  });

  it('keeps a message of several lines on one', () => {
    expect(errorReport(new UsageError('first\n  second'), 'info')).toBe('assetql: first second\n');
  });

  it('gives the stack of an unexpected error, a fault of assetql itself', () => {
    const report = errorReport(new TypeError("Cannot read properties of undefined (reading 'p50')"), 'info');
    expect(report).toMatch(/^assetql: unexpected error: TypeError: Cannot read properties/);
    expect(report).toMatch(/\n {4}at /);
  });

  it('gives the stack of an expected error too with LOG_LEVEL=debug or trace', () => {
    for (const level of ['debug', 'trace']) {
      const report = errorReport(new UserError('no user nobody'), level);
      expect(report).toMatch(/^assetql: no user nobody\nUserError: no user nobody\n {4}at /);
    }
  });
});

import { ConfigError } from '../config/index.ts';
import { ManifestError } from '../execution/manifest.ts';
import { StartError } from '../server/start-checks.ts';
import { isDatabaseUnavailable } from '../shared/errors.ts';
import { DataDirError } from '../storage/data-dir.ts';
import { TrustedDocumentConflict, TrustedDocumentLimit } from '../storage/trusted-documents.ts';
import { ImportFileError } from '../subgraphs/assets/import/readers.ts';
import { DatasetWriteError, DuplicateIdError } from '../subgraphs/assets/write/types.ts';
import { UserError } from '../subgraphs/auth/users.ts';

/** A command called the wrong way (a missing or contradictory option, a bad value). */
export class UsageError extends Error {
  override name = 'UsageError';
}

/** Refusals whose message says all a user needs: what was wrong with their input or data. */
const REFUSALS = [
  UsageError,
  ConfigError,
  StartError,
  DataDirError,
  UserError,
  ImportFileError,
  DatasetWriteError,
  DuplicateIdError,
  ManifestError,
  TrustedDocumentConflict,
  TrustedDocumentLimit,
];

/**
 * True for an error the user can act on from its message alone: a refusal of the input, a
 * database or network that cannot be reached (`ECONNREFUSED`, `EADDRINUSE`, …), a file that is
 * missing, or a statement PostgreSQL refused (`database "x" does not exist`). Anything else is a
 * fault of assetql itself, and its stack belongs in the report.
 */
export function isExpected(e: unknown): boolean {
  if (REFUSALS.some((kind) => e instanceof kind)) return true;
  if (isDatabaseUnavailable(e)) return true;
  if (!(e instanceof Error)) return false;
  const { code, syscall, severity } = e as { code?: unknown; syscall?: unknown; severity?: unknown };
  // Node's system errors carry the call that failed; PostgreSQL's errors a severity and SQLSTATE.
  return (typeof code === 'string' && typeof syscall === 'string') || typeof severity === 'string';
}

/** The error as one line: its message (an AggregateError's, which is often empty, from its parts). */
export function oneLine(e: unknown): string {
  if (!(e instanceof Error)) return String(e).replace(/\s*\n\s*/g, ' ');
  let message = e.message;
  if (!message && e instanceof AggregateError)
    message = [...new Set(e.errors.map((x) => (x instanceof Error ? x.message : String(x))))].join('; ');
  if (!message) message = (e as { code?: string }).code ?? e.name;
  return message.replace(/\s*\n\s*/g, ' ');
}

/**
 * What `assetql` writes for an error that ends a command: `assetql: <message>` in one line for
 * an expected error; the stack as well for an unexpected one, or for any with LOG_LEVEL=debug
 * or trace.
 */
export function errorReport(e: unknown, logLevel = process.env.LOG_LEVEL): string {
  const verbose = logLevel === 'debug' || logLevel === 'trace';
  if (isExpected(e) && !verbose) return `assetql: ${oneLine(e)}\n`;
  const stack = e instanceof Error && e.stack ? e.stack : String(e);
  return isExpected(e) ? `assetql: ${oneLine(e)}\n${stack}\n` : `assetql: unexpected error: ${stack}\n`;
}

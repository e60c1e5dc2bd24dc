import { fail, type Result } from '../../shared/result.ts';

/**
 * Every `type` an auth mutation error can have: the catalogue domain code names failures from.
 * It must list exactly the values of `enum AuthErrorType` in schema.graphql (a test checks), so
 * that domain code never imports generated types back.
 */
export const AUTH_ERROR_TYPES = [
  'NOT_AUTHORIZED',
  'UNAUTHENTICATED',
  'REAUTHENTICATION_REQUIRED',
  'CODE_MISMATCH',
  'CHALLENGE_EXPIRED',
  'NO_PENDING_CHALLENGE',
  'INVALID_PASSWORD',
  'LIMIT_EXCEEDED',
  'USER_DISABLED',
  'GROUP_ACCESS_DENIED',
  'DUPLICATE_ID',
  'NOT_FOUND',
  'INVALID_TOKEN',
  'LOGIN_DISABLED',
  'INVALID_INPUT',
] as const;

export type AuthErrorType = (typeof AUTH_ERROR_TYPES)[number];

/** What a flow answers: a value, or a failure of a type from the catalogue. */
export type AuthResult<T> = Result<T, AuthErrorType>;

// Failures several flows answer alike.

/** Unknown user or wrong password: the same answer, so that it does not tell which. */
export const INCORRECT_CREDENTIALS = fail('NOT_AUTHORIZED', 'Incorrect username or password.');
/** Told only after a correct password (or token, or reset code). */
export const USER_DISABLED = fail('USER_DISABLED', 'This user is disabled.');
/** The session was ended (by another request) while this one ran. */
export const SESSION_ENDED = fail('UNAUTHENTICATED', 'The session ended.');

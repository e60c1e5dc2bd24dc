import { GraphQLError } from 'graphql';

/**
 * The `extensions.code` of the events subgraph's own refusals and stream endings (docs/events.md),
 * and the errors that carry them; it has no mutations, so no mutation error types.
 */

/** A cursor older than what retention has kept: read the log again from its start. */
export const CURSOR_EXPIRED = 'CURSOR_EXPIRED';

/**
 * A stream's last event: its session ended (signed out, expired, revoked, disabled, moved to
 * another group). Sign in again and resume from the last cursor read.
 */
export const SESSION_ENDED = 'SESSION_ENDED';

/**
 * A stream's last event: its client read more slowly than the changes came, and more than the
 * stream's buffer waited. `extensions.cursor` is the last change it delivered: resume from it.
 */
export const SLOW_CONSUMER = 'SLOW_CONSUMER';

/** More streams open than a session, or a group, may hold at once (`extensions.limit`). */
export const TOO_MANY_STREAMS = 'TOO_MANY_STREAMS';

/** A stream's last event: the process serving it is stopping. Resume from the last cursor, elsewhere. */
export const SHUTTING_DOWN = 'SHUTTING_DOWN';

export function tooManyStreams(limit: 'perSession' | 'perGroup', maximum: number): GraphQLError {
  const who = limit === 'perSession' ? 'a session' : 'a group';
  return new GraphQLError(`At most ${maximum} change streams may be open at once for ${who}.`, {
    extensions: { code: TOO_MANY_STREAMS, limit, maximum },
  });
}

export function sessionEnded(): GraphQLError {
  return new GraphQLError(
    'The session ended (signed out, expired or revoked); sign in again and resume from the last cursor read.',
    { extensions: { code: SESSION_ENDED } },
  );
}

export function shuttingDown(): GraphQLError {
  return new GraphQLError('The server is stopping; resume from the last cursor read.', {
    extensions: { code: SHUTTING_DOWN },
  });
}

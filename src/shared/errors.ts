import { GraphQLError } from 'graphql';

/** A domain failure reported inside a mutation result (spec §7.2), never thrown. */
export interface MutationError<T extends string = string> {
  message: string;
  type: T;
}

/** What every mutation result carries besides its payload (spec §2.9). */
export interface MutationResultBase<T extends string = string> {
  correlationId: string;
  errors: MutationError<T>[];
}

export function failure<T extends string>(
  correlationId: string,
  type: T,
  message: string,
): MutationResultBase<T> & Record<string, unknown> {
  return { correlationId, errors: [{ type, message }] };
}

/** Fields whose behaviour a later release adds answer this, never made-up data. */
export function notImplemented(what: string): GraphQLError {
  return new GraphQLError(`${what} is not implemented yet.`, { extensions: { code: 'NOT_IMPLEMENTED' } });
}

export function unauthenticated(): GraphQLError {
  return new GraphQLError('Sign in to use this field.', { extensions: { code: 'UNAUTHENTICATED' } });
}

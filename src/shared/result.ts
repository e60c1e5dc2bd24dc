/**
 * The one result type of domain code: a value, or an expected failure named by a type from the
 * subgraph's error catalogue (spec §7.2). Expected failures are returned, never thrown; anything
 * thrown is unexpected and masked (src/shared/mask-error.ts).
 */
export type Result<T, E extends string = string> = Ok<T> | Failure<E>;

export interface Ok<T> {
  readonly ok: true;
  readonly value: T;
}

export interface Failure<E extends string = string> {
  readonly ok: false;
  readonly type: E;
  readonly message: string;
  /** Further messages of the same failure (one per bad row or field), when there are several. */
  readonly details?: readonly string[];
}

export function ok<T>(value: T): Ok<T> {
  return { ok: true, value };
}

export function fail<E extends string>(type: E, message: string, details?: readonly string[]): Failure<E> {
  return details === undefined ? { ok: false, type, message } : { ok: false, type, message, details };
}

/** A domain failure as a mutation result shows it (spec §7.2). */
export interface MutationError<E extends string = string> {
  message: string;
  type: E;
}

/** What every mutation result carries besides its payload (spec §2.9). */
export interface MutationResultBase<E extends string = string> {
  correlationId: string;
  errors: MutationError<E>[];
}

/**
 * A mutation result from a domain result: on success the payload `present(value)` makes and no
 * errors; on failure the payload fields as `absent` gives them (null, or the spec's zero counts)
 * and the one error. Every mutation of every subgraph answers through this.
 */
export function mutationResult<
  T,
  E extends string,
  P extends object,
  A extends { [K in keyof P]: P[K] | null },
>(
  correlationId: string,
  result: Result<T, E>,
  present: (value: T) => P,
  absent: A,
  // Inferred from the arguments only, never from what the caller's resolver type expects back.
): (NoInfer<P> | NoInfer<A>) & MutationResultBase<E> {
  if (result.ok) return { ...present(result.value), correlationId, errors: [] };
  return { ...absent, correlationId, errors: [{ type: result.type, message: result.message }] };
}

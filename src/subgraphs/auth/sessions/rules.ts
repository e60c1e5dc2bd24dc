import { type Lifetime, lifetimeOf } from '../../../shared/session-policy.ts';

// The rules of a session's life, in one place for everything in auth that opens, lists or
// resolves sessions (docs/auth.md §2). A session's standing (its user not disabled and still in
// its group) is the other half of whether it counts; being SQL, it is in repository/sessions.ts.

/** A session's expiries when it starts at `start`: idle (soft) and maximum (hard). */
export function expiriesFrom(start: Date, lifetime: Lifetime): { expiresAt: Date; expiresAtHard: Date } {
  return {
    expiresAt: new Date(start.getTime() + lifetime.idleMs),
    expiresAtHard: new Date(start.getTime() + lifetime.maxMs),
  };
}

/** True once the soft or the hard expiry has passed (epoch milliseconds): the session has ended. */
export function hasExpired(expiresAt: number, expiresAtHard: number, now: number): boolean {
  return now >= expiresAt || now >= expiresAtHard;
}

/** Activity slides the soft expiry of signed-in sessions and API keys, never of a pending challenge. */
export function slides(kind: string): boolean {
  return kind !== 'challenge';
}

/** Where activity at `now` moves the soft expiry: the client type's idle time on, never past the hard one. */
export function slidExpiry(clientType: string | null, now: number, expiresAtHard: number): number {
  const { idleMs } = lifetimeOf(clientType ?? '');
  return Math.min(now + idleMs, expiresAtHard);
}

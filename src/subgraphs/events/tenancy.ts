import { GraphQLError } from 'graphql';
import type { ChangeFilter } from '../../__generated__/events.ts';
import { unauthenticated } from '../../shared/errors.ts';
import { isAuthenticated } from '../../shared/identity.ts';
import type { ChangeSelection } from './changes.repository.ts';
import type { EventsContext } from './context.ts';

/** The most values one list of a ChangeFilter may hold. */
export const MAX_FILTER_VALUES = 100;

/** The caller, who must be signed in (a session or an API key): everything here is its group's. */
export function tenant(ctx: EventsContext) {
  if (!isAuthenticated(ctx.identity)) throw unauthenticated();
  return ctx.identity;
}

/** A ChangeFilter as a selection of the log; a list of more than 100 values is refused. */
export function selection(filter: ChangeFilter | null | undefined): ChangeSelection {
  const out: ChangeSelection = {};
  for (const key of ['entities', 'kinds', 'profiles', 'ids'] as const) {
    const values = filter?.[key];
    if (values == null) continue;
    if (values.length > MAX_FILTER_VALUES)
      throw new GraphQLError(`\`filter.${key}\` may hold at most ${MAX_FILTER_VALUES} values.`, {
        extensions: { code: 'BAD_USER_INPUT', argument: `filter.${key}`, maximum: MAX_FILTER_VALUES },
      });
    out[key] = values;
  }
  return out;
}

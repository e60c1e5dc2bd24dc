/**
 * The `extensions.code` of the events subgraph's own refusals (docs/events.md); it has no
 * mutations, so no mutation error types.
 */
export const CURSOR_EXPIRED = 'CURSOR_EXPIRED';

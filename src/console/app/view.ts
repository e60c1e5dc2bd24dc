// What every page of the console gets from the app, and what it gives back.
import type { Api } from './api.ts';
import type { SessionInfo } from './auth.ts';
import type { Preferences } from './columns.ts';
import type { DataCache } from './data.ts';
import type { Route } from './router.ts';

export interface ViewContext {
  api: Api;
  data: DataCache;
  preferences: Preferences;
  session: SessionInfo;
  /** Where the page draws itself. */
  main: HTMLElement;
  /** Aborted when the page is left: its requests stop, and their answers are not drawn. */
  signal: AbortSignal;
  /** Says something in the polite live region (and shows it). */
  announce(text: string): void;
  /** Shows a failure: the session ended brings the sign-in back, anything else the alert line. */
  fail(error: unknown): void;
  /** Goes to `route` (a link would do the same), then says `announcement` if any. */
  navigate(route: Route, announcement?: string): void;
}

export interface View {
  /** Takes a new route in place (true), or leaves it to a new view (false). */
  update(route: Route): boolean;
  close(): void;
}

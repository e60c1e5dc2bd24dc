// The console: signed out, the sign-in screens; signed in, the frame and the page of the route.
// Whatever a page asks, an answer that the session has ended brings the sign-in back, saying so,
// and signing in again returns to the same place.
import { type Api, ApiError, describe, isAbort, payloadError, SessionEndedError } from './api.ts';
import { AssetView } from './asset-page.ts';
import { AssetsView } from './assets-view.ts';
import { type DeviceKeys, type RawSession, type SessionInfo, sessionInfo } from './auth.ts';
import type { Preferences } from './columns.ts';
import { DataCache } from './data.ts';
import * as documents from './documents.ts';
import { focus, h, say } from './dom.ts';
import { MapView } from './map-view.ts';
import { ProfilesView } from './profiles-view.ts';
import { href, parseRoute, type Route } from './router.ts';
import { quiet, renderShell, type Shell } from './shell.ts';
import { showSignIn } from './sign-in-view.ts';
import type { View, ViewContext } from './view.ts';
import { ViewsList } from './views-list.ts';
import { ViewPage } from './views-page.ts';

export interface ConsoleOptions {
  root: HTMLElement;
  api: Api;
  preferences: Preferences;
  devices: DeviceKeys;
  /** The console's own path, `/console`. */
  base: string;
}

export class ConsoleApp {
  readonly #options: ConsoleOptions;
  readonly #data: DataCache;
  #loginEnabled = true;
  #session: SessionInfo | null = null;
  #shell: Shell | null = null;
  #view: { view: View; controller: AbortController } | null = null;
  /** What to announce once the route navigated to is shown (the route clears the messages). */
  #pending: string | null = null;

  constructor(options: ConsoleOptions) {
    this.#options = options;
    this.#data = new DataCache(options.api);
  }

  /** Asks whether the browser is signed in, then shows the sign-in or the route's page. */
  async start(): Promise<void> {
    let answer: { session: RawSession | null; config: { auth: { loginEnabled: boolean } } };
    try {
      answer = await this.#options.api.request(documents.START);
    } catch (e) {
      this.#unreachable(e);
      return;
    }
    this.#loginEnabled = answer.config.auth.loginEnabled;
    window.addEventListener('hashchange', () => this.#route());
    const session = sessionInfo(answer.session);
    if (session) this.#signedIn(session, null);
    else this.#signIn(null);
  }

  /** The console could not even ask: say so, with a way to try again. */
  #unreachable(error: unknown): void {
    const retry = h('button', { type: 'button', class: 'primary' }, 'Try again');
    retry.addEventListener('click', () => void this.start());
    const heading = h('h1', { tabindex: -1 }, 'The console cannot reach the server');
    this.#options.root.replaceChildren(
      h(
        'main',
        { class: 'sign-in', id: 'main' },
        h('div', { class: 'card' }, heading, h('p', { role: 'alert' }, describe(error)), retry),
      ),
    );
    focus(heading);
  }

  #signIn(notice: string | null): void {
    this.#leave();
    this.#session = null;
    this.#shell = null;
    this.#data.clear();
    showSignIn({
      api: this.#options.api,
      devices: this.#options.devices,
      root: this.#options.root,
      notice,
      loginEnabled: this.#loginEnabled,
      onSignedIn: (session) =>
        this.#signedIn(session, `Signed in as ${session.username}, group ${session.userGroup}.`),
    });
  }

  #signedIn(session: SessionInfo, announcement: string | null): void {
    this.#leave();
    this.#session = session;
    this.#data.clear();
    this.#shell = renderShell(this.#options.root, session, this.#options.base, {
      switchGroup: (group) => this.#switchGroup(group),
      signOut: () => this.#signOut(),
    });
    this.#route();
    if (announcement) say(this.#shell.status, announcement);
  }

  /** Shows the route's page: the current one takes it if it can, else a new one. */
  #route(): void {
    const shell = this.#shell;
    const session = this.#session;
    if (!shell || !session) return;
    const route = parseRoute(location.hash);
    quiet(shell);
    if (this.#pending) say(shell.status, this.#pending);
    this.#pending = null;
    if (this.#view?.view.update(route)) return;
    this.#leave();
    const controller = new AbortController();
    const ctx: ViewContext = {
      api: this.#options.api,
      data: this.#data,
      preferences: this.#options.preferences,
      session,
      main: shell.main,
      signal: controller.signal,
      announce: (text) => say(shell.status, text),
      fail: (error) => this.#fail(error),
      navigate: (to, announcement) => this.#navigate(to, announcement),
    };
    this.#view = { view: this.#page(route, ctx), controller };
  }

  #page(route: Route, ctx: ViewContext): View {
    switch (route.name) {
      case 'profiles':
        return new ProfilesView(ctx);
      case 'assets':
        return new AssetsView(ctx, route);
      case 'views':
        return new ViewsList(ctx, route.profile);
      case 'view':
        return new ViewPage(ctx, route);
      case 'asset':
        return new AssetView(ctx, route);
      case 'map':
        return new MapView(ctx, route);
      case 'not-found': {
        const heading = h('h1', { tabindex: -1 }, 'Nothing here');
        ctx.main.replaceChildren(
          heading,
          h(
            'p',
            null,
            'The console has no page at this address. ',
            h('a', { href: '#/profiles' }, 'See the profiles.'),
          ),
        );
        focus(heading);
        return { update: () => false, close: () => undefined };
      }
    }
  }

  #leave(): void {
    this.#view?.controller.abort();
    this.#view?.view.close();
    this.#view = null;
  }

  /** Goes to `route`, then says `announcement`; to the same route again, it is drawn again. */
  #navigate(route: Route, announcement?: string): void {
    this.#pending = announcement ?? null;
    const target = href(route);
    if (location.hash === target) this.#route();
    else location.hash = target;
  }

  #fail(error: unknown): void {
    if (isAbort(error)) return;
    if (error instanceof SessionEndedError) {
      this.#signIn(error.message);
      return;
    }
    if (this.#shell) say(this.#shell.alert, describe(error));
    if (!(error instanceof ApiError)) console.error(error);
  }

  async #switchGroup(group: string): Promise<void> {
    try {
      const data = await this.#options.api.request<{
        setSessionUserGroup: { errors: { type: string; message: string }[]; session: RawSession | null };
      }>(documents.SET_GROUP, { userGroup: group });
      const refusal = payloadError(data.setSessionUserGroup.errors);
      const session = sessionInfo(data.setSessionUserGroup.session);
      if (refusal !== null || !session) {
        if (this.#shell) say(this.#shell.alert, refusal ?? 'The group was not switched.');
        return;
      }
      // Another group has other profiles: its list is where the switch leads.
      history.replaceState(null, '', '#/profiles');
      this.#signedIn(session, `Switched to group ${session.userGroup}.`);
    } catch (e) {
      this.#fail(e);
    }
  }

  async #signOut(): Promise<void> {
    try {
      const data = await this.#options.api.request<{
        signOut: { errors: { type: string; message: string }[] };
      }>(documents.SIGN_OUT);
      const refusal = payloadError(data.signOut.errors);
      if (refusal !== null) {
        if (this.#shell) say(this.#shell.alert, refusal);
        return;
      }
    } catch (e) {
      // Already ended: signed out all the same.
      if (!(e instanceof SessionEndedError)) {
        this.#fail(e);
        return;
      }
    }
    history.replaceState(null, '', '#/profiles');
    this.#signIn('You have signed out.');
  }
}

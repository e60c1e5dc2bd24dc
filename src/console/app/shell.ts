// The frame around every page once signed in: who is signed in, the group (and the switch to
// another when the user has several), sign-out, the live regions, and the page itself.
import type { SessionInfo } from './auth.ts';
import { busy, focus, h, say } from './dom.ts';

export interface ShellHandlers {
  /** Switches the session to `group` (a refusal shows in the alert line). */
  switchGroup(group: string): Promise<void>;
  signOut(): Promise<void>;
}

export interface Shell {
  main: HTMLElement;
  /** Polite announcements: what changed. */
  status: HTMLElement;
  /** Failures of the page, read out at once. */
  alert: HTMLElement;
}

/** Draws the frame into `root` for `session`, with `base` the console's path (its licences link). */
export function renderShell(
  root: HTMLElement,
  session: SessionInfo,
  base: string,
  handlers: ShellHandlers,
): Shell {
  const main = h('main', { id: 'main', tabindex: -1 });
  const status = h('p', { class: 'status', role: 'status', id: 'status' });
  const alert = h('p', { class: 'error', role: 'alert', id: 'alert' });
  const signOut = h('button', { type: 'button', id: 'sign-out' }, 'Sign out');
  signOut.addEventListener('click', () => {
    signOut.disabled = true;
    void handlers.signOut().finally(() => {
      signOut.disabled = false;
    });
  });
  root.replaceChildren(
    h(
      'a',
      {
        class: 'skip',
        href: '#main',
        onclick: (event: Event) => {
          event.preventDefault();
          focus(main);
        },
      },
      'Skip to content',
    ),
    h(
      'header',
      { class: 'top' },
      h('a', { class: 'brand', href: '#/profiles' }, 'assetql console'),
      h('nav', { 'aria-label': 'Sections' }, h('a', { href: '#/profiles' }, 'Profiles')),
      h(
        'div',
        { class: 'account' },
        h('span', { class: 'who' }, 'Signed in as ', h('strong', { id: 'username' }, session.username)),
        groupControl(session, handlers),
        signOut,
      ),
    ),
    h('div', { class: 'messages' }, status, alert),
    main,
    h(
      'footer',
      { class: 'bottom' },
      h('a', { href: `${base}/assets/licenses.txt` }, 'Licences of the software in this console'),
    ),
  );
  return { main, status, alert };
}

/** The group, and with several a form to switch: a select and a button, so that choosing is not acting. */
function groupControl(session: SessionInfo, handlers: ShellHandlers): HTMLElement {
  if (session.userGroups.length < 2) {
    return h('span', { class: 'group' }, 'Group ', h('strong', { id: 'group' }, session.userGroup));
  }
  const select = h(
    'select',
    { id: 'group', name: 'group' },
    session.userGroups.map((g) => h('option', { value: g, selected: g === session.userGroup }, g)),
  );
  const form = h(
    'form',
    { class: 'group' },
    h('label', { for: 'group' }, 'Group'),
    select,
    h('button', { type: 'submit' }, 'Switch group'),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    if (select.value === session.userGroup) return;
    void busy(form, () => handlers.switchGroup(select.value));
  });
  return form;
}

/** Clears both live regions (a new page says its own). */
export function quiet(shell: Shell): void {
  say(shell.status, '');
  say(shell.alert, '');
}

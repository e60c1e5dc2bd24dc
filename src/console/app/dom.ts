// Building the page from the DOM's own calls: no HTML string is ever parsed, so nothing an answer
// holds can become markup (and the page's CSP allows no inline script or style to begin with).

export type Child = Node | string | number | null | undefined | false;
type Listener = (event: Event) => void;
export type Attributes = Record<string, string | number | boolean | null | undefined | Listener>;

/** Sets attributes (`true` as present, `false`/null/undefined as absent) and `on…` listeners. */
function apply(element: Element, attributes: Attributes | null | undefined): void {
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (typeof value === 'function') element.addEventListener(name.slice(2).toLowerCase(), value);
    else if (value === true) element.setAttribute(name, '');
    else if (value !== false && value !== null && value !== undefined)
      element.setAttribute(name, String(value));
  }
}

function append(parent: Node, children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** An HTML element with attributes and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes?: Attributes | null,
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  apply(element, attributes);
  append(element, children);
  return element;
}

const SVG = 'http://www.w3.org/2000/svg';

/** An SVG element with attributes and children. */
export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attributes?: Attributes | null,
  ...children: (Child | Child[])[]
): SVGElementTagNameMap[K] {
  const element = document.createElementNS(SVG, tag);
  apply(element, attributes);
  append(element, children);
  return element;
}

/** The nodes of `children` that are there, for `replaceChildren` and `append`. */
export function present(...children: Child[]): (Node | string)[] {
  return children.flatMap((c) =>
    c === null || c === undefined || c === false ? [] : [typeof c === 'number' ? String(c) : c],
  );
}

/** A live region's text, replaced: screen readers announce the change. */
export function say(region: HTMLElement, text: string): void {
  region.textContent = text;
}

/** Moves the keyboard focus to `element` (made focusable if it is not), without scrolling past it. */
export function focus(element: HTMLElement | null | undefined): void {
  if (!element) return;
  if (!element.hasAttribute('tabindex') && element.tabIndex < 0) element.setAttribute('tabindex', '-1');
  element.focus();
}

/**
 * Gives `element` the focus back if the page lost it: an element moved by `replaceChildren`
 * (a heading kept from a loading page) loses the focus it had, which then sits on the body.
 */
export function regainFocus(element: HTMLElement): void {
  if (document.activeElement === document.body || document.activeElement === null) focus(element);
}

/** The value of a form's named control, trimmed unless `raw` (a password) ('' when it has none). */
export function field(form: HTMLFormElement, name: string, raw = false): string {
  const value = new FormData(form).get(name);
  if (typeof value !== 'string') return '';
  return raw ? value : value.trim();
}

/** While `work` runs: the form's controls disabled and the form marked busy. */
export async function busy<T>(form: HTMLFormElement, work: () => Promise<T>): Promise<T> {
  const controls = [...form.elements].filter(
    (e): e is HTMLButtonElement | HTMLInputElement | HTMLSelectElement =>
      (e instanceof HTMLButtonElement || e instanceof HTMLInputElement || e instanceof HTMLSelectElement) &&
      !e.disabled,
  );
  // A disabled control loses the focus: it goes back where it was once the work is done.
  const focused = document.activeElement;
  form.setAttribute('aria-busy', 'true');
  for (const c of controls) c.disabled = true;
  try {
    return await work();
  } finally {
    form.removeAttribute('aria-busy');
    for (const c of controls) c.disabled = false;
    if (focused instanceof HTMLElement && focused.isConnected && document.activeElement === document.body)
      focused.focus();
  }
}

// A view's widgets on the page's 12-column grid, each where its x/y/w/h puts it; while editing,
// moved by dragging its title bar and resized by dragging its corner (pointer events: mouse, pen
// and touch alike), or from the keyboard: "Move …" and the arrow keys move it a cell at a time,
// "Resize …" (or Shift with "Move …") and the arrow keys change its size. Every change goes
// through layout-grid.ts, so a layout made here is one the API takes.
import { h } from './dom.ts';
import {
  describeRect,
  dragged,
  type GridMetrics,
  moved,
  place,
  type Rect,
  readingOrder,
  resized,
  rowsUsed,
  sameLayout,
} from './layout-grid.ts';
import type { Widget } from './view-data.ts';

export interface EditorOptions {
  /** The content of a widget (drawn once per {@link LayoutEditor.show}). */
  body(widget: Widget): Node;
  /** The layout after a change the reader made (a drag ended, a key pressed). */
  changed(widgets: Widget[]): void;
  /** Says where a widget went, in the polite live region. */
  announce(text: string): void;
}

interface Frame {
  frame: HTMLElement;
  move: HTMLButtonElement;
  resize: HTMLButtonElement;
}

interface Drag {
  id: string;
  mode: 'move' | 'resize';
  pointer: number;
  x: number;
  y: number;
  start: Rect;
  base: Widget[];
  metrics: GridMetrics;
}

/** The id of the paragraph that says how to move widgets from the keyboard (the page draws it). */
export const KEYS_HINT = 'layout-keys';
/** Rows of room below the last widget while editing, to drag a widget down into. */
const ROOM = 4;

export class LayoutEditor {
  readonly element = h('div', { class: 'view-grid' });
  readonly #options: EditorOptions;
  #widgets: Widget[] = [];
  #editing = false;
  #frames = new Map<string, Frame>();
  #drag: Drag | null = null;
  /** The layout before a run of arrow keys on one widget began. */
  #keys: { id: string; base: Widget[] } | null = null;
  /** While frames are put in order: the focus a moved frame loses is not the reader's doing. */
  #arranging = false;
  /** Marks a widget's content that overflows it: scrollable, so reachable from the keyboard. */
  readonly #overflow = new ResizeObserver((entries) => {
    for (const { target } of entries) scrollable(target as HTMLElement);
  });

  constructor(options: EditorOptions) {
    this.#options = options;
  }

  /** Draws `widgets`, editable or not. */
  show(widgets: readonly Widget[], editing: boolean): void {
    this.#drag = null;
    this.#keys = null;
    this.#widgets = [...widgets];
    this.#editing = editing;
    this.element.classList.toggle('editing', editing);
    this.#frames = new Map(this.#widgets.map((w) => [w.id, this.#frame(w)]));
    this.element.replaceChildren();
    this.#arrange();
    this.#overflow.disconnect();
    for (const { frame } of this.#frames.values())
      this.#overflow.observe(frame.querySelector('.widget-body')!);
  }

  /** Stops watching the widgets' sizes (the page is left). */
  close(): void {
    this.#overflow.disconnect();
  }

  get widgets(): Widget[] {
    return this.#widgets;
  }

  #frame(widget: Widget): Frame {
    const title = `widget-${widget.id}-title`;
    const move = h(
      'button',
      { type: 'button', class: 'move', 'aria-label': `Move ${widget.name}`, 'aria-describedby': KEYS_HINT },
      'Move',
    );
    const resize = h(
      'button',
      {
        type: 'button',
        class: 'resize',
        'aria-label': `Resize ${widget.name}`,
        'aria-describedby': KEYS_HINT,
      },
      '◢',
    );
    const head = h(
      'div',
      { class: 'widget-head' },
      h('h2', { id: title }, widget.name),
      this.#editing ? move : null,
    );
    const frame = h(
      'section',
      { class: 'widget', 'data-widget': widget.id, 'data-kind': widget.widget, 'aria-labelledby': title },
      head,
      h('div', { class: 'widget-body', 'aria-labelledby': title }, this.#options.body(widget)),
      this.#editing ? resize : null,
    );
    if (this.#editing) {
      head.addEventListener('pointerdown', (e) => this.#start(e, widget.id, 'move', head));
      resize.addEventListener('pointerdown', (e) => this.#start(e, widget.id, 'resize', resize));
      for (const target of [head, resize] as HTMLElement[]) {
        target.addEventListener('pointermove', (e) => this.#follow(e));
        target.addEventListener('pointerup', (e) => this.#end(e, false));
        target.addEventListener('pointercancel', (e) => this.#end(e, true));
        target.addEventListener('lostpointercapture', (e) => this.#end(e as PointerEvent, false));
      }
      move.addEventListener('keydown', (e) => this.#key(e, widget.id, e.shiftKey ? 'resize' : 'move'));
      resize.addEventListener('keydown', (e) => this.#key(e, widget.id, 'resize'));
      frame.addEventListener('focusout', (e) => {
        if (!this.#arranging && !frame.contains(e.relatedTarget as Node | null)) this.#keys = null;
      });
    }
    return { frame, move, resize };
  }

  /**
   * Puts every frame at its widget's place and, unless a drag is under way (moving a node would
   * end its pointer capture), in reading order: the keyboard's order follows the eye's.
   */
  #arrange(reorder = true): void {
    const focused = document.activeElement;
    const rows = rowsUsed(this.#widgets) + (this.#editing ? ROOM : 0);
    this.element.style.gridTemplateRows = `repeat(${Math.max(rows, 1)}, var(--row-height))`;
    this.#arranging = true;
    try {
      readingOrder(this.#widgets).forEach((w, i) => {
        const { frame } = this.#frames.get(w.id)!;
        this.#position(frame, w.layout);
        if (reorder && this.element.children[i] !== frame)
          this.element.insertBefore(frame, this.element.children[i] ?? null);
      });
      if (
        focused instanceof HTMLElement &&
        this.element.contains(focused) &&
        document.activeElement !== focused
      )
        focused.focus();
    } finally {
      this.#arranging = false;
    }
  }

  /** A frame's place: grid lines on screen, and its width as `--w` for the print stylesheet's flow. */
  #position(frame: HTMLElement, r: Rect): void {
    frame.style.gridColumn = `${r.x + 1} / span ${r.w}`;
    frame.style.gridRow = `${r.y + 1} / span ${r.h}`;
    frame.style.setProperty('--w', String(r.w));
  }

  /** The grid's cells as drawn now. */
  #metrics(): GridMetrics {
    const style = getComputedStyle(this.element);
    const gap = Number.parseFloat(style.columnGap) || 0;
    const inner =
      this.element.clientWidth -
      (Number.parseFloat(style.paddingLeft) || 0) -
      (Number.parseFloat(style.paddingRight) || 0);
    // Computed, the auto rows are in pixels (the custom property would still say rem).
    const row = Number.parseFloat(style.gridAutoRows) || 52;
    return { columnWidth: (inner - gap * 11) / 12, rowHeight: row, gap };
  }

  #start(event: PointerEvent, id: string, mode: Drag['mode'], target: HTMLElement): void {
    if (event.button !== 0 || this.#drag) return;
    const widget = this.#widgets.find((w) => w.id === id);
    if (!widget) return;
    // The move button is in the title bar: a drag starting on it moves too. A resize is its own.
    if (mode === 'move' && (event.target as Element).closest('.resize')) return;
    event.preventDefault();
    target.setPointerCapture(event.pointerId);
    this.#drag = {
      id,
      mode,
      pointer: event.pointerId,
      x: event.clientX,
      y: event.clientY,
      start: widget.layout,
      base: this.#widgets,
      metrics: this.#metrics(),
    };
    this.#keys = null;
    this.#frames.get(id)?.frame.classList.add('dragging');
  }

  #follow(event: PointerEvent): void {
    const drag = this.#drag;
    if (!drag || event.pointerId !== drag.pointer) return;
    const rect = dragged(drag.start, drag.mode, event.clientX - drag.x, event.clientY - drag.y, drag.metrics);
    const next = place(drag.base, drag.id, rect);
    if (sameLayout(next, this.#widgets)) return;
    this.#widgets = next;
    this.#arrange(false);
  }

  #end(event: PointerEvent, cancelled: boolean): void {
    const drag = this.#drag;
    if (!drag || event.pointerId !== drag.pointer) return;
    this.#drag = null;
    this.#frames.get(drag.id)?.frame.classList.remove('dragging');
    if (cancelled) this.#widgets = drag.base;
    this.#arrange();
    if (!cancelled && !sameLayout(drag.base, this.#widgets)) this.#changed(drag.id);
  }

  #key(event: KeyboardEvent, id: string, mode: 'move' | 'resize'): void {
    const step = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[event.key];
    if (!step) return;
    event.preventDefault();
    const widget = this.#widgets.find((w) => w.id === id);
    if (!widget) return;
    const [dx, dy] = step as [number, number];
    const rect = mode === 'move' ? moved(widget.layout, dx, dy) : resized(widget.layout, dx, dy);
    // Keys pressed one after another on one widget are one move, as a drag is: each is placed
    // from the layout before the first, so a widget pushed aside comes back.
    if (this.#keys?.id !== id) this.#keys = { id, base: this.#widgets };
    const next = place(this.#keys.base, id, rect);
    if (sameLayout(next, this.#widgets)) {
      this.#options.announce(`${widget.name} is at the edge: ${describeRect(widget.layout)}.`);
      return;
    }
    this.#widgets = next;
    this.#arrange();
    this.#changed(id);
  }

  #changed(id: string): void {
    const widget = this.#widgets.find((w) => w.id === id)!;
    this.#options.announce(`${widget.name}: ${describeRect(widget.layout)}.`);
    this.#options.changed(this.#widgets);
  }
}

/** A widget's content that does not fit scrolls: it takes the focus then, as a named region. */
function scrollable(body: HTMLElement): void {
  const overflows = body.scrollHeight > body.clientHeight + 1 || body.scrollWidth > body.clientWidth + 1;
  if (overflows === body.hasAttribute('tabindex')) return;
  if (overflows) {
    body.setAttribute('tabindex', '0');
    body.setAttribute('role', 'region');
  } else {
    body.removeAttribute('tabindex');
    body.removeAttribute('role');
  }
}

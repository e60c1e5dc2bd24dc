// The map's interactive surface: a canvas in a focusable frame. Dragging and the arrow keys pan,
// the wheel, double-click, + and − zoom, Home goes back to where the map started; each move is
// drawn at once with what was last answered and reported (`onMove`) so the view can ask the API
// for the new viewport. A click on a cluster zooms into it; on an asset, it is reported.
import { h } from './dom.ts';
import type { MapFeature } from './map-data.ts';
import { clusterRadius, type DrawLayer, drawMap, type Frame, screenOf } from './map-draw.ts';
import {
  type Bbox,
  clamp,
  fitted,
  MAX_ZOOM,
  type MapPosition,
  MIN_ZOOM,
  moved,
  zoomedAt,
} from './map-projection.ts';

/**
 * How a move came about: the map's first size (asked for at once), a finished step, or a drag
 * still going on (asked for when it pauses).
 */
export type MoveKind = 'start' | 'step' | 'drag';

export interface MapCanvasOptions {
  label: string;
  /** Where the map starts; with `fit`, where it looks until its size is known. */
  position: MapPosition;
  /** A box to show whole once the map's size is known (its start then). */
  fit?: Bbox | null;
  minZoom?: number;
  maxZoom?: number;
  onMove(position: MapPosition, kind: MoveKind): void;
  onSelect(feature: MapFeature | null): void;
}

/** Pixels an arrow key pans. */
const KEY_STEP = 96;

export class MapCanvas {
  /** The focusable frame holding the canvas: what the page places. */
  readonly element: HTMLDivElement;
  readonly #canvas = h('canvas', { class: 'map-canvas', 'aria-hidden': 'true' });
  readonly #options: MapCanvasOptions;
  #home: MapPosition;
  #position: MapPosition;
  #layers: readonly DrawLayer[] = [];
  #size: [number, number] = [0, 0];
  readonly #resize: ResizeObserver;
  #drag: { id: number; x: number; y: number; moved: boolean } | null = null;

  constructor(options: MapCanvasOptions) {
    this.#options = options;
    this.#home = this.#bounded(options.position);
    this.#position = this.#home;
    this.element = h(
      'div',
      {
        class: 'map-frame',
        tabindex: 0,
        role: 'application',
        'aria-roledescription': 'map',
        'aria-label': options.label,
        'aria-describedby': 'map-keys',
      },
      this.#canvas,
    );
    this.element.addEventListener('keydown', (e) => this.#key(e));
    this.element.addEventListener('wheel', (e) => this.#wheel(e), { passive: false });
    this.element.addEventListener('dblclick', (e) => {
      const [ox, oy] = this.#offset(e);
      this.zoomTo(this.#position.zoom + 1, ox, oy);
    });
    this.element.addEventListener('pointerdown', (e) => this.#down(e));
    this.element.addEventListener('pointermove', (e) => this.#dragged(e));
    this.element.addEventListener('pointerup', (e) => this.#up(e));
    this.element.addEventListener('pointercancel', () => {
      this.#drag = null;
    });
    this.#resize = new ResizeObserver(() => this.#measure());
    this.#resize.observe(this.element);
  }

  get position(): MapPosition {
    return this.#position;
  }

  /** The map's size in CSS pixels. */
  get size(): [number, number] {
    return this.#size;
  }

  setLayers(layers: readonly DrawLayer[]): void {
    this.#layers = layers;
    this.draw();
  }

  /** Moves to `position` (within the zoom range) and reports it as a finished step. */
  moveTo(position: MapPosition): void {
    this.#position = this.#bounded(position);
    this.draw();
    this.#options.onMove(this.#position, 'step');
  }

  zoomTo(zoom: number, ox = 0, oy = 0): void {
    const z = clamp(zoom, this.#options.minZoom ?? MIN_ZOOM, this.#options.maxZoom ?? MAX_ZOOM);
    if (z === this.#position.zoom) return;
    this.moveTo(zoomedAt(this.#position, z, ox, oy));
  }

  panBy(dx: number, dy: number, kind: MoveKind = 'step'): void {
    this.#position = moved(this.#position, dx, dy);
    this.draw();
    this.#options.onMove(this.#position, kind);
  }

  home(): void {
    this.moveTo(this.#home);
  }

  draw(): void {
    const [width, height] = this.#size;
    const g = this.#canvas.getContext('2d');
    if (!g || width === 0 || height === 0) return;
    const ratio = window.devicePixelRatio || 1;
    g.setTransform(ratio, 0, 0, ratio, 0, 0);
    drawMap(g, this.#view(), this.#layers);
  }

  close(): void {
    this.#resize.disconnect();
  }

  #view(): Frame {
    return { width: this.#size[0], height: this.#size[1], position: this.#position };
  }

  #bounded(p: MapPosition): MapPosition {
    return {
      ...p,
      zoom: clamp(p.zoom, this.#options.minZoom ?? MIN_ZOOM, this.#options.maxZoom ?? MAX_ZOOM),
    };
  }

  #measure(): void {
    const width = this.element.clientWidth;
    const height = this.element.clientHeight;
    if (width === this.#size[0] && height === this.#size[1]) return;
    const first = this.#size[0] === 0;
    this.#size = [width, height];
    const ratio = window.devicePixelRatio || 1;
    this.#canvas.width = Math.round(width * ratio);
    this.#canvas.height = Math.round(height * ratio);
    if (first && this.#options.fit && width > 0 && height > 0) {
      this.#home = this.#bounded(fitted(this.#options.fit, width, height, this.#options.maxZoom ?? 16));
      this.#position = this.#home;
    }
    this.draw();
    // A map that grew shows more: the view asks for it (the first size is its first viewport).
    this.#options.onMove(this.#position, first ? 'start' : 'drag');
  }

  /** The pointer's offset from the map's centre. */
  #offset(e: MouseEvent): [number, number] {
    const r = this.element.getBoundingClientRect();
    return [e.clientX - r.left - r.width / 2, e.clientY - r.top - r.height / 2];
  }

  #key(e: KeyboardEvent): void {
    if (e.altKey || e.ctrlKey || e.metaKey) return;
    const step = e.shiftKey ? KEY_STEP * 3 : KEY_STEP;
    const actions: Record<string, () => void> = {
      ArrowLeft: () => this.panBy(-step, 0),
      ArrowRight: () => this.panBy(step, 0),
      ArrowUp: () => this.panBy(0, -step),
      ArrowDown: () => this.panBy(0, step),
      '+': () => this.zoomTo(this.#position.zoom + 1),
      '=': () => this.zoomTo(this.#position.zoom + 1),
      '-': () => this.zoomTo(this.#position.zoom - 1),
      _: () => this.zoomTo(this.#position.zoom - 1),
      Home: () => this.home(),
    };
    const action = actions[e.key];
    if (!action) return;
    e.preventDefault();
    action();
  }

  #wheel(e: WheelEvent): void {
    e.preventDefault();
    if (e.deltaY === 0) return;
    const [ox, oy] = this.#offset(e);
    this.zoomTo(this.#position.zoom + (e.deltaY < 0 ? 1 : -1), ox, oy);
  }

  #down(e: PointerEvent): void {
    if (e.button !== 0) return;
    this.#drag = { id: e.pointerId, x: e.clientX, y: e.clientY, moved: false };
    this.element.setPointerCapture(e.pointerId);
  }

  #dragged(e: PointerEvent): void {
    const d = this.#drag;
    if (!d || d.id !== e.pointerId) return;
    const dx = e.clientX - d.x;
    const dy = e.clientY - d.y;
    if (!d.moved && Math.hypot(dx, dy) < 4) return;
    d.moved = true;
    d.x = e.clientX;
    d.y = e.clientY;
    this.panBy(-dx, -dy, 'drag');
  }

  #up(e: PointerEvent): void {
    const d = this.#drag;
    this.#drag = null;
    if (!d || d.id !== e.pointerId) return;
    if (d.moved) this.#options.onMove(this.#position, 'step');
    else this.#click(e);
  }

  /** A click: into the cluster under it, else the asset under it is selected (or none). */
  #click(e: PointerEvent): void {
    const r = this.element.getBoundingClientRect();
    const x = e.clientX - r.left;
    const y = e.clientY - r.top;
    const at = screenOf(this.#view());
    for (const layer of [...this.#layers].reverse()) {
      for (const c of layer.clusters) {
        const [cx, cy] = at(c.centroid[0], c.centroid[1]);
        if (Math.hypot(cx - x, cy - y) > clusterRadius(c.count)) continue;
        // Centred on it, as close as shows its box, one to four levels closer.
        const [w, h] = this.#size;
        const z = this.#position.zoom;
        const zoom = clamp(fitted(c.bbox, w, h, MAX_ZOOM).zoom, z + 1, z + 4);
        this.moveTo({ lon: c.centroid[0], lat: c.centroid[1], zoom });
        return;
      }
      for (const f of layer.features) {
        const point = f.geometry?.type === 'Point' ? (f.geometry.coordinates as number[]) : null;
        if (!point) continue;
        const [px, py] = at(point[0]!, point[1]!);
        if (Math.hypot(px - x, py - y) <= 7) {
          this.#options.onSelect(f);
          return;
        }
      }
    }
    this.#options.onSelect(null);
  }
}

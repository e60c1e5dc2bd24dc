// The QR code of an authenticator app's `otpauth://` URI, drawn as SVG by the page itself: the
// `qrcode` package makes the symbol's modules, and nothing leaves the browser (no image service).
import { create } from 'qrcode';
import { svg } from './dom.ts';

/** Modules of white around the symbol, as the QR specification asks of readers' quiet zone. */
const QUIET_ZONE = 4;

/** The symbol of `text`: its size in modules and one SVG path of its dark modules, a run a rectangle. */
export function qrPath(text: string): { size: number; d: string } {
  const { modules } = create(text, { errorCorrectionLevel: 'M' });
  const { size } = modules;
  const runs: string[] = [];
  for (let y = 0; y < size; y++) {
    let x = 0;
    while (x < size) {
      if (!modules.get(y, x)) {
        x++;
        continue;
      }
      const from = x;
      while (x < size && modules.get(y, x)) x++;
      runs.push(`M${from} ${y}h${x - from}v1h-${x - from}z`);
    }
  }
  return { size, d: runs.join('') };
}

/** The QR code of `text` as an image named `label` for screen readers. */
export function qrImage(text: string, label: string): SVGSVGElement {
  const { size, d } = qrPath(text);
  const side = size + 2 * QUIET_ZONE;
  return svg(
    'svg',
    {
      class: 'qr',
      role: 'img',
      'aria-label': label,
      viewBox: `${-QUIET_ZONE} ${-QUIET_ZONE} ${side} ${side}`,
      'shape-rendering': 'crispEdges',
    },
    svg('rect', { x: -QUIET_ZONE, y: -QUIET_ZONE, width: side, height: side, fill: '#ffffff' }),
    svg('path', { d, fill: '#000000' }),
  );
}

import { describe, expect, it } from 'vitest';
import { qrPath } from './qr.ts';

describe('the QR code of an otpauth URI', () => {
  const uri =
    'otpauth://totp/assetql:tina?issuer=assetql&secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&algorithm=SHA1&digits=6&period=30';

  it('is a whole symbol: a version size, the finder patterns in three corners', () => {
    const { size, d } = qrPath(uri);
    expect((size - 17) % 4).toBe(0);
    // Row 0: the top-left finder's seven dark modules, a light one, …, the top-right finder's seven.
    expect(d.startsWith('M0 0h7v1h-7z')).toBe(true);
    expect(d).toContain(`M${size - 7} 0h7v1h-7z`);
    // Row 1 of a finder: dark, five light, dark.
    expect(d).toContain('M0 1h1v1h-1zM6 1h1v1h-1z');
  });

  it('is the same for the same text, and another for another', () => {
    expect(qrPath(uri)).toEqual(qrPath(uri));
    expect(qrPath(uri).d).not.toBe(qrPath(uri.replace('tina', 'nora')).d);
  });
});

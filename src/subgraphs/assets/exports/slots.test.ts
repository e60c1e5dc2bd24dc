import { describe, expect, it } from 'vitest';
import { ExportSlots } from './slots.ts';

describe('ExportSlots', () => {
  it('gives a tenant at most its share, and every tenant together at most the whole', () => {
    const slots = new ExportSlots({ maxConcurrent: 3, maxPerTenant: 1 });
    const a = slots.take('a');
    expect(a.ok).toBe(true);
    expect(slots.take('a')).toMatchObject({ ok: false, type: 'TENANT_SHARE' });
    expect(slots.take('b').ok).toBe(true);
    expect(slots.take('c').ok).toBe(true);
    expect(slots.take('d')).toMatchObject({ ok: false, type: 'ALL_TAKEN' });
    expect(slots.taken()).toBe(3);
  });

  it('counts a slot given back once, however often it is released', () => {
    const slots = new ExportSlots({ maxConcurrent: 2, maxPerTenant: 2 });
    const first = slots.take('a');
    const second = slots.take('a');
    if (!first.ok || !second.ok) throw new Error('no slot');
    first.value.release();
    first.value.release();
    expect(slots.taken('a')).toBe(1);
    expect(slots.taken()).toBe(1);
    second.value.release();
    expect(slots.taken()).toBe(0);
    expect(slots.take('b').ok).toBe(true);
    expect(slots.take('b').ok).toBe(true);
  });
});

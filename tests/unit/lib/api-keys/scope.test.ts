import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { outsideScope } from '../../../../lib/api-keys/rules';
import { decodeScope, encodeScope } from '../../../../lib/db/key-scope';
import { MAX_SCOPE_KPIS } from '../../../../lib/domain/api-key';

describe('KPI scope of a key', () => {
  it('holds 1 to 100 KPI ids, 16 bytes each, and reads back the same ids', () => {
    const ids = Array.from({ length: MAX_SCOPE_KPIS }, () => randomUUID());
    const stored = encodeScope(ids);
    expect(stored).toHaveLength(Math.ceil((MAX_SCOPE_KPIS * 16 * 4) / 3));
    expect(decodeScope(stored)).toEqual(ids);
    expect(decodeScope(encodeScope(ids.slice(0, 1)))).toEqual(ids.slice(0, 1));
  });

  it('refuses no ids, more than 100, and anything that is not a UUID, naming what it got', () => {
    expect(() => encodeScope([])).toThrow('A key scope names 1 to 100 KPIs, got 0.');
    expect(() => encodeScope(Array.from({ length: 101 }, () => randomUUID()))).toThrow(
      'A key scope names 1 to 100 KPIs, got 101.',
    );
    expect(() => encodeScope([randomUUID(), 'kpi-1'])).toThrow(
      'A key scope holds KPI ids (UUIDs), got "kpi-1".',
    );
  });

  it('names the requested KPIs outside the scope once each, whatever the case; an unscoped key has none', () => {
    const [a, b] = [randomUUID(), randomUUID()];
    expect(outsideScope(null, [a, b])).toEqual([]);
    expect(outsideScope([a], [a.toUpperCase(), b, b])).toEqual([b]);
  });
});

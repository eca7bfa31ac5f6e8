import { describe, expect, it } from 'vitest';
import type { Kpi } from '../../../../lib/domain/kpi';
import { archivedKpiMessage, assertLiveKpis } from '../../../../lib/push/store';

const kpi = (id: string, name: string, archivedAt?: string): Kpi => ({
  id,
  tenantId: '01936f0e-8a10-7f0b-8c55-1d2e3f405162',
  type: 'BSC_KPI',
  name,
  createdAt: '2026-01-05T08:00:00.000Z',
  period: 'month',
  direction: 'higher_is_better',
  tolerance: 0.1,
  qualitative: false,
  cadence: 'none',
  graceHours: 1,
  ...(archivedAt ? { archivedAt } : {}),
});

const LIVE = kpi('01936f0e-7d5a-7c3e-9a41-3f2b8c9d0e1f', 'Revenue');
const GONE = kpi('01936f0e-7d5a-7c3e-9a41-3f2b8c9d0e20', 'Churn', '2026-11-02T09:30:00.000Z');
const ALSO = kpi('01936f0e-7d5a-7c3e-9a41-3f2b8c9d0e21', 'Leads', '2026-11-02T09:30:00.000Z');
const all = new Map([LIVE, GONE, ALSO].map((k) => [k.id, k]));

/** The rule of a push and a pull alike: nothing is written to an archived KPI (lib/push/store.ts). */
describe('assertLiveKpis', () => {
  it('lets live KPIs through', () => {
    expect(() => assertLiveKpis([LIVE.id, LIVE.id], all)).not.toThrow();
  });

  it('refuses one archived KPI with 409 kpi-archived naming it, however often the set names it', () => {
    const error = (() => {
      try {
        assertLiveKpis([LIVE.id, GONE.id, GONE.id], all);
      } catch (e) {
        return e as { code: string; message: string; extensions: Record<string, unknown> };
      }
      return undefined;
    })();
    expect(error).toMatchObject({
      code: 'KPI_ARCHIVED',
      message: archivedKpiMessage(GONE),
      extensions: { archivedKpiIds: [GONE.id] },
    });
    expect(error?.message).toBe(
      `KPI ${GONE.id} (Churn) is archived; restore it with PATCH {"archived": false} to write to it.`,
    );
  });

  it('names every archived KPI of the set', () => {
    expect(() => assertLiveKpis([ALSO.id, LIVE.id, GONE.id], all)).toThrow(
      expect.objectContaining({
        message: expect.stringMatching(/^2 KPIs are archived: .*Leads.*Churn/),
        extensions: { archivedKpiIds: [ALSO.id, GONE.id] },
      }),
    );
  });
});

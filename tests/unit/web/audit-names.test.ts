import { describe, expect, it } from 'vitest';
import { namesOf } from '../../../web/audit/names';
import type { AuditEventPage } from '../../../web/shared/api-types';

type AuditEvent = AuditEventPage['items'][number];

const event = (target: AuditEvent['target'], details: AuditEvent['details']): AuditEvent =>
  ({
    id: `e-${Math.random()}`,
    at: '2026-12-01T00:00:00.000Z',
    type: 'kpi.updated',
    actor: { type: 'user', id: 'u1', email: 'a@example.test' },
    target,
    source: null,
    requestId: null,
    details,
  }) as AuditEvent;

describe('namesOf: the names of ids, from the loaded events', () => {
  it('names a key by its name and prefix, a KPI by its name, a user by the e-mail, and leaves the rest', () => {
    const names = namesOf([
      event({ type: 'api_key', id: 'k1' }, { name: 'Nightly cron', keyPrefix: 'sk_live_ab12' }),
      event({ type: 'kpi', id: 'p1' }, { name: 'Backlog', type: 'BSC_KPI' }),
      event({ type: 'user', id: 'u2' }, { email: 'new@example.test', role: 'EDITOR' }),
      event({ type: 'webhook', id: 'w1' }, { url: 'https://hooks.example.test' }),
    ]);
    expect(Object.fromEntries(names)).toEqual({
      k1: 'Nightly cron (sk_live_ab12…)',
      p1: 'Backlog',
      u2: 'new@example.test',
    });
  });

  it('keeps the newest name: events come newest first', () => {
    const names = namesOf([
      event({ type: 'kpi', id: 'p1' }, { name: 'Backlog (renamed)' }),
      event({ type: 'kpi', id: 'p1' }, { name: 'Backlog' }),
    ]);
    expect(names.get('p1')).toBe('Backlog (renamed)');
  });
});

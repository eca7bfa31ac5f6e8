import type { StoredIntegration } from '../lib/db/pull-integrations';
import type { Kpi } from '../lib/domain/kpi';
import { uuidv7 } from '../lib/ids';

/**
 * Items the bench and the tests store, built as the service's own values and written through the
 * entity's codec by the caller: one builder for both, so neither writes a field list of its own. Pure:
 * the bench imports it without vitest.
 */

/**
 * A pull integration as the service stores it, active with auth `none`, due at `at` (also its
 * creation); `changes` sets anything else. Written through the entity's codec by `putIntegration`.
 */
export const pullIntegrationRecord = (
  kpi: Pick<Kpi, 'id' | 'tenantId'>,
  at: string,
  changes: Partial<StoredIntegration> = {},
): StoredIntegration => {
  const id = uuidv7();
  return {
    id,
    tenantId: kpi.tenantId,
    name: `Source ${id}`,
    url: 'https://source.example.com/value',
    headers: {},
    auth: { type: 'none' },
    schedule: { every: 'day' },
    period: 'day',
    bindings: [{ kpiId: kpi.id, kpiType: 'BSC_KPI', actual: 'value' }],
    status: 'active',
    consecutiveFailures: 0,
    failingSince: null,
    disabledAt: null,
    lastRun: null,
    nextRunAt: at,
    createdAt: at,
    createdBy: null,
    updatedAt: at,
    sealedSecrets: null,
    claimedSlot: null,
    ...changes,
  };
};

import { handler as singleHandler } from '../../functions/push-measurement';
import { handler as batchHandler } from '../../functions/push-measurements-batch';
import type { Kpi } from '../../lib/db/kpis';
import { invoke } from './events';

export const pushOne = (apiKey: string | undefined, body: unknown, headers: Record<string, string> = {}) =>
  invoke(singleHandler, {
    method: 'POST',
    path: '/api/integrations/push/measurement',
    headers: { ...(apiKey === undefined ? {} : { 'x-api-key': apiKey }), ...headers },
    body,
  });

export const pushBatch = (
  apiKey: string | undefined,
  measurements: unknown,
  headers: Record<string, string> = {},
) =>
  invoke(batchHandler, {
    method: 'POST',
    path: '/api/integrations/push/measurements/batch',
    headers: { ...(apiKey === undefined ? {} : { 'x-api-key': apiKey }), ...headers },
    body: measurements === undefined ? undefined : { measurements },
  });

export const measurementFor = (kpi: Kpi, overrides: Record<string, unknown> = {}) => ({
  kpiId: kpi.id,
  kpiType: kpi.type,
  actual: 42,
  ...overrides,
});

import { handler as listHandler } from '../../functions/list-measurements';
import { handler as singleHandler } from '../../functions/push-measurement';
import { handler as batchHandler } from '../../functions/push-measurements-batch';
import type { Kpi } from '../../lib/domain/kpi';
import type { MeasurementInput } from '../../lib/push/measurement-schema';
import { createGateway } from './api-gateway';
import { invoke } from './events';
import { bearer, type TestTenant } from './fixtures';

/**
 * Pushes go through API Gateway's authorizer as on AWS (tests/support/api-gateway.ts), without its
 * result cache; tests of the handler alone call `invoke` on it directly.
 */
const gateway = createGateway();

/** `sourceIp`: the caller's address as API Gateway sees it (default 127.0.0.1). */
export const pushOne = (
  apiKey: string | undefined,
  body: unknown,
  headers: Record<string, string> = {},
  sourceIp?: string,
) =>
  gateway.invoke(singleHandler, {
    method: 'POST',
    path: '/api/integrations/push/measurement',
    headers: { ...(apiKey === undefined ? {} : { 'x-api-key': apiKey }), ...headers },
    body,
    ...(sourceIp ? { sourceIp } : {}),
  });

export const pushBatch = (
  apiKey: string | undefined,
  measurements: unknown,
  headers: Record<string, string> = {},
) =>
  gateway.invoke(batchHandler, {
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

/**
 * `count` valid measurements spread over `kpis`, each for its own month from January of `year`
 * (distinct identities; the test KPIs are monthly, so each is one whole period of its KPI).
 */
export const monthlyMeasurements = (kpis: Kpi[], count: number, year: number): MeasurementInput[] =>
  Array.from({ length: count }, (_, i) => {
    const kpi = kpis[i % kpis.length] as Kpi;
    return {
      kpiId: kpi.id,
      kpiType: kpi.type,
      actual: i,
      target: undefined,
      forecast: undefined,
      periodStart: new Date(Date.UTC(year, i, 1)).toISOString().slice(0, 10),
      periodEnd: new Date(Date.UTC(year, i + 1, 0)).toISOString().slice(0, 10),
    };
  });

/**
 * What `GET /kpis/{kpiId}/measurements` shows a VIEWER of the tenant: how users see what push stored,
 * comparable with a push response. Reads also show where each record came from (`receivedAt`,
 * `apiKeyId`, `apiKeyPrefix`; tested with the read endpoints); push responses do not.
 */
export const storedMeasurements = async (tenant: TestTenant, kpiId: string) =>
  (
    (
      await invoke(listHandler, {
        path: `/api/kpis/${kpiId}/measurements`,
        pathParameters: { kpiId },
        headers: bearer(tenant.users.VIEWER.token),
      })
    ).body.items as Record<string, any>[]
  ).map(
    ({
      receivedAt: _at,
      apiKeyId: _id,
      apiKeyPrefix: _prefix,
      integrationId: _integration,
      integrationName: _name,
      ...values
    }) => values,
  );

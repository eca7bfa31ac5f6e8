import { describe, expect, it } from 'vitest';
import { contractViolations, type ObservedResponse } from '../../support/contract';

/**
 * The contract check that every end-to-end response passes through (tests/support/http.ts): it must
 * catch each way a response can break the document, or the e2e suite would prove nothing.
 */
const PROBLEMS = 'https://strategy-service.example.com/problems/';
const measurement = {
  id: '01937b21-44c0-7a8e-b1d2-3c4d5e6f7a8b',
  kpiId: '01936f0e-7d5a-7c3e-9a41-3f2b8c9d0e1f',
  kpiType: 'BSC_KPI',
  actual: 40,
  target: null,
  forecast: null,
  periodStart: '2026-09-01',
  periodEnd: '2026-09-30',
  createdAt: '2026-09-01T06:00:00.412Z',
  updatedAt: '2026-09-01T06:00:00.412Z',
  replaced: null,
};
const rateLimit = { 'RateLimit-Limit': '300', 'RateLimit-Remaining': '299', 'RateLimit-Reset': '42' };

const observed = (
  overrides: Partial<Omit<ObservedResponse, 'headers'>> & {
    headers?: Record<string, string>;
    json?: unknown;
  },
): ObservedResponse => {
  const { headers, json, ...rest } = overrides;
  const contentType =
    rest.status !== undefined && rest.status >= 400 ? 'application/problem+json' : 'application/json';
  return {
    method: 'POST',
    path: '/integrations/push/measurement',
    status: 201,
    text: json === undefined ? '' : JSON.stringify(json),
    ...rest,
    headers: new Headers({ 'Content-Type': contentType, 'X-Request-Id': 'r-1', ...rateLimit, ...headers }),
  };
};

const problem = (slug: string, status: number, extra: Record<string, unknown> = {}) => ({
  type: `${PROBLEMS}${slug}`,
  title: 'Title',
  status,
  detail: 'Detail.',
  requestId: 'r-1',
  ...extra,
});

describe('contract check', () => {
  it('accepts documented answers: a created measurement, a 429 with Retry-After, a 204', () => {
    expect(contractViolations(observed({ json: measurement }))).toEqual([]);
    expect(
      contractViolations(
        observed({
          status: 429,
          json: problem('rate-limit-exceeded', 429),
          headers: { 'Retry-After': '17' },
        }),
      ),
    ).toEqual([]);
    expect(
      contractViolations({
        method: 'DELETE',
        path: '/webhooks/01937a55-0c4e-7b1d-a2f3-6e7d8c9b0a1f',
        status: 204,
        headers: new Headers({ 'X-Request-Id': 'r-1' }),
        text: '',
      }),
    ).toEqual([]);
    expect(
      contractViolations(
        observed({ method: 'GET', path: '/kpis?limit=3', status: 200, json: { items: [] } }),
      ),
    ).toEqual([]);
  });

  it('rejects an undocumented path, method or status', () => {
    expect(contractViolations(observed({ path: '/nothing', json: {} }))[0]).toMatch(
      /path is not in the document/,
    );
    expect(contractViolations(observed({ method: 'PUT', json: measurement }))[0]).toMatch(
      /PUT .* is not in the document/,
    );
    expect(contractViolations(observed({ status: 418, json: problem('teapot', 418) }))[0]).toMatch(
      /status 418 is not documented/,
    );
  });

  it('rejects a wrong Content-Type, and a body where none is declared', () => {
    expect(
      contractViolations(observed({ json: measurement, headers: { 'Content-Type': 'text/plain' } }))[0],
    ).toMatch(/Content-Type "text\/plain"/);
    expect(
      contractViolations({
        method: 'DELETE',
        path: '/webhooks/x',
        status: 204,
        headers: new Headers({ 'X-Request-Id': 'r-1' }),
        text: '{}',
      })[0],
    ).toMatch(/a body was sent/);
  });

  it('rejects a body that breaks the schema: a missing field, a wrong type, an undocumented member', () => {
    const { actual: _actual, ...withoutActual } = measurement;
    expect(contractViolations(observed({ json: withoutActual }))[0]).toMatch(
      /must have required property 'actual'/,
    );
    expect(contractViolations(observed({ json: { ...measurement, target: 'high' } }))[0]).toMatch(
      /\/target must be/,
    );
    // A leaked internal member (the stored record has more fields than the document names).
    expect(contractViolations(observed({ json: { ...measurement, apiKeyPrefix: 'skm_P97W' } }))[0]).toMatch(
      /must NOT have unevaluated properties/,
    );
  });

  it('accepts a dry run’s 200 on both push endpoints, and rejects a dry run answered 201', () => {
    const planned = { dryRun: true, status: 'created', measurement: { ...measurement, id: null } };
    expect(contractViolations(observed({ status: 200, json: planned }))).toEqual([]);
    expect(
      contractViolations(
        observed({
          path: '/integrations/push/measurements/batch?dryRun=true',
          status: 200,
          json: { dryRun: true, count: 1, items: [{ index: 0, ...planned, dryRun: undefined }] },
        }),
      ),
    ).toEqual([]);
    // A stored measurement has an id: only a dry run may say null.
    expect(contractViolations(observed({ status: 201, json: planned.measurement }))[0]).toMatch(
      /\/id must be/,
    );
  });

  it('rejects an undocumented member at any depth: in a batch item, a KPI’s activity, a key check', () => {
    const batch = { count: 1, items: [{ index: 0, status: 'created', measurement, retried: false }] };
    expect(
      contractViolations(
        observed({ path: '/integrations/push/measurements/batch', status: 200, json: batch }),
      ).join('\n'),
    ).toMatch(/must NOT have unevaluated properties/);
    const kpi = {
      id: measurement.kpiId,
      type: 'BSC_KPI',
      name: 'Revenue',
      createdAt: measurement.createdAt,
      period: 'month',
      direction: 'higher_is_better',
      tolerance: 0.1,
      qualitative: false,
      cadence: 'daily',
      graceHours: 1,
      lastMeasurementAt: null,
      quiet: true,
      quietSince: measurement.createdAt,
      change: null,
      activity: {
        latest: null,
        recent: [],
        usualIntervalDays: null,
        tenantId: 'leaked',
      },
    };
    const listed = (json: unknown) =>
      contractViolations(observed({ method: 'GET', path: '/kpis?include=activity', status: 200, json }));
    const { tenantId: _leak, ...activity } = kpi.activity;
    expect(listed({ items: [{ ...kpi, activity }] })).toEqual([]);
    expect(listed({ items: [kpi] })[0]).toMatch(/\/items\/0\/activity must NOT have unevaluated properties/);
    const check = {
      key: {
        id: measurement.id,
        prefix: 'skm_P97W',
        name: 'CI',
        status: 'active',
        createdAt: measurement.createdAt,
        expiresAt: null,
        allowedSources: ['203.0.113.7/32'],
      },
      source: { ip: '203.0.113.7', allowed: true },
      organization: { id: measurement.kpiId, plan: 'business', pushEnabled: true },
      rateLimit: { limit: 300, remaining: 299, resetSeconds: 42, windowSeconds: 60 },
    };
    const checked = (json: unknown) =>
      contractViolations(observed({ method: 'GET', path: '/integrations/push/key', status: 200, json }));
    expect(checked(check)).toEqual([]);
    expect(checked({ ...check, key: { ...check.key, keyHash: 'ab12' } })[0]).toMatch(
      /\/key must NOT have unevaluated properties/,
    );
  });

  it('rejects a problem type or status that the operation does not declare', () => {
    expect(contractViolations(observed({ status: 403, json: problem('user-disabled', 403) }))[0]).toMatch(
      /\/type must be equal to one of the allowed values/,
    );
    expect(contractViolations(observed({ status: 404, json: problem('not-found', 400) }))[0]).toMatch(
      /\/status must be equal to constant/,
    );
  });

  it('rejects a function’s answer without X-Request-Id, but not API Gateway’s own 401', () => {
    const bare = observed({ json: measurement });
    bare.headers.delete('X-Request-Id');
    expect(contractViolations(bare)).toEqual([
      expect.stringMatching(/required header X-Request-Id is missing/),
    ]);
    const edge = observed({
      status: 401,
      json: problem('invalid-api-key', 401),
      headers: { 'WWW-Authenticate': 'ApiKey' },
    });
    edge.headers.delete('X-Request-Id');
    expect(contractViolations(edge)).toEqual([]);
  });

  it('rejects a missing required header or a malformed integer header', () => {
    expect(contractViolations(observed({ status: 429, json: problem('rate-limit-exceeded', 429) }))).toEqual([
      expect.stringMatching(/required header Retry-After is missing/),
    ]);
    expect(
      contractViolations(observed({ json: measurement, headers: { 'RateLimit-Remaining': 'lots' } }))[0],
    ).toMatch(/header RateLimit-Remaining is "lots", not an integer/);
    expect(contractViolations(observed({ status: 401, json: problem('invalid-api-key', 401) }))[0]).toMatch(
      /required header WWW-Authenticate is missing/,
    );
  });
});

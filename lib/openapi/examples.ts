/**
 * Example values that several route declarations share (UUIDv7 ids, as the service makes them), so
 * that the examples of the OpenAPI document tell one consistent story.
 */
import { KPI_TARGET_DEFAULTS } from '../domain/kpi';

export const KPI_ID = '01936f0e-7d5a-7c3e-9a41-3f2b8c9d0e1f';

/** The body of a pull integration's creation, which the unsaved preview takes too. */
export const pullDefinitionExample = {
  name: 'Billing MRR',
  url: 'https://billing.acme.example/api/v1/metrics/mrr',
  auth: { type: 'bearer', token: 'sk_live_example' },
  schedule: { every: 'day', at: '06:30' },
  period: 'month',
  bindings: [{ kpiId: KPI_ID, kpiType: 'BSC_KPI', actual: 'data.mrr.amount', target: 'data.mrr.target' }],
};
export const OKR_ID = '01936f0e-8a10-7f0b-8c55-1d2e3f405162';
export const KEY_ID = '01937a55-0c4e-7b1d-a2f3-6e7d8c9b0a1f';
export const NEW_KEY_ID = '0193d2c4-51e8-7a0b-9c3d-2e1f0a9b8c7d';
export const USER_ID = '01936d11-2b3c-7d4e-8f50-617283940a1b';
export const CYCLE_ID = '01936e00-1a2b-7c3d-8e4f-5a6b7c8d9e0f';
export const CREATED = '2026-09-01T06:00:00.412Z';

export const measurementExample = {
  id: '01937b21-44c0-7a8e-b1d2-3c4d5e6f7a8b',
  kpiId: KPI_ID,
  kpiType: 'BSC_KPI',
  actual: 40,
  target: 45,
  forecast: null,
  periodStart: '2026-09-01',
  periodEnd: '2026-09-30',
  createdAt: CREATED,
  updatedAt: CREATED,
  replaced: null,
};

export const batchExample = {
  count: 2,
  items: [
    { index: 0, status: 'created', measurement: measurementExample },
    {
      index: 1,
      status: 'updated',
      measurement: {
        ...measurementExample,
        id: '01937b21-5d10-7c2e-9f3a-4b5c6d7e8f90',
        kpiId: OKR_ID,
        kpiType: 'OKR_KEY_RESULT',
        actual: 0.7,
        target: null,
        forecast: 0.9,
        createdAt: '2026-09-01T06:00:00.100Z',
        // Replaced a value a pull integration had stored for the period.
        replaced: {
          actual: 0.68,
          target: null,
          forecast: 0.9,
          writtenAt: '2026-09-01T06:00:00.100Z',
          writtenBy: {
            type: 'integration',
            id: '01937b21-6e20-7d3f-8a4b-5c6d7e8f9a01',
            name: 'Deploy metrics',
          },
          otherSource: true,
        },
      },
    },
  ],
};

/** A KPI as the read endpoints show it, measured by the default rule. */
export const kpiExample = {
  id: KPI_ID,
  type: 'BSC_KPI',
  name: 'Monthly recurring revenue',
  unit: 'EUR',
  createdAt: '2026-01-05T08:00:00.000Z',
  period: 'month',
  ...KPI_TARGET_DEFAULTS,
  cadence: 'monthly',
  graceHours: 24,
};

/** When `kpiExample` last heard from its monthly job, and when it goes quiet: 31 days and 24 h later. */
export const arrivalsExample = {
  lastMeasurementAt: CREATED,
  quiet: false,
  quietSince: '2026-10-03T06:00:00.412Z',
};

/** The status of `kpiExample` from `measurementExample`: 40 against 45 misses by more than 10 %. */
export const kpiStatusExample = {
  value: 'off_track',
  measurement: {
    id: measurementExample.id,
    periodStart: measurementExample.periodStart,
    periodEnd: measurementExample.periodEnd,
    actual: measurementExample.actual,
    target: measurementExample.target,
  },
  targetSource: 'measurement',
};

/** As the read endpoints show it: with where it came from. */
export const measurementRecordExample = {
  ...measurementExample,
  receivedAt: CREATED,
  apiKeyId: KEY_ID,
  apiKeyPrefix: 'skm_P97W',
  integrationId: null,
  integrationName: null,
};

export const adminActor = { type: 'user', userId: USER_ID, email: 'admin@acme.example' };

export const apiKeyExample = {
  id: KEY_ID,
  name: 'Nightly cron',
  prefix: 'skm_P97W',
  status: 'active',
  createdAt: '2026-08-14T09:12:44.101Z',
  expiresAt: '2027-06-30T00:00:00.000Z',
  lastUsedAt: CREATED,
  revokedAt: null,
  kpiIds: null,
  allowedSources: null,
  createdBy: adminActor,
  revokedBy: null,
  rolledAt: null,
  rolledBy: null,
  replacedBy: null,
  replaces: null,
};

/** A nightly job's last 30 days (24 pushes a day, two refused one day), and of a key never used. */
const recentDays = (requests: (day: number) => number, refused: (day: number) => number) =>
  Array.from({ length: 30 }, (_, day) => ({
    date: new Date(Date.UTC(2026, 9, 27 + day)).toISOString().slice(0, 10),
    requests: requests(day),
    refused: refused(day),
  }));
export const recentUsageExample = {
  days: recentDays(
    () => 24,
    (day) => (day === 28 ? 2 : 0),
  ),
  requests: 720,
  accepted: 718,
  refused: 2,
  lastRequestAt: '2026-11-25T09:10:04.552Z',
  lastSourceIp: '203.0.113.7',
  lastUserAgent: 'kpi-push/0.2.0',
};
export const unusedExample = {
  days: recentDays(
    () => 0,
    () => 0,
  ),
  requests: 0,
  accepted: 0,
  refused: 0,
  lastRequestAt: null,
  lastSourceIp: null,
  lastUserAgent: null,
};

export const WEBHOOK_ID = '0193e1a2-3b4c-7d5e-8f60-718293a4b5c6';
export const DELIVERY_ID = '0193e1b0-11d2-7e3f-9a4b-5c6d7e8f9a0b';

export const webhookExample = {
  id: WEBHOOK_ID,
  url: 'https://hooks.acme.example/strategy-service',
  eventTypes: ['api_key.revoked', 'api_key.rolled'],
  description: 'Security channel',
  status: 'active',
  disabledAt: null,
  disabledReason: null,
  createdAt: CREATED,
  createdBy: { type: 'user', userId: USER_ID },
} as const;

export const deliveryExample = {
  id: DELIVERY_ID,
  endpointId: WEBHOOK_ID,
  eventType: 'api_key.revoked',
  status: 'pending',
  createdAt: '2026-09-02T10:00:00.120Z',
  payload: `{"type":"api_key.revoked","timestamp":"2026-09-02T10:00:00.100Z","data":{"keyId":"${KEY_ID}","keyPrefix":"skm_P97W","name":"Nightly cron","revokedBy":{"type":"user","userId":"${USER_ID}"}}}`,
  attempts: [
    { attempt: 1, at: '2026-09-02T10:00:00.130Z', durationMs: 212, httpStatus: 503, error: null },
    { attempt: 2, at: '2026-09-02T10:00:05.140Z', durationMs: 10_000, httpStatus: null, error: 'timeout' },
  ],
  nextAttemptAt: '2026-09-02T10:05:15.140Z',
} as const;

export const PULL_ID = '0193f0c4-5d6e-7f80-9a1b-2c3d4e5f6a7b';
export const PULL_RUN_ID = '0193f0d0-0a1b-7c2d-8e3f-4a5b6c7d8e9f';

const pullRunSummary = {
  id: PULL_RUN_ID,
  startedAt: '2026-09-02T06:30:00.210Z',
  durationMs: 412,
  httpStatus: 200,
  outcome: 'stored',
  errorClass: null,
} as const;

export const pullIntegrationExample = {
  id: PULL_ID,
  name: 'Billing MRR',
  url: 'https://billing.acme.example/api/v1/metrics/mrr',
  headers: { 'Accept-Language': 'en' },
  auth: { type: 'bearer', token: { set: true } },
  schedule: { every: 'day', at: '06:30' },
  period: 'month',
  bindings: [
    {
      kpiId: measurementExample.kpiId,
      kpiType: 'BSC_KPI',
      actual: 'data.mrr.amount',
      target: 'data.mrr.target',
    },
  ],
  status: 'active',
  consecutiveFailures: 0,
  failingSince: null,
  disabledAt: null,
  lastRun: pullRunSummary,
  nextRunAt: '2026-09-03T06:30:00.000Z',
  createdAt: CREATED,
  createdBy: { type: 'user', userId: USER_ID },
  updatedAt: CREATED,
} as const;

export const pullRunExample = {
  ...pullRunSummary,
  integrationId: PULL_ID,
  trigger: 'schedule',
  error: null,
  measurementsStored: 1,
  bindings: [
    {
      kpiId: measurementExample.kpiId,
      kpiType: 'BSC_KPI',
      result: 'updated',
      periodStart: '2026-09-01',
      periodEnd: '2026-09-30',
      actual: 248_500,
      target: 260_000,
      forecast: null,
      problem: null,
    },
  ],
} as const;

/** An audit event as `GET /audit-events` lists it: an ADMIN revoked a key from a browser. */
export const auditEventExample = {
  id: '0193e1a2-7b3c-7d4e-9f50-a1b2c3d4e5f6',
  at: '2026-09-02T14:03:11.209Z',
  type: 'api_key.revoked',
  actor: { type: 'user', id: USER_ID, email: 'admin@acme.example' },
  target: { type: 'api_key', id: KEY_ID },
  source: { ip: '203.0.113.7', userAgent: 'Mozilla/5.0 (X11; Linux x86_64)' },
  requestId: 'c0ffee00-1234-4abc-8def-0123456789ab',
  details: { keyPrefix: 'skm_P97W', name: 'Nightly cron', revoked: true, graceEndedOf: null },
};

export const PERSON_ID = '0193f5a1-2c3d-7e4f-8a5b-6c7d8e9f0a1b';

export const personExample = {
  id: PERSON_ID,
  email: 'ana@acme.example',
  name: 'Ana Lima',
  role: 'EDITOR',
  status: 'active',
  lastSignInAt: '2026-09-02T08:15:00.000Z',
  invitedBy: { userId: USER_ID, email: 'admin@acme.example' },
  createdAt: CREATED,
  updatedAt: '2026-09-02T08:15:00.000Z',
};

export const linkExample = {
  url: 'https://strategy.acme.example/platform/accept#token=sul_Xq3v9Zk2Lw8bR1tYp0cN5mA7sD4fG6hJ2kL9zQ1wE3r',
  token: 'sul_Xq3v9Zk2Lw8bR1tYp0cN5mA7sD4fG6hJ2kL9zQ1wE3r',
  purpose: 'invitation',
  expiresAt: '2026-09-08T06:00:00.412Z',
};

import * as z from 'zod/mini';
import type { Role } from '../auth/roles';
import type { ErrorCode } from '../errors';
import { createApiKeySchema, rollApiKeySchema } from '../http/api-key-schemas';
import {
  apiKeyPageSchema,
  batchResultSchema,
  createdApiKeySchema,
  dryRunBatchSchema,
  dryRunMeasurementSchema,
  healthSchema,
  keyCheckSchema,
  kpiDetailSchema,
  kpiPageSchema,
  loginResponseSchema,
  measurementPageSchema,
  measurementSchema,
  refreshResponseSchema,
  rolledApiKeySchema,
  strategicCyclePageSchema,
} from '../http/response-schemas';
import {
  kpiListQuerySchema,
  loginSchema,
  pageQuerySchema,
  pushQuerySchema,
  refreshSchema,
} from '../http/schemas';
import { batchSchema, measurementSchema as measurementInputSchema } from '../push/measurement-schema';

/**
 * Every API operation, one entry each: the OpenAPI document (./document.ts) is generated from this list
 * and the schemas it names, which are the ones the handlers validate with. Adding an endpoint is one
 * entry here (plus its function in serverless.yml); adding a query parameter is one property of the
 * entry's `query` schema, which the handler parses with.
 *
 * Errors: `errors` lists what the operation itself may answer; the generator adds those that follow
 * from `auth` (lib/http/jwt-auth.ts; for `apiKey` the push authorizer and lib/push/api-key-auth.ts), from
 * having a body (lib/http/middleware.ts `readJsonBody`) or a query, and 500/503 for every operation that
 * is not static.
 */

export type Auth = 'none' | 'jwt' | 'apiKey';
export type Tag = 'Authentication' | 'Push' | 'API keys' | 'KPIs' | 'Strategy' | 'Service';

export interface Example {
  summary: string;
  value: unknown;
}

export interface SuccessResponse {
  description: string;
  /**
   * Absent for a response without a body (204). Several: the body is one of them (`anyOf`), as a push's
   * 200 is the stored result or, with `?dryRun=true`, the dry run's plan; give `examples` of each then.
   */
  schema?: z.core.$ZodType | readonly [z.core.$ZodType, z.core.$ZodType, ...z.core.$ZodType[]];
  example?: unknown;
  examples?: Record<string, Example>;
}

export interface RouteSpec {
  operationId: string;
  method: 'get' | 'post' | 'delete';
  /** Relative to the base URL `…/api`, as in the spec; `{name}` for path parameters. */
  path: `/${string}`;
  tag: Tag;
  summary: string;
  description: string;
  auth: Auth;
  /** Roles allowed (JWT operations); absent: every role. */
  roles?: readonly Role[];
  /** Each property is one path parameter. */
  pathParams?: z.core.$ZodObject;
  /** Each property is one query parameter: the schema the handler parses the query string with. */
  query?: z.core.$ZodObject;
  /** `optional`: the operation also runs without a body (then with its defaults). */
  body?: { schema: z.core.$ZodType; examples: Record<string, Example>; optional?: boolean };
  responses: Partial<Record<200 | 201 | 204, SuccessResponse>>;
  errors: readonly ErrorCode[];
  /**
   * Successful responses carry the RateLimit-* headers (README "Rate limits"); so do the service's own
   * 429s when `errors` lists RATE_LIMIT_EXCEEDED (the request was counted).
   */
  rateLimited?: boolean;
  /** Served without code that can fail (no 500/503 problems). */
  static?: boolean;
}

// Example values shared by the examples below (UUIDv7 ids, as the service makes them).
const KPI_ID = '01936f0e-7d5a-7c3e-9a41-3f2b8c9d0e1f';
const OKR_ID = '01936f0e-8a10-7f0b-8c55-1d2e3f405162';
const KEY_ID = '01937a55-0c4e-7b1d-a2f3-6e7d8c9b0a1f';
const NEW_KEY_ID = '0193d2c4-51e8-7a0b-9c3d-2e1f0a9b8c7d';
const USER_ID = '01936d11-2b3c-7d4e-8f50-617283940a1b';
const CREATED = '2026-09-01T06:00:00.412Z';
const measurementExample = {
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
};
const batchExample = {
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
      },
    },
  ],
};
/** As the read endpoints show it (issue 15): where it came from. */
const measurementRecordExample = {
  ...measurementExample,
  receivedAt: CREATED,
  apiKeyId: KEY_ID,
  apiKeyPrefix: 'skm_P97W',
};
const admin = { type: 'user', userId: USER_ID, email: 'admin@acme.example' };
const apiKeyExample = {
  id: KEY_ID,
  name: 'Nightly cron',
  prefix: 'skm_P97W',
  status: 'active',
  createdAt: '2026-08-14T09:12:44.101Z',
  expiresAt: '2027-06-30T00:00:00.000Z',
  lastUsedAt: CREATED,
  revokedAt: null,
  kpiIds: null,
  createdBy: admin,
  revokedBy: null,
  rolledAt: null,
  rolledBy: null,
  replacedBy: null,
  replaces: null,
};
const PAGE_NOTE = 'Paged: `?limit=` (default 100) and `?cursor=` from the previous page’s `nextCursor`.';
const PUSH_ORDER = [
  'Checks, in this order; the first that fails answers:',
  '1. `x-api-key` present, well-formed and known (401 `invalid-api-key`);',
  '2. key not revoked or expired, tenant active, plan includes `kpi_push_measurement` (403);',
  '3. within the key’s rate limit (429 with `Retry-After`);',
  '4. body and query valid (400 `validation-failed`, every offending field in `errors`; 413; 415);',
  '5. every `kpiId` is a KPI of the key’s tenant with that `kpiType` (404, all missing ids in `missingKpiIds`);',
  '6. a KPI-scoped key: every `kpiId` is in its scope (403 `kpi-outside-key-scope`, the others in `outOfScopeKpiIds`).',
  '',
  'Pushes are idempotent per KPI and period: sending the same measurement again replaces it and keeps its `id`, so retrying after a timeout or a 5xx is safe.',
  '',
  '**Dry run**: `?dryRun=true` runs every check above with the same answers, counts against the rate limit like any request, and writes nothing (not even the key’s `lastUsedAt`). The answer is 200 with `dryRun: true` and what a real push would store: each `status` is `created` or `updated`, and a `measurement` that does not exist yet has `id: null`.',
].join('\n');

/** The push errors besides those of the key (see `errorsOf` in ./document.ts). */
const PUSH_ERRORS: readonly ErrorCode[] = [
  'FEATURE_NOT_ENABLED',
  'KPI_OUTSIDE_KEY_SCOPE',
  'NOT_FOUND',
  'RATE_LIMIT_EXCEEDED',
];

export const routes: readonly RouteSpec[] = [
  {
    operationId: 'login',
    method: 'post',
    path: '/auth/login',
    tag: 'Authentication',
    summary: 'Log in',
    description:
      'Spec 2.2, 2.3. A wrong password and an unknown e-mail get the same 401. After 10 failed logins for one e-mail within 15 minutes, every login for it gets 429 until the window ends.',
    auth: 'none',
    body: {
      schema: loginSchema,
      examples: {
        login: { summary: 'Demo admin', value: { email: 'admin@acme.example', password: 'demo-password-1' } },
      },
    },
    responses: {
      200: {
        description: 'Logged in.',
        schema: loginResponseSchema,
        example: {
          token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6ImF0K2p3dCJ9…',
          refreshToken: 'eyJhbGciOiJIUzI1NiIsInR5cCI6InJ0K2p3dCJ9…',
          expiresIn: 86400,
        },
      },
    },
    errors: ['INVALID_CREDENTIALS', 'TENANT_INACTIVE', 'USER_DISABLED', 'TOO_MANY_LOGIN_ATTEMPTS'],
  },
  {
    operationId: 'refreshToken',
    method: 'post',
    path: '/auth/refresh-token',
    tag: 'Authentication',
    summary: 'Get a new access token',
    description:
      'Spec 2.4. Re-reads the user and tenant, so a role change, a disabled user or an inactive tenant takes effect here.',
    auth: 'none',
    body: {
      schema: refreshSchema,
      examples: {
        refresh: {
          summary: 'A refresh token',
          value: { refreshToken: 'eyJhbGciOiJIUzI1NiIsInR5cCI6InJ0K2p3dCJ9…' },
        },
      },
    },
    responses: {
      200: {
        description: 'A new access token.',
        schema: refreshResponseSchema,
        example: { token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6ImF0K2p3dCJ9…', expiresIn: 86400 },
      },
    },
    errors: ['UNAUTHENTICATED', 'TENANT_INACTIVE', 'USER_DISABLED'],
  },
  {
    operationId: 'listStrategicCycles',
    method: 'get',
    path: '/strategic-cycles',
    tag: 'Strategy',
    summary: 'List strategic cycles',
    description: `Spec 4. The caller’s tenant’s cycles, oldest first. ${PAGE_NOTE}`,
    auth: 'jwt',
    query: pageQuerySchema,
    responses: {
      200: {
        description: 'One page of cycles.',
        schema: strategicCyclePageSchema,
        example: {
          items: [
            {
              id: '01936e00-1a2b-7c3d-8e4f-5a6b7c8d9e0f',
              name: 'Strategy 2026',
              startDate: '2026-01-01',
              endDate: '2026-12-31',
              createdAt: '2025-11-03T10:00:00.000Z',
            },
          ],
        },
      },
    },
    errors: [],
  },
  {
    operationId: 'listKpis',
    method: 'get',
    path: '/kpis',
    tag: 'KPIs',
    summary: 'List KPIs',
    description: [
      `The caller’s tenant’s KPIs: where to find the \`kpiId\` and \`kpiType\` to push. ${PAGE_NOTE}`,
      '',
      '`?type=` keeps the KPIs of one type (pages are still filled to `limit`). `?include=activity` adds to each KPI its `activity` (issue 15): the newest measurement, the values of its last 8 periods, when a measurement last arrived, its usual interval and whether it has gone quiet (nothing for more than twice the usual interval, or nothing yet). It costs one Query of at most 8 items per KPI, so `limit` is at most 100 with it.',
    ].join('\n'),
    auth: 'jwt',
    query: kpiListQuerySchema,
    responses: {
      200: {
        description: 'One page of KPIs.',
        schema: kpiPageSchema,
        examples: {
          plain: {
            summary: 'The list',
            value: {
              items: [
                {
                  id: KPI_ID,
                  type: 'BSC_KPI',
                  name: 'Monthly recurring revenue',
                  unit: 'EUR',
                  createdAt: '2026-01-05T08:00:00.000Z',
                },
              ],
              nextCursor: 'eyJwayI6IlRFTkFOVCMuLi4ifQ',
            },
          },
          activity: {
            summary: 'With ?include=activity',
            value: {
              items: [
                {
                  id: KPI_ID,
                  type: 'BSC_KPI',
                  name: 'Monthly recurring revenue',
                  unit: 'EUR',
                  createdAt: '2026-01-05T08:00:00.000Z',
                  activity: {
                    latest: measurementRecordExample,
                    recent: [
                      {
                        periodStart: '2026-09-01',
                        periodEnd: '2026-09-30',
                        actual: 40,
                        target: 45,
                        forecast: null,
                      },
                      {
                        periodStart: '2026-08-01',
                        periodEnd: '2026-08-31',
                        actual: 38,
                        target: 42,
                        forecast: null,
                      },
                    ],
                    lastReceivedAt: CREATED,
                    usualIntervalDays: 31,
                    quiet: false,
                  },
                },
                {
                  id: OKR_ID,
                  type: 'OKR_KEY_RESULT',
                  name: 'Deploys per week',
                  createdAt: '2026-01-05T08:01:00.000Z',
                  activity: {
                    latest: null,
                    recent: [],
                    lastReceivedAt: null,
                    usualIntervalDays: null,
                    quiet: true,
                  },
                },
              ],
            },
          },
        },
      },
    },
    errors: [],
  },
  {
    operationId: 'getKpi',
    method: 'get',
    path: '/kpis/{kpiId}',
    tag: 'KPIs',
    summary: 'Get a KPI with its measurements',
    description: `The KPI and its measurements in period order, each with when it arrived (\`receivedAt\`) and the key that pushed it (issue 15). One Query. ${PAGE_NOTE} The paging applies to \`measurements\`; the KPI is in every page.`,
    auth: 'jwt',
    pathParams: z.object({ kpiId: z.uuid() }),
    query: pageQuerySchema,
    responses: {
      200: {
        description: 'The KPI and one page of its measurements.',
        schema: kpiDetailSchema,
        example: {
          id: KPI_ID,
          type: 'BSC_KPI',
          name: 'Monthly recurring revenue',
          unit: 'EUR',
          createdAt: '2026-01-05T08:00:00.000Z',
          measurements: [measurementRecordExample],
        },
      },
    },
    errors: ['NOT_FOUND'],
  },
  {
    operationId: 'listMeasurements',
    method: 'get',
    path: '/kpis/{kpiId}/measurements',
    tag: 'KPIs',
    summary: 'List a KPI’s measurements',
    description: `What push stored for one KPI, ordered by period, each with when it arrived and the key that pushed it. ${PAGE_NOTE}`,
    auth: 'jwt',
    pathParams: z.object({ kpiId: z.uuid() }),
    query: pageQuerySchema,
    responses: {
      200: {
        description: 'One page of measurements.',
        schema: measurementPageSchema,
        example: { items: [measurementRecordExample] },
      },
    },
    errors: ['NOT_FOUND'],
  },
  {
    operationId: 'listApiKeys',
    method: 'get',
    path: '/api-keys',
    tag: 'API keys',
    summary: 'List API keys',
    description: `Every role may list the tenant’s keys; never the raw key. Each key has its KPI scope, its roll state and who created, rolled and revoked it (issue 13). The list also carries the tenant’s \`plan\`, so a client can say "2 of 3 keys used" and warn when the plan lacks push. ${PAGE_NOTE}`,
    auth: 'jwt',
    query: pageQuerySchema,
    responses: {
      200: {
        description: 'One page of keys, and the plan.',
        schema: apiKeyPageSchema,
        example: {
          items: [
            apiKeyExample,
            {
              ...apiKeyExample,
              id: NEW_KEY_ID,
              name: 'Revenue cron',
              prefix: 'skm_7Qx2',
              status: 'revoked',
              createdAt: '2026-08-20T10:00:00.000Z',
              expiresAt: null,
              lastUsedAt: null,
              revokedAt: '2026-08-21T10:00:00.000Z',
              kpiIds: [KPI_ID],
              createdBy: { type: 'operator', name: 'ops' },
              revokedBy: admin,
            },
          ],
          plan: { name: 'business', apiKeyLimit: 5, features: ['kpi_push_measurement'] },
        },
      },
    },
    errors: [],
  },
  {
    operationId: 'createApiKey',
    method: 'post',
    path: '/api-keys',
    tag: 'API keys',
    summary: 'Create an API key',
    description:
      'Spec 2.7, 3, 8 (ADMIN). The raw key is in this response only. The plan maximum counts active keys: Free 3, Business 5, Enterprise unlimited; past it, 409 `api-key-limit-reached`. `kpiIds` limits the key to some KPIs of the tenant (issue 13): a push of it to another KPI is 403 `kpi-outside-key-scope`; an id that is not a KPI of the tenant is 400 naming it.',
    auth: 'jwt',
    roles: ['ADMIN'],
    body: {
      schema: createApiKeySchema,
      examples: {
        expiring: {
          summary: 'A key that expires',
          value: { name: 'Nightly cron', expiresAt: '2027-06-30T00:00:00Z' },
        },
        forever: { summary: 'A key without expiry', value: { name: 'CI pipeline' } },
        scoped: {
          summary: 'A key for one KPI only',
          value: { name: 'Revenue cron', kpiIds: [KPI_ID] },
        },
      },
    },
    responses: {
      201: {
        description: 'Created. Store `key` now: it cannot be shown again.',
        schema: createdApiKeySchema,
        example: {
          ...apiKeyExample,
          key: 'skm_P97WNdc12kdSnusc4Crjntlg4690XA7RG',
          lastUsedAt: null,
        },
      },
    },
    errors: ['API_KEY_LIMIT_REACHED'],
  },
  {
    operationId: 'revokeApiKey',
    method: 'delete',
    path: '/api-keys/{id}',
    tag: 'API keys',
    summary: 'Revoke an API key',
    description:
      'Spec 3 (ADMIN). Effective for the very next request; a revoked key is never reactivated. Revoking again is 204 too.',
    auth: 'jwt',
    roles: ['ADMIN'],
    pathParams: z.object({ id: z.uuid() }),
    responses: { 204: { description: 'Revoked.' } },
    errors: ['NOT_FOUND'],
  },
  {
    operationId: 'rollApiKey',
    method: 'post',
    path: '/api-keys/{id}/roll',
    tag: 'API keys',
    summary: 'Roll an API key',
    description: [
      'Issue 13, spec 5.2.6 (ADMIN): replaces a key without downtime. Creates a new key with the same name and KPI scope (its raw key in this response only) and sets the old key to expire at the end of the grace period: both work until then. The body is optional: `gracePeriodHours` 0 to 168, default 24 (0: the old key stops now); `expiresAt` for the new key, which otherwise keeps the old key’s lifetime.',
      '',
      'Works at the plan maximum: the old key’s slot passes to the new one. A key is rolled once (409 `api-key-already-rolled`, with `replacedBy`: roll that key instead); a revoked or expired key cannot be rolled (409 `api-key-not-active`, with `keyStatus`).',
    ].join('\n'),
    auth: 'jwt',
    roles: ['ADMIN'],
    pathParams: z.object({ id: z.uuid() }),
    body: {
      schema: rollApiKeySchema,
      optional: true,
      examples: {
        grace: { summary: 'The old key works 48 more hours', value: { gracePeriodHours: 48 } },
        leaked: { summary: 'A leaked key: the old key stops now', value: { gracePeriodHours: 0 } },
      },
    },
    responses: {
      201: {
        description:
          'Rolled. Store `key` now: it cannot be shown again. `previous` is the old key as it is now.',
        schema: rolledApiKeySchema,
        example: {
          ...apiKeyExample,
          id: NEW_KEY_ID,
          prefix: 'skm_7Qx2',
          key: 'skm_7Qx2Hk93LmPq0RstUvWx1yZaBcDeFgH4i',
          createdAt: '2026-09-01T08:00:00.000Z',
          expiresAt: '2027-10-16T22:47:15.899Z',
          lastUsedAt: null,
          replaces: { id: KEY_ID, prefix: 'skm_P97W' },
          previous: {
            ...apiKeyExample,
            expiresAt: '2026-09-03T08:00:00.000Z',
            rolledAt: '2026-09-01T08:00:00.000Z',
            rolledBy: admin,
            replacedBy: { id: NEW_KEY_ID, prefix: 'skm_7Qx2' },
          },
        },
      },
    },
    errors: ['NOT_FOUND', 'API_KEY_LIMIT_REACHED', 'API_KEY_NOT_ACTIVE', 'API_KEY_ALREADY_ROLLED'],
  },
  {
    operationId: 'pushMeasurement',
    method: 'post',
    path: '/integrations/push/measurement',
    tag: 'Push',
    summary: 'Push one measurement',
    description: `Spec 2.5, 4, 5.2. 201 when the (KPI, period) was new, 200 when it replaced a stored measurement.\n\n${PUSH_ORDER}`,
    auth: 'apiKey',
    rateLimited: true,
    query: pushQuerySchema,
    body: {
      schema: measurementInputSchema,
      examples: {
        monthToDate: {
          summary: 'Month-to-date value (no period: the current month)',
          value: { kpiId: KPI_ID, kpiType: 'BSC_KPI', actual: 42.5 },
        },
        withPeriod: {
          summary: 'A full record for September',
          value: {
            kpiId: KPI_ID,
            kpiType: 'BSC_KPI',
            actual: 40,
            target: 45,
            forecast: 44,
            periodStart: '2026-09-01',
            periodEnd: '2026-09-30',
          },
        },
      },
    },
    responses: {
      201: { description: 'Created.', schema: measurementSchema, example: measurementExample },
      200: {
        description:
          'Replaced the measurement of the same KPI and period (same `id` and `createdAt`); or, with `?dryRun=true`, what a push would do, with nothing written.',
        schema: [measurementSchema, dryRunMeasurementSchema],
        examples: {
          replaced: {
            summary: 'Replaced',
            value: { ...measurementExample, actual: 41, updatedAt: '2026-09-02T06:00:00.377Z' },
          },
          dryRun: {
            summary: 'Dry run of a new measurement',
            value: {
              dryRun: true,
              status: 'created',
              measurement: { ...measurementExample, id: null },
            },
          },
        },
      },
    },
    errors: PUSH_ERRORS,
  },
  {
    operationId: 'pushMeasurementsBatch',
    method: 'post',
    path: '/integrations/push/measurements/batch',
    tag: 'Push',
    summary: 'Push up to 50 measurements',
    description: `Spec 4, 8. All or nothing; a batch counts as one request against the rate limit.\n\n${PUSH_ORDER}`,
    auth: 'apiKey',
    rateLimited: true,
    query: pushQuerySchema,
    body: {
      schema: batchSchema,
      examples: {
        mixed: {
          summary: 'Two KPIs of different types',
          value: {
            measurements: [
              {
                kpiId: KPI_ID,
                kpiType: 'BSC_KPI',
                actual: 40,
                target: 45,
                periodStart: '2026-09-01',
                periodEnd: '2026-09-30',
              },
              { kpiId: OKR_ID, kpiType: 'OKR_KEY_RESULT', actual: 0.7, forecast: 0.9 },
            ],
          },
        },
      },
    },
    responses: {
      200: {
        description:
          'Every measurement stored; or, with `?dryRun=true`, what the push would do, with nothing written.',
        schema: [batchResultSchema, dryRunBatchSchema],
        examples: {
          stored: { summary: 'Stored', value: batchExample },
          dryRun: {
            summary: 'Dry run',
            value: {
              dryRun: true,
              count: 2,
              items: [
                { index: 0, status: 'created', measurement: { ...measurementExample, id: null } },
                batchExample.items[1],
              ],
            },
          },
        },
      },
    },
    errors: PUSH_ERRORS,
  },
  {
    operationId: 'checkPushKey',
    method: 'get',
    path: '/integrations/push/key',
    tag: 'Push',
    summary: 'Check an API key',
    description: [
      'Issue 12: does this key work, and for what? For a CI job’s setup step. Answers with the key, its organization (plan, whether it may push) and the key’s current rate-limit budget, without spending any of it: the `RateLimit-*` headers say what the next push would see.',
      '',
      'A key a push would refuse is refused the same way: 401 `invalid-api-key` (missing, malformed, unknown), 403 `api-key-revoked`, `api-key-expired`, `tenant-inactive`. A key whose plan lacks `kpi_push_measurement` is 200 with `pushEnabled: false`: the key itself is fine.',
    ].join('\n'),
    auth: 'apiKey',
    rateLimited: true,
    responses: {
      200: {
        description: 'The key works.',
        schema: keyCheckSchema,
        example: {
          key: {
            id: KEY_ID,
            prefix: 'skm_P97W',
            name: 'Nightly cron',
            status: 'active',
            createdAt: '2026-08-14T09:12:44.101Z',
            expiresAt: '2027-06-30T00:00:00.000Z',
          },
          organization: { id: '01936c00-0a1b-7c2d-8e3f-405162738495', plan: 'business', pushEnabled: true },
          rateLimit: { limit: 300, remaining: 297, resetSeconds: 42, windowSeconds: 60 },
        },
      },
    },
    errors: [],
  },
  {
    operationId: 'getHealth',
    method: 'get',
    path: '/health',
    tag: 'Service',
    summary: 'Health check for uptime monitors',
    description:
      'No authentication. 200 means API Gateway, the function and the DynamoDB table answer: it reads one item (eventually consistent, 0.5 read units) at most once per 10 seconds per function instance, so a monitor calling every minute costs next to nothing. 503 `service-unavailable` otherwise. It reveals no version, table or error text.',
    auth: 'none',
    responses: { 200: { description: 'Healthy.', schema: healthSchema, example: { status: 'ok' } } },
    errors: [],
  },
  {
    operationId: 'getOpenApiDocument',
    method: 'get',
    path: '/openapi.json',
    tag: 'Service',
    summary: 'This OpenAPI document',
    description:
      'No authentication. The same file as `openapi.json` in the repository. A reference page rendered from it is at `/api/docs`.',
    auth: 'none',
    static: true,
    responses: {
      200: {
        description: 'The OpenAPI 3.1 document.',
        schema: z.looseObject({ openapi: z.string(), info: z.looseObject({}), paths: z.looseObject({}) }),
      },
    },
    errors: [],
  },
];

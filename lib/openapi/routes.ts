import * as z from 'zod/mini';
import type { Role } from '../auth/roles';
import type { ErrorCode } from '../errors';
import { createApiKeySchema } from '../http/api-key-schemas';
import {
  apiKeyPageSchema,
  batchResultSchema,
  createdApiKeySchema,
  healthSchema,
  kpiPageSchema,
  loginResponseSchema,
  measurementPageSchema,
  measurementSchema,
  refreshResponseSchema,
  strategicCyclePageSchema,
} from '../http/response-schemas';
import { loginSchema, pageQuerySchema, refreshSchema } from '../http/schemas';
import { batchSchema, measurementSchema as measurementInputSchema } from '../push/measurement-schema';

/**
 * Every API operation, one entry each: the OpenAPI document (./document.ts) is generated from this list
 * and the schemas it names, which are the ones the handlers validate with. Adding an endpoint is one
 * entry here (plus its function in serverless.yml); adding a query parameter is one property of the
 * entry's `query` schema, which the handler parses with.
 *
 * Errors: `errors` lists what the operation itself may answer; the generator adds those that follow
 * from `auth` (lib/http/jwt-auth.ts, lib/push/push-service.ts), from having a body
 * (lib/http/middleware.ts `readJsonBody`) or a query, and 500/503 for every operation that is not static.
 */

export type Auth = 'none' | 'jwt' | 'apiKey';
export type Tag = 'Authentication' | 'Push' | 'API keys' | 'KPIs' | 'Strategy' | 'Service';

export interface Example {
  summary: string;
  value: unknown;
}

export interface SuccessResponse {
  description: string;
  /** Absent for a response without a body (204). */
  schema?: z.core.$ZodType;
  example?: unknown;
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
  body?: { schema: z.core.$ZodType; examples: Record<string, Example> };
  responses: Partial<Record<200 | 201 | 204, SuccessResponse>>;
  errors: readonly ErrorCode[];
  /** Responses carry the RateLimit-* headers (README "Rate limits"). */
  rateLimited?: boolean;
  /** Served without code that can fail (no 500/503 problems). */
  static?: boolean;
}

// Example values shared by the examples below (UUIDv7 ids, as the service makes them).
const KPI_ID = '01936f0e-7d5a-7c3e-9a41-3f2b8c9d0e1f';
const OKR_ID = '01936f0e-8a10-7f0b-8c55-1d2e3f405162';
const KEY_ID = '01937a55-0c4e-7b1d-a2f3-6e7d8c9b0a1f';
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
const apiKeyExample = {
  id: KEY_ID,
  name: 'Nightly cron',
  prefix: 'skm_P97W',
  status: 'active',
  createdAt: '2026-08-14T09:12:44.101Z',
  expiresAt: '2027-06-30T00:00:00.000Z',
  lastUsedAt: CREATED,
  revokedAt: null,
};
const PAGE_NOTE = 'Paged: `?limit=` (default 100) and `?cursor=` from the previous page’s `nextCursor`.';
const PUSH_ORDER = [
  'Checks, in this order; the first that fails answers:',
  '1. `x-api-key` present, well-formed and known (401 `invalid-api-key`);',
  '2. key not revoked or expired, tenant active, plan includes `kpi_push_measurement` (403);',
  '3. within the key’s rate limit (429 with `Retry-After`);',
  '4. body valid (400 `validation-failed`, every offending field in `errors`; 413; 415);',
  '5. every `kpiId` is a KPI of the key’s tenant with that `kpiType` (404, all missing ids in `missingKpiIds`).',
  '',
  'Pushes are idempotent per KPI and period: sending the same measurement again replaces it and keeps its `id`, so retrying after a timeout or a 5xx is safe.',
].join('\n');

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
    description: `The caller’s tenant’s KPIs: where to find the \`kpiId\` and \`kpiType\` to push. ${PAGE_NOTE}`,
    auth: 'jwt',
    query: pageQuerySchema,
    responses: {
      200: {
        description: 'One page of KPIs.',
        schema: kpiPageSchema,
        example: {
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
    },
    errors: [],
  },
  {
    operationId: 'listMeasurements',
    method: 'get',
    path: '/kpis/{kpiId}/measurements',
    tag: 'KPIs',
    summary: 'List a KPI’s measurements',
    description: `What push stored for one KPI, ordered by period. ${PAGE_NOTE}`,
    auth: 'jwt',
    pathParams: z.object({ kpiId: z.uuid() }),
    query: pageQuerySchema,
    responses: {
      200: {
        description: 'One page of measurements.',
        schema: measurementPageSchema,
        example: { items: [measurementExample] },
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
    description: `Every role may list the tenant’s keys; never the raw key. ${PAGE_NOTE}`,
    auth: 'jwt',
    query: pageQuerySchema,
    responses: {
      200: {
        description: 'One page of keys.',
        schema: apiKeyPageSchema,
        example: { items: [apiKeyExample] },
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
      'Spec 2.7, 3, 8 (ADMIN). The raw key is in this response only. The plan maximum counts active keys: Free 3, Business 5, Enterprise unlimited; past it, 409 `api-key-limit-reached`.',
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
      },
    },
    responses: {
      201: {
        description: 'Created. Store `key` now: it cannot be shown again.',
        schema: createdApiKeySchema,
        example: {
          id: KEY_ID,
          name: 'Nightly cron',
          prefix: 'skm_P97W',
          key: 'skm_P97WNdc12kdSnusc4Crjntlg4690XA7RGa1B',
          status: 'active',
          createdAt: '2026-08-14T09:12:44.101Z',
          expiresAt: '2027-06-30T00:00:00.000Z',
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
    operationId: 'pushMeasurement',
    method: 'post',
    path: '/integrations/push/measurement',
    tag: 'Push',
    summary: 'Push one measurement',
    description: `Spec 2.5, 4, 5.2. 201 when the (KPI, period) was new, 200 when it replaced a stored measurement.\n\n${PUSH_ORDER}`,
    auth: 'apiKey',
    rateLimited: true,
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
        description: 'Replaced the measurement of the same KPI and period (same `id` and `createdAt`).',
        schema: measurementSchema,
        example: { ...measurementExample, actual: 41, updatedAt: '2026-09-02T06:00:00.377Z' },
      },
    },
    errors: ['NOT_FOUND'],
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
        description: 'Every measurement stored.',
        schema: batchResultSchema,
        example: {
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
        },
      },
    },
    errors: ['NOT_FOUND'],
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

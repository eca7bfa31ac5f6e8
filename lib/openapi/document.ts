import * as z from 'zod/mini';
import { version } from '../../package.json';
import { type ErrorCode, errorCatalog, problemType } from '../errors';
import { MAX_BODY_BYTES, problemSchema } from '../http/middleware';
import type { ResponseSpec, RouteSpec } from '../http/route';
import { problemExampleDetails } from './problem-examples';

/**
 * The OpenAPI 3.1 document of the service, generated from the route declarations (the `route` export
 * of each module in functions/, lib/http/route.ts) and the zod schemas the handlers validate with, so
 * it cannot drift from them. Schema names and descriptions are the schemas' own zod metadata
 * (`z.meta({ id, description })`, `z.describe(...)`), declared where the schema is. `npm run openapi`
 * writes the document to openapi.json; GET /api/openapi.json serves that file; tests fail when the
 * file is not what this function returns.
 *
 * OpenAPI 3.1 schemas are JSON Schema 2020-12 (OAS 3.1 §4.8.24), which is zod's `draft-2020-12` target.
 */

export const OPENAPI_VERSION = '3.1.1';

type Json = Record<string, unknown>;

const SCHEMA_REF = '#/components/schemas/';

type RouteSchema = NonNullable<ResponseSpec['schema']>;
const isSchemaList = (schema: RouteSchema): schema is Extract<RouteSchema, readonly unknown[]> =>
  Array.isArray(schema);
const ref = (section: string, name: string) => ({ $ref: `#/components/${section}/${name}` });

/**
 * Problem types that API Gateway may answer itself, before or instead of a function
 * (infra/gateway-responses.json): the stage throttle on every route; on the push routes also the
 * authorizer's refusals (an unknown key, and a key that may not push, denied at the edge), the usage
 * plan's quota and a failing authorizer. Such answers carry the request id in the body (`requestId`)
 * but cannot send the X-Request-Id header, which every function's answer has
 * (lib/http/observability.ts).
 */
const gatewayCodes = (route: RouteSpec): readonly ErrorCode[] =>
  route.auth === 'apiKey'
    ? [
        'RATE_LIMIT_EXCEEDED',
        'INVALID_API_KEY',
        'SOURCE_NOT_ALLOWED',
        'API_KEY_REVOKED',
        'API_KEY_EXPIRED',
        'TENANT_INACTIVE',
        'FEATURE_NOT_ENABLED',
        'QUOTA_EXCEEDED',
        'SERVICE_UNAVAILABLE',
        'INTERNAL',
      ]
    : ['RATE_LIMIT_EXCEEDED'];

/** The name of the response header and of the component for answers that may come from API Gateway. */
const REQUEST_ID = 'X-Request-Id';
const REQUEST_ID_UNLESS_GATEWAY = 'X-Request-Id.unless-gateway';

/** zod adds what OpenAPI does not need inside components: a `$schema` per schema, `$id`s, ±2^53 bounds. */
const clean = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(clean);
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key === '$schema' || key === '$id') continue;
    if ((key === 'minimum' || key === 'maximum') && Math.abs(inner as number) === Number.MAX_SAFE_INTEGER)
      continue;
    out[key] = clean(inner);
  }
  return out;
};

/**
 * The schemas of the document's components, by name: every schema that carries a name
 * (`z.meta({ id })`) and that a route uses, each once, with `$ref`s between them.
 */
type Components = Map<string, Json>;

/**
 * The JSON Schema 2020-12 rendering of a schema, its named parts moved to `components` and referred
 * to. Requests and responses alike are rendered as their input (before defaults and transforms): what
 * a client sends, and for responses objects left open (no `additionalProperties: false`), since
 * clients must accept new members. The contract test checks that the service sends no undocumented one.
 */
const render = (schema: z.core.$ZodType, components: Components): Json => {
  const rendered = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'throw' });
  const { $defs = {}, ...root } = JSON.parse(
    JSON.stringify(rendered).replaceAll('"#/$defs/', `"${SCHEMA_REF}`),
  ) as Json & { $defs?: Record<string, Json> };
  for (const [name, definition] of Object.entries($defs)) {
    const cleaned = clean(definition) as Json;
    const known = components.get(name);
    // Two different schemas with one name would leave one of them undocumented.
    if (known && JSON.stringify(known) !== JSON.stringify(cleaned)) {
      throw new Error(
        `Two different schemas are both named ${name}:\n${JSON.stringify(known)}\n${JSON.stringify(cleaned)}`,
      );
    }
    components.set(name, cleaned);
  }
  return clean(root) as Json;
};

/** A route's schema, by reference when it has a name. Several: the body is one of them (`anyOf`). */
const schemaFor = (schema: RouteSchema, components: Components): Json =>
  isSchemaList(schema)
    ? { anyOf: schema.map((one) => schemaFor(one, components)) }
    : render(schema, components);

const parameters = (where: 'path' | 'query', schema: z.core.$ZodType | undefined): Json[] => {
  if (!schema) return [];
  const json = clean(
    z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input', unrepresentable: 'throw' }),
  ) as {
    properties: Record<string, Json>;
    required?: string[];
  };
  return Object.entries(json.properties).map(([name, { description, ...property }]) => ({
    name,
    in: where,
    required: where === 'path' || (json.required ?? []).includes(name),
    // A parameter's description is the parameter's, in OpenAPI, not its schema's.
    ...(description === undefined ? {} : { description }),
    schema: property,
  }));
};

/** What follows from the operation's shape; see the comment of ./routes.ts. */
const errorsOf = (route: RouteSpec): ErrorCode[] => {
  const codes: ErrorCode[] = [...route.errors];
  if (route.auth === 'jwt') {
    // lib/http/jwt-auth.ts; a header sent twice with different values is 400 (lib/http/responses.ts).
    codes.push('MALFORMED_REQUEST', 'UNAUTHENTICATED', 'TENANT_MISMATCH');
    if (route.roles) codes.push('FORBIDDEN');
  }
  if (route.auth === 'apiKey') {
    // The push authorizer and lib/push/key-verification.ts (`assertSourceAllowed`, `assertKeyUsable`),
    // in their order; then API Gateway's answers for the tenant's usage plan
    // (infra/gateway-responses.json): throttle (429 rate-limit-exceeded) and monthly quota. A failing
    // authorizer is 503/500, which every non-static operation declares. What only a push checks (the
    // plan's feature, the per-key limit, the scope) is in the push routes' own `errors`: the key check
    // answers a plan without push with 200.
    codes.push(
      'INVALID_API_KEY',
      'SOURCE_NOT_ALLOWED',
      'API_KEY_REVOKED',
      'API_KEY_EXPIRED',
      'TENANT_INACTIVE',
      'RATE_LIMIT_EXCEEDED',
      'QUOTA_EXCEEDED',
    );
  }
  if (route.pathParams || route.query || route.body) codes.push('VALIDATION_FAILED');
  if (route.body) codes.push('MALFORMED_REQUEST', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE');
  if (!route.static) codes.push('INTERNAL', 'SERVICE_UNAVAILABLE');
  // The stage-wide method throttle (serverless.yml resources.ApiGatewayStage) may refuse any request
  // with API Gateway's THROTTLED answer (infra/gateway-responses.json): 429 rate-limit-exceeded.
  codes.push('RATE_LIMIT_EXCEEDED');
  // Catalog order, so equal sets read (and are shared) alike.
  const catalogOrder = Object.keys(errorCatalog);
  return [...new Set(codes)].sort((a, b) => catalogOrder.indexOf(a) - catalogOrder.indexOf(b));
};

/** Problem types whose answers always carry WWW-Authenticate (RFC 9110 §11.6.1, RFC 6750 §3). */
const CHALLENGED: readonly ErrorCode[] = ['UNAUTHENTICATED', 'INVALID_API_KEY'];

const headerRefs = (names: string[]) => Object.fromEntries(names.map((name) => [name, ref('headers', name)]));

const RATE_LIMIT_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'] as const;
const RATE_LIMIT_DESCRIPTIONS: Record<(typeof RATE_LIMIT_HEADERS)[number], string> = {
  'RateLimit-Limit': 'Push requests this key may make per window (draft-ietf-httpapi-ratelimit-headers).',
  'RateLimit-Remaining': 'Push requests left in the current window.',
  'RateLimit-Reset': 'Seconds until the window resets.',
};

/**
 * On a push 429 the RateLimit-* fields are there when the service refused the request, not when API
 * Gateway did (usage plan throttle or quota): declared, not required.
 */
const rateLimitIfCounted = Object.fromEntries(
  RATE_LIMIT_HEADERS.map((name) => [
    name,
    {
      description: `${RATE_LIMIT_DESCRIPTIONS[name]} Sent when the service refused the request, not when API Gateway did (usage plan).`,
      schema: { type: 'integer', minimum: 0 },
    },
  ]),
);

const problemResponse = (route: RouteSpec, status: number, codes: ErrorCode[]): Json => {
  const headers: string[] = [];
  if (status === 401 && codes.every((code) => CHALLENGED.includes(code))) headers.push('WWW-Authenticate');
  if (status === 429 || status === 503) headers.push('Retry-After');
  const gateway = codes.some((code) => gatewayCodes(route).includes(code));
  const lines = codes.map((code) => `- \`${errorCatalog[code].slug}\`: ${errorCatalog[code].title}`);
  return {
    description: `Problem types:\n${lines.join('\n')}`,
    headers: {
      [REQUEST_ID]: ref('headers', gateway ? REQUEST_ID_UNLESS_GATEWAY : REQUEST_ID),
      ...headerRefs(headers),
      ...(status === 429 && route.rateLimited && route.errors.includes('RATE_LIMIT_EXCEEDED')
        ? rateLimitIfCounted
        : {}),
    },
    content: {
      'application/problem+json': {
        schema: {
          allOf: [
            { $ref: `${SCHEMA_REF}Problem` },
            {
              type: 'object',
              properties: {
                type: { enum: codes.map(problemType) },
                status: { const: status },
              },
            },
          ],
        },
        examples: Object.fromEntries(
          codes.map((code) => [errorCatalog[code].slug, ref('examples', errorCatalog[code].slug)]),
        ),
      },
    },
  };
};

const operation = (route: RouteSpec, components: Components): Json => {
  const responses: Json = {};
  for (const [status, response] of Object.entries(route.responses)) {
    const headers = [REQUEST_ID, ...(route.rateLimited ? RATE_LIMIT_HEADERS : [])];
    const alternatives = Object.entries(response.alternatives ?? {}).map(([mediaType, alternative]) => [
      mediaType,
      { schema: { type: 'string', description: alternative.description }, example: alternative.example },
    ]);
    responses[status] = {
      description: response.description,
      headers: {
        ...headerRefs(headers),
        ...Object.fromEntries(
          Object.entries(response.headers ?? {}).map(([name, description]) => [
            name,
            { description, schema: { type: 'string' } },
          ]),
        ),
      },
      ...(response.schema
        ? {
            content: {
              'application/json': {
                schema: schemaFor(response.schema, components),
                ...(response.example === undefined ? {} : { example: response.example }),
                ...(response.examples === undefined ? {} : { examples: response.examples }),
              },
              ...Object.fromEntries(alternatives),
            },
          }
        : {}),
    };
  }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of errorsOf(route)) {
    const { status } = errorCatalog[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const status of [...byStatus.keys()].sort()) {
    responses[String(status)] = problemResponse(route, status, byStatus.get(status) ?? []);
  }
  const params = [
    ...parameters('path', route.pathParams),
    ...parameters('query', route.query),
    ...(route.auth === 'jwt' ? [ref('parameters', 'X-Tenant-ID')] : []),
  ];
  const roles = route.roles ? `\n\nRequires the role ${route.roles.join(' or ')}.` : '';
  return {
    operationId: route.operationId,
    tags: [route.tag],
    summary: route.summary,
    description: route.description + roles,
    security: route.auth === 'jwt' ? [{ bearerAuth: [] }] : route.auth === 'apiKey' ? [{ apiKey: [] }] : [],
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: route.body.optional !== true,
            content: {
              'application/json': {
                schema: schemaFor(route.body.schema as z.core.$ZodType, components),
                examples: route.body.examples,
              },
            },
          },
        }
      : {}),
    responses,
  };
};

/** One example per problem type, shared by every response that may carry it. */
const problemExamples = () =>
  Object.fromEntries(
    (Object.keys(errorCatalog) as ErrorCode[]).map((code) => {
      const { title, slug, status } = errorCatalog[code];
      const example = problemExampleDetails[code];
      return [
        slug,
        {
          summary: title,
          value: {
            type: problemType(code),
            title,
            status,
            detail: example?.detail ?? title,
            ...example?.extensions,
            requestId: 'c0ffee00-1234-4abc-8def-0123456789ab',
          },
        },
      ];
    }),
  );

const integerHeader = (description: string, required = true) => ({
  description,
  required,
  schema: { type: 'integer', minimum: 0 },
});

const DESCRIPTION = `Multi-tenant strategy and KPI service. Users log in with e-mail and password and get a JWT;
external systems (CI/CD pipelines, cron jobs, applications) push KPI measurements with tenant API keys.

**Authentication.** Push operations take an API key in the \`x-api-key\` header (scheme \`apiKey\`); the
other operations a Bearer access token from \`POST /auth/login\` (scheme \`bearerAuth\`), optionally with
\`X-Tenant-ID\`, which must then equal the token's tenant.

**Errors** are RFC 9457 problem details (\`application/problem+json\`). Every error response lists the
problem types it may carry; switch on \`type\`, not on \`title\` or \`detail\`. 5xx answers never carry internals.
Request bodies are JSON (\`Content-Type: application/json\`), at most ${MAX_BODY_BYTES} bytes; unknown fields are rejected.

**Rate limits.** Every push response of the service after authentication carries \`RateLimit-Limit\`,
\`RateLimit-Remaining\` and \`RateLimit-Reset\` (seconds); a 429 carries \`Retry-After\` (seconds). Free 60,
Business 300, Enterprise 3000 push requests per key per minute; a batch counts as one. API Gateway may
answer 429 itself, with \`Retry-After\` but without \`RateLimit-*\`: \`rate-limit-exceeded\` for its throttles
(the tenant's usage plan, or the whole API), \`quota-exceeded\` when the plan's monthly quota is used up.

**Retries.** Pushes are idempotent per KPI and period: retry 429 after \`Retry-After\`, and 502/503/504 or a
network error with exponential backoff. Another 4xx will not succeed when repeated. The \`kpi-push\` CLI in the
repository does all of this.`;

/**
 * Problem responses that several operations share identically move to `components.responses` (OAS 3.1
 * §4.8.7) and are referenced: the document stays small (the function serving it has a size budget)
 * and each shared answer is described once. Named by status and problem types.
 */
const hoistSharedProblems = (paths: Record<string, Record<string, Json>>) => {
  const uses = new Map<string, number>();
  const each = (visit: (responses: Record<string, Json>, status: string, text: string) => void) => {
    for (const item of Object.values(paths)) {
      for (const op of Object.values(item)) {
        const responses = op.responses as Record<string, Json>;
        for (const [status, response] of Object.entries(responses)) {
          if ((response.content as Json | undefined)?.['application/problem+json']) {
            visit(responses, status, JSON.stringify(response));
          }
        }
      }
    }
  };
  each((_, __, text) => uses.set(text, (uses.get(text) ?? 0) + 1));
  const shared: Record<string, Json> = {};
  each((responses, status, text) => {
    if ((uses.get(text) ?? 0) < 2) return;
    const response = JSON.parse(text) as Json;
    const types = (((response.content as Json)['application/problem+json'] as Json).examples ?? {}) as Json;
    const requestIdRef = (response.headers as Record<string, Json>)[REQUEST_ID]?.$ref;
    const mayBeGateway = String(requestIdRef ?? '').endsWith(REQUEST_ID_UNLESS_GATEWAY);
    const name = `${status}.${Object.keys(types).join('.')}${mayBeGateway ? '.or-gateway' : ''}`;
    // Two different shared answers with one name (e.g. a 429 with and one without RateLimit-*) would
    // leave one operation pointing at the other's: fail the generation instead.
    if (shared[name] && JSON.stringify(shared[name]) !== text) {
      throw new Error(`components.responses.${name} would name two different responses`);
    }
    shared[name] = response;
    responses[status] = ref('responses', name);
  });
  return Object.fromEntries(Object.entries(shared).sort(([a], [b]) => a.localeCompare(b)));
};

/** The whole document. Deterministic: the same routes always give the same JSON. */
export const buildOpenApiDocument = (routes: readonly RouteSpec[]) => {
  const paths: Record<string, Record<string, Json>> = {};
  const components: Components = new Map();
  // Every error response refers to the problem document, which no route declares.
  render(problemSchema, components);
  const ordered = [...routes].sort(
    (a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method),
  );
  for (const route of ordered) {
    paths[route.path] = { ...paths[route.path], [route.method]: operation(route, components) };
  }
  const sharedResponses = hoistSharedProblems(paths);
  return {
    openapi: OPENAPI_VERSION,
    info: {
      title: 'Strategy service API',
      version,
      summary: 'Strategy and KPI management: JWT login for users, API-key push of KPI measurements.',
      description: DESCRIPTION,
    },
    // One server, relative to the host that serves the document: a fixed address would be wrong for
    // every other port and stage, and /api/docs puts its own base URL (stage path included) here.
    servers: [{ url: '/api', description: 'The API of the host that serves this document' }],
    tags: [
      {
        name: 'Push',
        description:
          'Send KPI measurements with an API key, try them without storing (`?dryRun=true`), and check a key.',
      },
      { name: 'Authentication', description: 'Log in and refresh access tokens.' },
      { name: 'KPIs', description: 'The KPIs to push to, and what was pushed, when and with which key.' },
      { name: 'Strategy', description: 'Strategic cycles.' },
      {
        name: 'Pull',
        description:
          'Pull integrations (plan feature `kpi_api_integration`): the service fetches KPI values from an HTTP source on a schedule, reads them out of the JSON answer with JMESPath and stores them as a push would.',
      },
      {
        name: 'API keys',
        description: 'Create, list, roll and revoke push keys.',
      },
      {
        name: 'People',
        description:
          'The tenant’s users: invitations with one-time links, roles, deactivation and passwords.',
      },
      {
        name: 'Webhooks',
        description:
          'Signed event notifications (Standard Webhooks): endpoints, their delivery log and test deliveries.',
      },
      {
        name: 'Audit',
        description:
          'The tenant’s audit log: who changed what, when and from where, newest first, or as NDJSON for a SIEM.',
      },
      { name: 'Service', description: 'Health and this document.' },
    ],
    paths,
    components: {
      schemas: Object.fromEntries([...components].sort(([a], [b]) => a.localeCompare(b))),
      responses: sharedResponses,
      examples: problemExamples(),
      parameters: {
        'X-Tenant-ID': {
          name: 'X-Tenant-ID',
          in: 'header',
          required: false,
          description:
            'Optional; when sent it must equal the token’s `tenant_id`, else 403 `tenant-mismatch`.',
          schema: { type: 'string' },
        },
      },
      headers: {
        [REQUEST_ID]: {
          description:
            'Identifies the request: the same id as `requestId` in problem bodies and in the logs. Quote it when asking for support.',
          required: true,
          schema: { type: 'string' },
        },
        [REQUEST_ID_UNLESS_GATEWAY]: {
          description:
            'Identifies the request (as `requestId` in the body). Absent when API Gateway answered itself (throttle, quota, the push authorizer); on AWS its `x-amzn-RequestId` header carries the same id.',
          required: false,
          schema: { type: 'string' },
        },
        ...Object.fromEntries(
          RATE_LIMIT_HEADERS.map((name) => [name, integerHeader(RATE_LIMIT_DESCRIPTIONS[name])]),
        ),
        'Retry-After': integerHeader('Seconds to wait before retrying (RFC 9110 §10.2.3).'),
        'WWW-Authenticate': {
          description:
            'The authentication scheme to use and why the credentials failed (RFC 9110 §11.6.1, RFC 6750 §3).',
          required: true,
          schema: { type: 'string' },
        },
      },
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'x-api-key',
          description:
            'A tenant API key (`skm_…`), created at `/platform/api-keys` or with `POST /api-keys`. Missing or unknown: 401; revoked, expired, inactive tenant or plan without `kpi_push_measurement`: 403.',
        },
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          bearerFormat: 'JWT',
          description: 'The `token` of `POST /auth/login` or `POST /auth/refresh-token`; valid for 24 hours.',
        },
      },
    },
  };
};

/**
 * The closed set of errors the API can answer with. Each code maps, exhaustively and in this one
 * place, to an HTTP status and an RFC 9457 problem `type`. The `type` URIs are stable identifiers
 * that clients may switch on; docs/api.md lists them.
 */
export const PROBLEM_TYPE_BASE = 'https://strategy-service.example.com/problems/';

export const errorCatalog = {
  MALFORMED_REQUEST: { status: 400, slug: 'malformed-request', title: 'The request could not be read' },
  VALIDATION_FAILED: { status: 400, slug: 'validation-failed', title: 'The request is invalid' },
  UNAUTHENTICATED: { status: 401, slug: 'unauthenticated', title: 'Authentication required' },
  INVALID_CREDENTIALS: { status: 401, slug: 'invalid-credentials', title: 'E-mail or password is wrong' },
  INVALID_API_KEY: { status: 401, slug: 'invalid-api-key', title: 'The API key is missing or invalid' },
  FORBIDDEN: { status: 403, slug: 'forbidden', title: 'Not allowed for this role' },
  TENANT_MISMATCH: { status: 403, slug: 'tenant-mismatch', title: 'X-Tenant-ID does not match the token' },
  TENANT_INACTIVE: { status: 403, slug: 'tenant-inactive', title: 'The tenant is inactive' },
  USER_DISABLED: { status: 403, slug: 'user-disabled', title: 'The user is disabled' },
  API_KEY_REVOKED: { status: 403, slug: 'api-key-revoked', title: 'The API key has been revoked' },
  API_KEY_EXPIRED: { status: 403, slug: 'api-key-expired', title: 'The API key has expired' },
  /** A request with a key limited to some source addresses (`allowedSources`) came from another. */
  SOURCE_NOT_ALLOWED: {
    status: 403,
    slug: 'source-not-allowed',
    title: 'The API key may not be used from this address',
  },
  FEATURE_NOT_ENABLED: {
    status: 403,
    slug: 'feature-not-enabled',
    title: "The tenant's plan does not include this feature",
  },
  /** A push of a KPI-scoped key names KPIs of its tenant outside the key's scope. */
  KPI_OUTSIDE_KEY_SCOPE: {
    status: 403,
    slug: 'kpi-outside-key-scope',
    title: 'The API key may not push to these KPIs',
  },
  NOT_FOUND: { status: 404, slug: 'not-found', title: 'Not found' },
  CONFLICT: { status: 409, slug: 'conflict', title: 'Conflict with the current state' },
  API_KEY_LIMIT_REACHED: {
    status: 409,
    slug: 'api-key-limit-reached',
    title: "The plan's API key limit is reached",
  },
  PULL_INTEGRATION_LIMIT_REACHED: {
    status: 409,
    slug: 'pull-integration-limit-reached',
    title: "The plan's pull integration limit is reached",
  },
  /** Only an active key can be rolled (revoked and expired keys are final, spec 3). */
  API_KEY_NOT_ACTIVE: {
    status: 409,
    slug: 'api-key-not-active',
    title: 'The API key is not active',
  },
  /** A key is rolled once; its replacement is the key to roll next. */
  API_KEY_ALREADY_ROLLED: {
    status: 409,
    slug: 'api-key-already-rolled',
    title: 'The API key was already rolled',
  },
  /** A tenant has at most its plan's KPI_LIMITS live KPIs (lib/domain/plan.ts). */
  KPI_LIMIT_REACHED: {
    status: 409,
    slug: 'kpi-limit-reached',
    title: 'The plan’s KPI maximum is reached',
  },
  KPI_ARCHIVED: { status: 409, slug: 'kpi-archived', title: 'The KPI is archived' },
  CYCLE_HAS_KPIS: { status: 409, slug: 'cycle-has-kpis', title: 'The strategic cycle still has KPIs' },
  /** A tenant has at most MAX_WEBHOOK_ENDPOINTS webhook endpoints (lib/domain/webhook.ts). */
  WEBHOOK_LIMIT_REACHED: {
    status: 409,
    slug: 'webhook-limit-reached',
    title: 'The webhook endpoint limit is reached',
  },
  PAYLOAD_TOO_LARGE: { status: 413, slug: 'payload-too-large', title: 'The request body is too large' },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    slug: 'unsupported-media-type',
    title: 'Content-Type must be application/json',
  },
  RATE_LIMIT_EXCEEDED: { status: 429, slug: 'rate-limit-exceeded', title: 'Request quota exceeded' },
  /** Answered by API Gateway when a tenant's usage plan quota is used up (infra/gateway-responses.json). */
  QUOTA_EXCEEDED: {
    status: 429,
    slug: 'quota-exceeded',
    title: 'The monthly request quota of the plan is used up',
  },
  TOO_MANY_LOGIN_ATTEMPTS: {
    status: 429,
    slug: 'too-many-login-attempts',
    title: 'Too many failed attempts',
  },
  INTERNAL: { status: 500, slug: 'internal', title: 'Internal server error' },
  SERVICE_UNAVAILABLE: {
    status: 503,
    slug: 'service-unavailable',
    title: 'The service is temporarily unavailable',
  },
} as const satisfies Record<string, { status: number; slug: string; title: string }>;

export type ErrorCode = keyof typeof errorCatalog;

export interface FieldError {
  /** Path of the offending field in the request, e.g. `measurements[3].actual`. */
  path: string;
  message: string;
}

export interface AppErrorOptions {
  errors?: FieldError[];
  headers?: Record<string, string>;
  /** Extra members of the problem document (RFC 9457 §3.2), e.g. `limit`. */
  extensions?: Record<string, unknown>;
  cause?: unknown;
}

/** A domain error that the error middleware renders as a problem document. */
export class AppError extends Error {
  override name = 'AppError';
  readonly code: ErrorCode;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string>;
  readonly extensions: Record<string, unknown>;

  constructor(code: ErrorCode, detail: string, options: AppErrorOptions = {}) {
    super(detail, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.extensions = options.extensions ?? {};
  }

  get status(): number {
    return errorCatalog[this.code].status;
  }
}

export const problemType = (code: ErrorCode): string => `${PROBLEM_TYPE_BASE}${errorCatalog[code].slug}`;

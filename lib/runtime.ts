import { ssmSecret } from './auth/jwt-secret';
import { createTokenService, type TokenSettings } from './auth/tokens';
import { parseConfig } from './config';
import { createDatabase } from './db/client';
import { probeTable } from './db/health';
import { getTenant } from './db/tenants';
import { createHealthCheck } from './health';
import type { PushDeps } from './push/push-service';
import { createTenantCache } from './tenant-cache';

/**
 * Module-scope dependencies of the Lambda handlers, built once per container at cold start.
 * Handlers import from here; `lib/` services receive these as arguments and never import this file.
 */
export const config = parseConfig(process.env);

export const db = createDatabase({
  tableName: config.TABLE_NAME,
  region: config.AWS_REGION,
  endpoint: config.DYNAMODB_ENDPOINT,
});

/**
 * The JWT key is read at the first sign or verify, from SSM on AWS (issue 14); locally it is JWT_SECRET.
 * Both calls are marked pure (and the settings built by a function, so no argument has side effects):
 * a function that never uses `tokens` (push, pages) drops the token service, the JWT code and the SSM read
 * from its bundle.
 */
const tokenSettings = (): TokenSettings => ({
  secret:
    config.JWT_SECRET ??
    ssmSecret({
      name: config.JWT_SECRET_PARAMETER as string,
      region: config.AWS_REGION,
      maxAgeSeconds: config.JWT_KEY_MAX_AGE_SECONDS,
    }),
  issuer: config.JWT_ISSUER,
  audience: config.JWT_AUDIENCE,
  refreshTtlSeconds: config.REFRESH_TOKEN_TTL_SECONDS,
});

export const tokens = /* @__PURE__ */ createTokenService(/* @__PURE__ */ tokenSettings());

/**
 * Push pipeline dependencies; the tenant cache lives as long as the container. Built by a function
 * marked pure, like `tokens`, so functions that do not push leave the cache and its reads out.
 */
const createPushDeps = (): PushDeps => ({
  db,
  tenants: createTenantCache({
    ttlSeconds: config.TENANT_CACHE_TTL_SECONDS,
    load: (id) => getTenant(db, id),
  }),
  rateLimits: {
    windowSeconds: config.RATE_LIMIT_WINDOW_SECONDS,
    perPlan: {
      free: config.RATE_LIMIT_FREE,
      business: config.RATE_LIMIT_BUSINESS,
      enterprise: config.RATE_LIMIT_ENTERPRISE,
    },
  },
});

export const pushDeps: PushDeps = /* @__PURE__ */ createPushDeps();

/** GET /health's check; pure, so bundles of the other functions leave it out. */
export const checkHealth = /* @__PURE__ */ createHealthCheck({ probe: () => probeTable(db) });

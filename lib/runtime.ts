import { createGithubKeys } from './auth/github-keys';
import { ssmSecret } from './auth/jwt-secret';
import { createSessionGuard } from './auth/session-guard';
import { createTokenService, type TokenSettings } from './auth/tokens';
import { corsOrigins, parseConfig } from './config';
import type { SecretSource } from './crypto/seal';
import { createDatabase } from './db/client';
import { probeTable } from './db/health';
import { getSessionState } from './db/sessions';
import { getTenant } from './db/tenants';
import { createEgress, type EgressRules } from './egress';
import { createHealthCheck } from './health';
import { createCursorSeal } from './http/cursors';
import {
  githubSignedEndpointOf,
  jwtEndpointOf,
  keyEndpointOf,
  pageEndpointOf,
  publicEndpointOf,
} from './http/endpoint';
import { createTokenCache } from './pull/fetch';
import { PULL_QUEUE_NAME } from './pull/local-queue';
import { createPullSecretSeal } from './pull/secrets';
import type { PullDeps, PullFetchDeps, PullRunDeps } from './pull/service';
import type { PushDeps } from './push/push-service';
import { createTenantCache } from './tenant-cache';
import { tracer } from './tracer';
import type { DeliveryDeps } from './webhooks/deliver';
import { localQueueSender, WEBHOOK_QUEUE_NAME } from './webhooks/local-queue';
import { createPublisher } from './webhooks/publisher';
import { type Queue, sqsQueue } from './webhooks/queue';
import { createWebhookSecretSeal } from './webhooks/secrets';
import type { WebhookDeps } from './webhooks/service';

/**
 * Module-scope dependencies of the Lambda handlers, built once per container at cold start.
 * Handlers import from here; `lib/` services receive these as arguments and never import this file.
 */
export const config = parseConfig(process.env);

/** The one DynamoDB client of a container. */
const database = createDatabase({
  tableName: config.TABLE_NAME,
  region: config.AWS_REGION,
  endpoint: config.DYNAMODB_ENDPOINT,
  auditRetentionDays: config.AUDIT_RETENTION_DAYS,
});

/**
 * The client captured by the tracer: each call is an X-Ray subsegment. Pure, like `tokens`: the push
 * functions and their authorizer, which cron callers meet cold, use `database` through `pushDeps` and
 * carry neither Tracer nor the X-Ray SDK; Lambda's active tracing still records their invocations
 * (docs/operations.md, "Traces").
 */
const tracedDatabase = () => {
  tracer.captureAWSv3Client(database.client);
  return database;
};
export const db = /* @__PURE__ */ tracedDatabase();

/**
 * The JWT key is read at the first sign or verify, from SSM on AWS (through Powertools Parameters);
 * locally it is JWT_SECRET. Both calls are marked pure (and the settings built by a function, so no
 * argument has side effects): a function that never uses `tokens` (push, pages) drops the token service,
 * jose, the claim schemas and the SSM read from its bundle.
 */
const jwtKeySource = (): SecretSource =>
  config.JWT_SECRET ??
  ssmSecret({
    name: config.JWT_SECRET_PARAMETER as string,
    region: config.AWS_REGION,
    maxAgeSeconds: config.JWT_KEY_MAX_AGE_SECONDS,
  });

/** One source of the key text per container: the token service and the cursor seal share its reads. */
const jwtKeys = /* @__PURE__ */ jwtKeySource();

const tokenSettings = (): TokenSettings => ({
  secret: jwtKeys,
  issuer: config.JWT_ISSUER,
  audience: config.JWT_AUDIENCE,
  refreshTtlSeconds: config.REFRESH_TOKEN_TTL_SECONDS,
});

export const tokens = /* @__PURE__ */ createTokenService(/* @__PURE__ */ tokenSettings());

/**
 * Whether an access token's session still allows it, read per session at most every
 * SESSION_CACHE_TTL_SECONDS (lib/auth/session-guard.ts). Pure, with its settings built by a function,
 * like `tokens`: the push functions and the pages leave it out.
 */
const sessionGuardSettings = (): Parameters<typeof createSessionGuard>[0] => ({
  load: (principal) => getSessionState(db, principal),
  ttlSeconds: config.SESSION_CACHE_TTL_SECONDS,
});

export const sessionGuard = /* @__PURE__ */ createSessionGuard(/* @__PURE__ */ sessionGuardSettings());

/** The lists' cursors, sealed with a key derived from the JWT key (lib/http/cursors.ts). */
export const cursors = /* @__PURE__ */ createCursorSeal(jwtKeys);

/**
 * Push pipeline dependencies; the tenant cache lives as long as the container. Built by a function
 * marked pure, like `tokens`, so functions that do not push leave the cache and its reads out.
 */
const createPushDeps = (): PushDeps => ({
  db: database,
  tenants: createTenantCache({
    ttlSeconds: config.TENANT_CACHE_TTL_SECONDS,
    load: (id) => getTenant(database, id),
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

/**
 * Webhook deliveries go through SQS where WEBHOOK_QUEUE_URL names the queue; else through the local
 * queue in the table (the local stage), of which the functions only send (`npm run alerts:run` receives).
 */
const webhookQueueOf = (): Queue =>
  config.WEBHOOK_QUEUE_URL
    ? sqsQueue({ url: config.WEBHOOK_QUEUE_URL, region: config.AWS_REGION })
    : localQueueSender(db, { name: WEBHOOK_QUEUE_NAME });

export const webhookQueue = /* @__PURE__ */ webhookQueueOf();

/**
 * The secrets key: what seals the secrets tenants give the service (webhook signing secrets, pull
 * credentials). A key of its own, read like the JWT key (from its own SSM SecureString on AWS, through
 * Powertools Parameters) and never derived from it. A stage without one fails where a secret is sealed
 * or opened, not at cold start: most functions never touch one.
 */
const secretsKeySource = (): SecretSource =>
  config.SECRETS_KEY ??
  (config.SECRETS_KEY_PARAMETER
    ? ssmSecret({
        name: config.SECRETS_KEY_PARAMETER,
        region: config.AWS_REGION,
        maxAgeSeconds: config.JWT_KEY_MAX_AGE_SECONDS,
      })
    : () => Promise.reject(new Error('Neither SECRETS_KEY nor SECRETS_KEY_PARAMETER is set.')));

const secretsKey = /* @__PURE__ */ secretsKeySource();

/**
 * Webhook secrets, sealed with the secrets key; those sealed before it existed open with the key
 * derived from the JWT key (lib/webhooks/secrets.ts).
 */
export const webhookSecrets = /* @__PURE__ */ createWebhookSecretSeal({ secretsKey, jwtKey: jwtKeys });

/** Publishes events to the tenants' webhooks: the key use cases take it (lib/webhooks/events.ts). */
export const publish = /* @__PURE__ */ createPublisher({ db, queue: webhookQueue });

/**
 * Every request to a URL a tenant chose (lib/egress/): this machine is reachable on the local stage
 * only. Pure, with its rules built by a function: only the functions that call tenant URLs carry it.
 */
const egressRules = (): EgressRules => ({ allowLoopback: config.STAGE === 'local' });
export const egress = /* @__PURE__ */ createEgress(/* @__PURE__ */ egressRules());

const webhookDepsOf = (): WebhookDeps => ({ db, secrets: webhookSecrets, local: config.STAGE === 'local' });
export const webhookDeps = /* @__PURE__ */ webhookDepsOf();

const deliveryDepsOf = (): DeliveryDeps => ({ db, secrets: webhookSecrets, egress });
export const deliveryDeps = /* @__PURE__ */ deliveryDepsOf();

/**
 * The pull integrations' dependencies (lib/pull/): their credentials sealed with the secrets key, the
 * tenant (its plan's features) cached as the push caches it. Previews and runs also get the egress
 * guard (this machine allowed on the local stage only), OAuth tokens kept in this container's memory,
 * and the publisher; the functions that only manage integrations carry none of those.
 */
const pullDepsOf = (): PullDeps => ({
  db,
  secrets: createPullSecretSeal(secretsKey),
  tenants: createTenantCache({
    ttlSeconds: config.TENANT_CACHE_TTL_SECONDS,
    load: (id) => getTenant(db, id),
  }),
  local: config.STAGE === 'local',
});
export const pullDeps = /* @__PURE__ */ pullDepsOf();

const pullFetchDepsOf = (): PullFetchDeps => ({ ...pullDeps, egress, tokens: createTokenCache() });
export const pullFetchDeps = /* @__PURE__ */ pullFetchDepsOf();

const pullRunDepsOf = (): PullRunDeps => ({ ...pullFetchDeps, publish });
export const pullRunDeps = /* @__PURE__ */ pullRunDepsOf();

/** Due pull integrations go through SQS where PULL_QUEUE_URL names the queue, else the table's queue. */
const pullQueueOf = (): Queue =>
  config.PULL_QUEUE_URL
    ? sqsQueue({ url: config.PULL_QUEUE_URL, region: config.AWS_REGION })
    : localQueueSender(db, { name: PULL_QUEUE_NAME });

export const pullQueue = /* @__PURE__ */ pullQueueOf();

/** GET /health's check; pure, so bundles of the other functions leave it out. */
export const checkHealth = /* @__PURE__ */ createHealthCheck({ probe: () => probeTable(db) });

/**
 * GitHub's secret-scanning public keys, fetched from SECRET_SCANNING_KEYS_URL and kept per container
 * (lib/auth/github-keys.ts). Pure, with its settings built by a function: only the secret-scanning
 * function carries it.
 */
const githubKeySettings = (): Parameters<typeof createGithubKeys>[0] => ({
  url: config.SECRET_SCANNING_KEYS_URL,
});

const githubKeys = /* @__PURE__ */ createGithubKeys(/* @__PURE__ */ githubKeySettings());

/**
 * The handlers of the route modules (lib/http/endpoint.ts), each built from its route's declaration.
 * Marked pure like the rest, so that a function bundles only the wrapper it uses: a push function
 * carries no token service.
 */
const web = { corsOrigins: corsOrigins(config) };
const traced = () => ({ ...web, tracer });
export const publicEndpoint = /* @__PURE__ */ publicEndpointOf(/* @__PURE__ */ traced());
export const jwtEndpoint = /* @__PURE__ */ jwtEndpointOf(
  /* @__PURE__ */ traced(),
  tokens,
  sessionGuard,
  cursors,
);
/** The push routes: no Tracer (see `db`). */
export const keyEndpoint = /* @__PURE__ */ keyEndpointOf(web);
export const pageEndpoint = /* @__PURE__ */ pageEndpointOf(/* @__PURE__ */ traced());
export const githubSignedEndpoint = /* @__PURE__ */ githubSignedEndpointOf(
  /* @__PURE__ */ traced(),
  githubKeys,
);

import { outsideScope } from '../api-keys/rules';
import { countRefusal, countRequest, dayOf, type RequestCount, recordUse } from '../db/api-key-usage';
import { toApiKey } from '../db/api-keys';
import { batchGet } from '../db/batch';
import type { Database } from '../db/client';
import { type ItemKey, keys } from '../db/keys';
import { toKpi } from '../db/kpis';
import {
  type PlannedMeasurement,
  planMeasurements,
  putMeasurements,
  toMeasurement,
  upsertMeasurement,
  type WriteContext,
  type WrittenMeasurement,
} from '../db/measurements';
import type { ApiKey } from '../domain/api-key';
import type { UsageRefusal } from '../domain/api-key-usage';
import type { Kpi } from '../domain/kpi';
import type { Plan } from '../domain/plan';
import { AppError, type ErrorCode, errorCatalog } from '../errors';
import { uuidv7 } from '../ids';
import { logger } from '../logger';
import { countMetric, UNKNOWN_PLAN } from '../metrics';
import { settleAll } from '../promises';
import type { TenantCache } from '../tenant-cache';
import {
  apiKeyHashOf,
  assertKeyUsable,
  assertTenantMayPush,
  type KeyVerification,
  verifyApiKey,
} from './api-key-auth';
import type { MeasurementInput } from './measurement-schema';
import { decide, type RateLimitSettings, windowStart } from './rate-limit';

export interface PushDeps {
  db: Database;
  tenants: TenantCache;
  rateLimits: RateLimitSettings;
  now?: () => number;
}

/**
 * What the API Gateway authorizer (functions/push-authorizer.ts) says about the key, from its cached
 * result (≤ 5 minutes old). `active` lets the pipeline count the request in its first round trip; the
 * key's state is checked again here from a fresh read either way, so a revocation still stops the very
 * next request.
 */
export interface AuthorizerVerdict {
  keyId: string;
  status: 'active' | 'refused';
}

export interface PushRequest {
  /** The `x-api-key` header. */
  apiKey: string | undefined;
  /** Present when the request came through the API Gateway authorizer. */
  authorizer?: AuthorizerVerdict | undefined;
  /** Reads and validates the body (and query); its errors are reported only after the key is authenticated. */
  readMeasurements: () => Promise<MeasurementInput[]>;
  /** Milliseconds the invocation has left (Lambda's `getRemainingTimeInMillis`). */
  remainingTimeMs?: () => number;
  /**
   * Every check as for a real push (same answers; it counts against the rate limit), then nothing
   * written, not even `lastUsedAt`; the answer says what would be created or updated.
   */
  dryRun?: boolean;
  /** Where the request came from (API Gateway's request context): the key's usage keeps the last one. */
  source?: { sourceIp?: string | undefined; userAgent?: string | undefined };
}

/**
 * What a key's usage keeps of a request's source: the address as API Gateway saw it (an IPv6 address
 * has at most 45 characters) and the User-Agent cut to 200 characters; never a header or the body.
 */
const SOURCE_IP_LENGTH = 45;
const USER_AGENT_LENGTH = 200;
const cut = (value: string | undefined, length: number) => (value ? value.slice(0, length) : undefined);

/**
 * Why a refused request of a known key counts on its day of usage. Refusals before the key is known
 * (no key, a malformed or unknown one) count nowhere: a flood of forged keys writes nothing.
 */
const REFUSALS: Partial<Record<ErrorCode, UsageRefusal>> = {
  API_KEY_REVOKED: 'authentication',
  API_KEY_EXPIRED: 'authentication',
  TENANT_INACTIVE: 'authentication',
  FEATURE_NOT_ENABLED: 'featureOff',
  RATE_LIMIT_EXCEEDED: 'rateLimit',
  KPI_OUTSIDE_KEY_SCOPE: 'scope',
  VALIDATION_FAILED: 'validation',
  MALFORMED_REQUEST: 'validation',
  PAYLOAD_TOO_LARGE: 'validation',
  UNSUPPORTED_MEDIA_TYPE: 'validation',
  NOT_FOUND: 'validation',
};

/** What the pipeline learned of the caller before it answered, for the metrics and the key's usage. */
interface Caller {
  plan?: Plan;
  /** Set once the key is known to exist: where a refusal of it is counted. */
  usage?: { keyHash: string; day: string; at: string };
}

/** The written (or, for a dry run, planned) measurements, and the RateLimit-* headers for the answer. */
export type PushResult =
  | { dryRun: false; items: WrittenMeasurement[]; headers: Record<string, string> }
  | { dryRun: true; items: PlannedMeasurement[]; headers: Record<string, string> };

/**
 * Writes are not started with less time than this left: a Lambda killed between two writes of a batch
 * would leave it half written. One write round trip takes tens of milliseconds; this leaves room for
 * the DynamoDB client's retries under throttling.
 */
export const MIN_TIME_FOR_WRITES_MS = 2000;

const itemId = ({ pk, sk }: ItemKey) => `${pk}|${sk}`;

const measurementKey = (m: MeasurementInput) => keys.measurement(m.kpiId, m.periodStart, m.periodEnd);

/** Spec 5.2.4: every KPI must be the key's tenant's, with that type. Foreign and missing look alike. */
const assertOwnership = (measurements: MeasurementInput[], kpis: Map<string, Kpi>, tenantId: string) => {
  const missing = [
    ...new Set(
      measurements
        .filter((m) => {
          const kpi = kpis.get(m.kpiId);
          return !kpi || kpi.tenantId !== tenantId || kpi.type !== m.kpiType;
        })
        .map((m) => m.kpiId),
    ),
  ];
  if (missing.length > 0) {
    throw new AppError(
      'NOT_FOUND',
      `No KPI of this organization with the given id and kpiType: ${missing.join(', ')}.`,
      { extensions: { missingKpiIds: missing } },
    );
  }
};

/**
 * A KPI-scoped key pushes only to the KPIs of its scope. Checked after ownership (spec 5.2.4:
 * a KPI that is not the tenant's is 404 whatever the scope), before anything is written, from the key
 * item the pipeline has already read: no extra read.
 */
const assertInScope = (measurements: MeasurementInput[], apiKey: ApiKey) => {
  const outside = outsideScope(
    apiKey.kpiIds,
    measurements.map((m) => m.kpiId),
  );
  if (outside.length > 0) {
    throw new AppError(
      'KPI_OUTSIDE_KEY_SCOPE',
      // Stryker disable next-line OptionalChaining: only a scoped key has KPIs outside its scope
      `API key ${apiKey.prefix}… may push only to its ${apiKey.kpiIds?.length} KPI(s); not to ${outside.join(', ')}.`,
      { extensions: { outOfScopeKpiIds: outside } },
    );
  }
};

/**
 * The push pipeline (spec 1, 5.2): authenticate the key, check tenant and plan, count the request
 * against the key's rate limit, validate the body, check KPI ownership and the key's KPI scope, write. Every check comes
 * before the first write, so a refused request writes nothing but its rate counter, and a request
 * whose key is unknown, revoked or expired, or whose tenant may not push, writes nothing at all.
 *
 * Round trips, tenant cached, through the authorizer:
 * 1. one strongly consistent BatchGetItem of the key, the KPIs and (for several measurements) their
 *    existing records, in parallel with the rate counter's UpdateItem on the key's usage item;
 * 2. the measurements (one UpdateItem, or BatchWriteItem in chunks of 25) in parallel with the usage
 *    item's `lastUsedAt`.
 * Without the authorizer's word that the key is active (a direct invocation), the request is counted
 * only after the key was read: one round trip more, and nothing written for a key that is not usable.
 * A tenant missing from the container's cache costs one read more.
 */
export const pushMeasurements = async (deps: PushDeps, request: PushRequest): Promise<PushResult> => {
  const caller: Caller = {};
  try {
    const result = await pipeline(deps, request, caller);
    if (!result.dryRun)
      countMetric('MeasurementsPushed', result.items.length, { plan: caller.plan ?? UNKNOWN_PLAN });
    return result;
  } catch (error) {
    // Every refused push by reason (the problem slug) and plan; 5xx are the alarms' business.
    if (error instanceof AppError && error.status < 500) {
      const plan = caller.plan ?? UNKNOWN_PLAN;
      countMetric('PushRejected', 1, { plan, reason: errorCatalog[error.code].slug });
      if (error.code === 'RATE_LIMIT_EXCEEDED') countMetric('RateLimited', 1, { plan });
      await countRefused(deps, request, caller, error);
    }
    throw error;
  }
};

/**
 * A refusal of a known key, on the key's day of usage (one update, before the answer: Lambda may
 * freeze right after it). The answer stays the refusal's: a count that fails is logged, not answered.
 */
const countRefused = async (
  deps: PushDeps,
  request: Pick<PushRequest, 'source'>,
  caller: Caller,
  error: AppError,
) => {
  const reason = REFUSALS[error.code];
  if (!caller.usage || !reason) return;
  const { keyHash, day, at } = caller.usage;
  try {
    await countRefusal(deps.db, keyHash, day, reason, { at, ...sourceOf(request) });
  } catch (failure) {
    logger.warn('a refused push was not counted in its key’s usage', failure as Error);
  }
};

/**
 * The authorizer's verification of a key (functions/push-authorizer.ts), with the refusals it answers
 * at the edge counted in the key's day as the handler counts its own: a revoked or expired key or an
 * inactive tenant on any push route, a missing plan feature on a push (the key check still answers
 * that key). API Gateway caches the denial for the authorizer's TTL and answers the key's next requests
 * without running it, so these refusals count evaluations (at most one per key per TTL and gateway
 * cache), not requests: the cost stays one update per evaluation of a known key, and an unknown or
 * malformed key writes nothing.
 */
export const authorizePush = async (
  deps: PushDeps,
  request: Pick<PushRequest, 'apiKey' | 'source'> & { method: string },
): Promise<KeyVerification> => {
  const verification = await verifyApiKey(deps, request.apiKey);
  const { refusal } = verification;
  if (refusal && (refusal.code !== 'FEATURE_NOT_ENABLED' || request.method === 'POST')) {
    const now = (deps.now ?? Date.now)();
    const usage = { keyHash: verification.keyHash, day: dayOf(now), at: new Date(now).toISOString() };
    await countRefused(deps, request, { usage }, refusal);
  }
  return verification;
};

const sourceOf = ({ source }: Pick<PushRequest, 'source'>) => ({
  sourceIp: cut(source?.sourceIp, SOURCE_IP_LENGTH),
  userAgent: cut(source?.userAgent, USER_AGENT_LENGTH),
});

const pipeline = async (deps: PushDeps, request: PushRequest, caller: Caller): Promise<PushResult> => {
  const now = deps.now ?? Date.now;
  const keyHash = apiKeyHashOf(request.apiKey);

  // The body is parsed before the first read (CPU only) so its KPI ids can be read in the same round
  // trip, but a body error is reported only after authentication (spec 5.2 order).
  const body = await request.readMeasurements().then(
    (measurements) => ({ ok: true as const, measurements }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  const measurements = body.ok ? body.measurements : [];
  const dryRun = request.dryRun === true;
  const kpiIds = [...new Set(measurements.map((m) => m.kpiId))];
  // One measurement is upserted without a read; several are read first, to keep their id and createdAt,
  // and so is any of a dry run, which must tell created from updated.
  const readExisting = measurements.length > 1 || dryRun;
  const startedAt = now();
  const window = {
    windowStart: windowStart(startedAt, deps.rateLimits.windowSeconds),
    windowSeconds: deps.rateLimits.windowSeconds,
  };
  const requestAt = new Date(startedAt).toISOString();
  const count = () => countRequest(deps.db, keyHash, window, { at: requestAt, ...sourceOf(request) });

  const [items, earlyCount] = await settleAll([
    batchGet(deps.db, [
      keys.apiKey(keyHash),
      ...kpiIds.map((id) => keys.kpi(id)),
      ...(readExisting ? measurements.map(measurementKey) : []), // unique: the schema refuses duplicates
    ]),
    request.authorizer?.status === 'active' ? count() : undefined,
  ]);
  const byKey = new Map(items.map((item) => [itemId(item as ItemKey), item]));
  const keyItem = byKey.get(itemId(keys.apiKey(keyHash)));
  if (keyItem) caller.usage = { keyHash, day: dayOf(window.windowStart * 1000), at: requestAt };
  const apiKey = assertKeyUsable(keyItem ? toApiKey(keyItem) : undefined, startedAt);
  // Every later log line of this request, the access line included, names tenant and key.
  logger.appendKeys({ tenantId: apiKey.tenantId, keyPrefix: apiKey.prefix });
  const loaded = await deps.tenants.get(apiKey.tenantId);
  caller.plan = loaded?.plan;
  const tenant = assertTenantMayPush(loaded);
  const counted: RequestCount = earlyCount ?? (await count());

  const rate = decide(counted.count, tenant.plan, deps.rateLimits, window.windowStart, now());
  try {
    if (!rate.admitted) {
      throw new AppError(
        'RATE_LIMIT_EXCEEDED',
        `This API key may make ${rate.headers['RateLimit-Limit']} push requests per ${deps.rateLimits.windowSeconds} s on the ${tenant.plan} plan. Retry after ${rate.headers['Retry-After']} s.`,
      );
    }
    if (!body.ok) throw body.error;
    const kpis = new Map(
      kpiIds.flatMap((id) => {
        const item = byKey.get(itemId(keys.kpi(id)));
        return item ? [[id, toKpi(item)] as const] : [];
      }),
    );
    assertOwnership(measurements, kpis, tenant.id);
    assertInScope(measurements, apiKey);
    const at = new Date(now()).toISOString();
    const context: WriteContext = {
      tenantId: tenant.id,
      apiKeyId: apiKey.id,
      apiKeyPrefix: apiKey.prefix,
      at,
    };
    const existing = (input: MeasurementInput) => {
      const item = byKey.get(itemId(measurementKey(input)));
      return item ? toMeasurement(item) : undefined;
    };
    if (dryRun) {
      const items = planMeasurements(
        measurements.map((input) => ({ input, existing: existing(input) })),
        context,
      );
      return { dryRun: true, items, headers: rate.headers };
    }
    if (request.remainingTimeMs && request.remainingTimeMs() < MIN_TIME_FOR_WRITES_MS) {
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        'The request ran out of time before it was written. Retry it.',
        {
          headers: { 'Retry-After': '1' },
        },
      );
    }

    const write = async (): Promise<WrittenMeasurement[]> => {
      const [only] = measurements;
      if (!readExisting && only) return [await upsertMeasurement(deps.db, only, context, uuidv7())];
      return putMeasurements(
        deps.db,
        measurements.map((input) => ({ input, existing: existing(input), newId: uuidv7() })),
        context,
      );
    };
    const [written] = await settleAll([
      write(),
      recordUse(deps.db, keyHash, {
        day: counted.day,
        at,
        measurements: measurements.length,
        staleWindows: counted.staleWindows,
      }),
    ]);
    logger.info('measurements pushed', { tenantId: tenant.id, apiKeyId: apiKey.id, count: written.length });
    return { dryRun: false, items: written, headers: rate.headers };
  } catch (error) {
    if (error instanceof AppError) Object.assign(error.headers, rate.headers);
    throw error;
  }
};

import type { Context } from 'aws-lambda';
import { outsideScope } from '../api-keys/rules';
import { countRefusal, countRequest, dayOf, type RequestCount, recordUse } from '../db/api-key-usage';
import type { Database } from '../db/client';
import type { PlannedMeasurement, WriteContext, WrittenMeasurement } from '../db/measurements';
import { identityOf, type PushContext, readMeasurementRecords, readPushContext } from '../db/push-context';
import type { ApiKey } from '../domain/api-key';
import type { UsageRefusal } from '../domain/api-key-usage';
import type { Kpi } from '../domain/kpi';
import type { Plan } from '../domain/plan';
import type { Tenant } from '../domain/tenant';
import { AppError, type ErrorCode, errorCatalog } from '../errors';
import { logger } from '../logger';
import { countMetric, UNKNOWN_PLAN } from '../metrics';
import { settleAll } from '../promises';
import type { TenantCache } from '../tenant-cache';
import {
  apiKeyHashOf,
  assertKeyUsable,
  assertSourceAllowed,
  assertTenantMayPush,
  type KeyVerification,
  verifyApiKey,
} from './key-verification';
import type { MeasurementInput } from './measurement-schema';
import {
  type RateLimitDecision,
  type RateLimitSettings,
  decide as rateLimitDecision,
  windowStart,
} from './rate-limit';
import { assertLiveKpis, placeAllInPeriods, planStore, storeMeasurements, writableKpi } from './store';

export interface PushDeps {
  db: Database;
  tenants: TenantCache;
  rateLimits: RateLimitSettings;
  now?: () => number;
}

/**
 * What the API Gateway authorizer (functions/push-authorizer.ts) says about the key, from its cached
 * result (≤ 5 minutes old, for this key and this source address). `active` lets the pipeline count the
 * request in its first round trip; the key's source and state are checked again here from a fresh read
 * either way, so a revocation, or a source taken off the key's list, stops the very next request.
 */
export interface AuthorizerVerdict {
  keyId: string;
  status: 'active' | 'refused';
}

/** What a push sends: its measurements, and whether it is a dry run. */
export interface PushInput {
  measurements: MeasurementInput[];
  /**
   * Every check as for a real push (same answers; it counts against the rate limit), then nothing
   * written, not even `lastUsedAt`; the answer says what would be created or updated.
   */
  dryRun?: boolean | undefined;
  /** How the request names its element `index` in a problem: `measurements[3]` in a batch. */
  pathOf?: ((index: number) => string) | undefined;
}

export interface PushRequest {
  /** The `x-api-key` header. */
  apiKey: string | undefined;
  /** Present when the request came through the API Gateway authorizer. */
  authorizer?: AuthorizerVerdict | undefined;
  /**
   * The body and query as the endpoint reads and checks them, still pending: an input error is
   * answered only after the key's (spec 5.2 order).
   */
  input: Promise<PushInput>;
  /** The invocation's context: the time left before writing. */
  context?: Pick<Context, 'getRemainingTimeInMillis'> | undefined;
  /** Where the request came from (API Gateway's request context): the key's usage keeps the last one. */
  source?: { sourceIp?: string | undefined; userAgent?: string | undefined } | undefined;
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
  SOURCE_NOT_ALLOWED: 'source',
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

/** Spec 5.2.4: every KPI must be the key's tenant's, with that type. Foreign and missing look alike. */
const assertOwnership = (measurements: MeasurementInput[], kpis: Map<string, Kpi>, tenantId: string) => {
  const missing = [
    ...new Set(
      measurements.filter((m) => !writableKpi(kpis.get(m.kpiId), tenantId, m.kpiType)).map((m) => m.kpiId),
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
 * The push pipeline (spec 1, 5.2), in three steps: `authenticate` the key (and its tenant and plan, and
 * count the request against the key's rate limit), `decide` (the rate limit, the input, KPI ownership
 * and the key's KPI scope), `write`. Every check comes before the first write, so a refused request
 * writes nothing but its rate counter, and a request whose key is unknown, revoked or expired, or whose
 * tenant may not push, writes nothing at all.
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
 * at the edge counted in the key's day as the handler counts its own: a request from a source the key
 * does not allow, a revoked or expired key or an inactive tenant on any push route, a missing plan
 * feature on a push (the key check still answers that key). API Gateway caches the denial for the authorizer's TTL and answers the key's next requests
 * without running it, so these refusals count evaluations (at most one per key per TTL and gateway
 * cache), not requests: the cost stays one update per evaluation of a known key, and an unknown or
 * malformed key writes nothing.
 */
export const authorizePush = async (
  deps: PushDeps,
  request: Pick<PushRequest, 'apiKey' | 'source'> & { method: string },
): Promise<KeyVerification> => {
  const verification = await verifyApiKey(deps, request.apiKey, request.source?.sourceIp);
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

/** What a push asks for, as far as its input was read: no measurements when it is not valid. */
interface Wanted {
  measurements: MeasurementInput[];
  dryRun: boolean;
  /**
   * One measurement is upserted without a read; several are read first, to keep their id and
   * createdAt, and so is any of a dry run, which must tell created from updated.
   */
  readExisting: boolean;
}

/** What `authenticate` established: a usable key of a tenant that may push, the request counted. */
interface Authenticated {
  apiKey: ApiKey;
  keyHash: string;
  tenant: Tenant;
  /** The instant the request is counted at: its window is the one the count goes to. */
  countedAt: number;
  window: { windowStart: number; windowSeconds: number };
  counted: RequestCount;
  /** What the first round trip read besides the key: the KPIs and the existing records. */
  read: PushContext;
}

/**
 * The first round trip: the key, the KPIs and, for several measurements or a dry run, their existing
 * records, with the request counted in parallel when the authorizer vouched for the key; then the
 * key's source, state, tenant (cached) and plan. An unknown, malformed, revoked or expired key, a
 * source the key does not allow, or a tenant that may not push, ends the request here.
 */
const authenticate = async (
  deps: PushDeps,
  request: PushRequest,
  wanted: Wanted,
  caller: Caller,
): Promise<Authenticated> => {
  const now = deps.now ?? Date.now;
  const keyHash = apiKeyHashOf(request.apiKey);
  const startedAt = now();
  const window = {
    windowStart: windowStart(startedAt, deps.rateLimits.windowSeconds),
    windowSeconds: deps.rateLimits.windowSeconds,
  };
  const requestAt = new Date(startedAt).toISOString();
  const count = () => countRequest(deps.db, keyHash, window, { at: requestAt, ...sourceOf(request) });
  const kpiIds = [...new Set(wanted.measurements.map((m) => m.kpiId))];
  const [read, earlyCount] = await settleAll([
    // The measurements are unique: the input's schema refuses duplicates.
    readPushContext(deps.db, keyHash, kpiIds, wanted.readExisting ? wanted.measurements : []),
    request.authorizer?.status === 'active' ? count() : undefined,
  ]);
  if (read.key) caller.usage = { keyHash, day: dayOf(window.windowStart * 1000), at: requestAt };
  // The source first, as the authorizer checks it: its cached answer may be older than a change of
  // the key's allowed sources, and nothing is written for a request the key's list does not allow.
  if (read.key) assertSourceAllowed(read.key.key, request.source?.sourceIp);
  const apiKey = assertKeyUsable(read.key?.key, startedAt);
  // Every later log line of this request, the access line included, names tenant and key.
  logger.appendKeys({ tenantId: apiKey.tenantId, keyPrefix: apiKey.prefix });
  const loaded = await deps.tenants.get(apiKey.tenantId);
  caller.plan = loaded?.plan;
  const tenant = assertTenantMayPush(loaded);
  const counted = earlyCount ?? (await count());
  return { apiKey, keyHash, tenant, countedAt: startedAt, window, counted, read };
};

/**
 * Whether the push may be written, from what was read: within the key's rate limit, a valid input, KPIs
 * of the key's tenant with those types, inside the key's scope, each measurement one whole period of
 * its KPI. Its answer is what a write records of the push (the tenant, the key and the time) and the
 * measurements in their KPIs' periods.
 */
const decide = (
  deps: PushDeps,
  { apiKey, tenant, read, window }: Authenticated,
  rate: RateLimitDecision,
  input: Settled<PushInput>,
): { context: WriteContext; measurements: MeasurementInput[] } => {
  if (!rate.admitted) {
    throw new AppError(
      'RATE_LIMIT_EXCEEDED',
      `This API key may make ${rate.headers['RateLimit-Limit']} push requests per ${window.windowSeconds} s on the ${tenant.plan} plan. Retry after ${rate.headers['Retry-After']} s.`,
    );
  }
  if (!input.ok) throw input.error;
  assertOwnership(input.value.measurements, read.kpis, tenant.id);
  assertInScope(input.value.measurements, apiKey);
  assertLiveKpis(
    input.value.measurements.map((m) => m.kpiId),
    read.kpis,
  );
  const now = (deps.now ?? Date.now)();
  // After the scope: a key learns nothing of a KPI outside it, its period included.
  const measurements = placeAllInPeriods(input.value.measurements, read.kpis, now, input.value.pathOf);
  const at = new Date(now).toISOString();
  return {
    context: { tenantId: tenant.id, source: { type: 'apiKey', id: apiKey.id, prefix: apiKey.prefix }, at },
    measurements,
  };
};

/**
 * The second round trip: the measurements through the one write path of pushes and pulls
 * (./store.ts: one is upserted without a read, several are written whole with the `id` and `createdAt`
 * of their existing records), the key's usage recording the use in parallel. A dry run writes nothing
 * and answers what it would have written.
 */
const write = async (
  deps: PushDeps,
  request: PushRequest,
  { keyHash, counted, read }: Authenticated,
  { dryRun, readExisting, measurements: asked }: Wanted,
  { context, measurements }: { context: WriteContext; measurements: MeasurementInput[] },
  headers: Record<string, string>,
): Promise<PushResult> => {
  // The first round trip read each record at the month the schema filled in; a measurement its KPI's
  // period placed elsewhere (a weekly KPI pushed without a period) is read where it landed.
  const moved = readExisting
    ? measurements.filter((m, i) => identityOf(m) !== identityOf(asked[i] as MeasurementInput))
    : [];
  const records =
    moved.length > 0
      ? new Map([...read.existing, ...(await readMeasurementRecords(deps.db, moved))])
      : read.existing;
  const existing = (input: MeasurementInput) => records.get(identityOf(input));
  if (dryRun) return { dryRun: true, items: planStore(measurements, context, existing), headers };
  if (request.context && request.context.getRemainingTimeInMillis() < MIN_TIME_FOR_WRITES_MS) {
    throw new AppError(
      'SERVICE_UNAVAILABLE',
      'The request ran out of time before it was written. Retry it.',
      {
        headers: { 'Retry-After': '1' },
      },
    );
  }
  const [written] = await settleAll([
    storeMeasurements(deps.db, measurements, context, readExisting ? existing : undefined),
    recordUse(deps.db, keyHash, {
      day: counted.day,
      at: context.at,
      measurements: measurements.length,
      staleWindows: counted.staleWindows,
    }),
  ]);
  logger.info('measurements pushed', {
    tenantId: context.tenantId,
    apiKeyId: context.source.id,
    count: written.length,
  });
  return { dryRun: false, items: written, headers };
};

/** A promise's outcome as a value: an input error waits until the key has been judged. */
type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

const pipeline = async (deps: PushDeps, request: PushRequest, caller: Caller): Promise<PushResult> => {
  // The input is read before the first round trip (CPU only), so that its KPI ids are read in it.
  const input: Settled<PushInput> = await request.input.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  const measurements = input.ok ? input.value.measurements : [];
  const dryRun = input.ok && input.value.dryRun === true;
  const wanted: Wanted = { measurements, dryRun, readExisting: measurements.length > 1 || dryRun };
  const authenticated = await authenticate(deps, request, wanted, caller);
  const { counted, tenant, countedAt } = authenticated;
  // Decided on the instant the count was made for, not on the clock now: the headers then name the
  // window the count went to, however long the first round trip took.
  const rate = rateLimitDecision(counted.count, tenant.plan, deps.rateLimits, countedAt);
  try {
    const decided = decide(deps, authenticated, rate, input);
    return await write(deps, request, authenticated, wanted, decided, rate.headers);
  } catch (error) {
    if (error instanceof AppError) Object.assign(error.headers, rate.headers);
    throw error;
  }
};

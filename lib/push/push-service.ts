import { hashApiKey, isWellFormedApiKey } from '../api-keys/key-format';
import { type ApiKey, apiKeyStatus, toApiKey, touchApiKey } from '../db/api-keys';
import { batchGet, batchPut } from '../db/batch';
import type { Database } from '../db/client';
import { type ItemKey, keys } from '../db/keys';
import { type Kpi, toKpi } from '../db/kpis';
import { type Measurement, toMeasurement } from '../db/measurements';
import { countRequest } from '../db/rate-counters';
import type { Tenant } from '../db/tenants';
import { Feature } from '../domain';
import { AppError } from '../errors';
import { uuidv7 } from '../ids';
import { logger } from '../logger';
import type { TenantCache } from '../tenant-cache';
import type { MeasurementInput } from './measurement-schema';
import { decide, type RateLimitSettings, windowStart } from './rate-limit';

export interface PushDeps {
  db: Database;
  tenants: TenantCache;
  rateLimits: RateLimitSettings;
  now?: () => number;
}

export interface PushRequest {
  /** The `x-api-key` header. */
  apiKey: string | undefined;
  /** Reads and validates the body; called only after the key is authenticated (issue 4 order). */
  readMeasurements: () => Promise<MeasurementInput[]>;
}

export interface PushResult {
  items: { status: 'created' | 'updated'; measurement: Measurement }[];
  /** RateLimit-* headers for the response. */
  headers: Record<string, string>;
  writeUnits: number;
}

const invalidKey = (detail: string) =>
  new AppError('INVALID_API_KEY', detail, { headers: { 'WWW-Authenticate': 'ApiKey header="x-api-key"' } });

const itemId = ({ pk, sk }: ItemKey) => `${pk}|${sk}`;

/** Keys that can be computed from the request alone, so they are read in the first round trip. */
const measurementKey = (m: MeasurementInput) => keys.measurement(m.kpiId, m.periodStart, m.periodEnd);

const authenticate = (key: ApiKey | undefined, nowMs: number): ApiKey => {
  if (!key) throw invalidKey('The API key is not known. Check the x-api-key header.');
  const status = apiKeyStatus(key, nowMs);
  if (status === 'revoked') throw new AppError('API_KEY_REVOKED', `API key ${key.prefix}… has been revoked.`);
  if (status === 'expired')
    throw new AppError('API_KEY_EXPIRED', `API key ${key.prefix}… expired at ${key.expiresAt}.`);
  return key;
};

const authorize = (tenant: Tenant | undefined): Tenant => {
  if (!tenant?.active) throw new AppError('TENANT_INACTIVE', 'The organization of this API key is inactive.');
  if (!tenant.features.includes(Feature.KPI_PUSH_MEASUREMENT)) {
    throw new AppError(
      'FEATURE_NOT_ENABLED',
      `The plan of this organization does not include ${Feature.KPI_PUSH_MEASUREMENT}. Upgrade the plan to push measurements; the key itself is fine.`,
      { extensions: { feature: Feature.KPI_PUSH_MEASUREMENT } },
    );
  }
  return tenant;
};

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
      {
        extensions: { missingKpiIds: missing },
      },
    );
  }
};

/**
 * The push pipeline (spec 1, 5.2; issue 4 order): authenticate the key, check tenant and plan, count
 * the request against the key's rate limit, validate the body, check KPI ownership, write.
 *
 * Round trips: (1) one BatchGetItem for the key, the KPIs and the existing measurements, in parallel
 * with the rate counter's UpdateItem; (2) the tenant, only when not cached; (3) BatchWriteItem of the
 * measurements in parallel with the key's `lastUsedAt`. Nothing is written before every check passed.
 */
export const pushMeasurements = async (deps: PushDeps, request: PushRequest): Promise<PushResult> => {
  const now = deps.now ?? Date.now;
  if (!request.apiKey) throw invalidKey('Send the API key in the x-api-key header.');
  // Checksum first: a mistyped or truncated key costs no database read.
  if (!isWellFormedApiKey(request.apiKey)) throw invalidKey('The API key is malformed.');
  const keyHash = hashApiKey(request.apiKey);

  // The body is parsed before the first read (CPU only) so its KPI ids can be read in the same round
  // trip, but a body error is reported only after authentication.
  const body = await request.readMeasurements().then(
    (measurements) => ({ ok: true as const, measurements }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  const measurements = body.ok ? body.measurements : [];
  const kpiIds = [...new Set(measurements.map((m) => m.kpiId))];
  const startedAt = now();
  const start = windowStart(startedAt, deps.rateLimits.windowSeconds);

  const [items, count] = await Promise.all([
    batchGet(deps.db, [
      keys.apiKey(keyHash),
      ...kpiIds.map((id) => keys.kpi(id)),
      ...measurements.map(measurementKey), // unique: the schema refuses duplicate identities
    ]),
    countRequest(deps.db, keyHash, start, deps.rateLimits.windowSeconds),
  ]);
  const byKey = new Map(items.map((item) => [itemId(item as ItemKey), item]));
  const keyItem = byKey.get(itemId(keys.apiKey(keyHash)));
  const apiKey = authenticate(keyItem ? toApiKey(keyItem) : undefined, startedAt);
  const tenant = authorize(await deps.tenants.get(apiKey.tenantId));

  const rate = decide(count, tenant.plan, deps.rateLimits, start, now());
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
    const result = await write(deps.db, {
      measurements,
      byKey,
      apiKey,
      keyHash,
      at: new Date(now()).toISOString(),
    });
    logger.info('measurements pushed', {
      tenantId: tenant.id,
      apiKeyId: apiKey.id,
      count: measurements.length,
      writeUnits: result.writeUnits,
    });
    return { ...result, headers: rate.headers };
  } catch (error) {
    if (error instanceof AppError) Object.assign(error.headers, rate.headers);
    throw error;
  }
};

/**
 * Upsert by identity (tenant's KPI, periodStart, periodEnd): a re-push replaces the values and keeps
 * `id` and `createdAt`. Put items are whole, so a retry after a partial failure converges to the same
 * state (issue 4: retrying a batch is safe).
 */
const write = async (
  db: Database,
  {
    measurements,
    byKey,
    apiKey,
    keyHash,
    at,
  }: {
    measurements: MeasurementInput[];
    byKey: Map<string, Record<string, unknown>>;
    apiKey: ApiKey;
    keyHash: string;
    at: string;
  },
) => {
  const results = measurements.map((m) => {
    const key = measurementKey(m);
    const existing = byKey.get(itemId(key));
    const item = {
      ...key,
      type: 'MEASUREMENT',
      id: (existing?.id as string | undefined) ?? uuidv7(),
      tenantId: apiKey.tenantId,
      ...m,
      createdAt: (existing?.createdAt as string | undefined) ?? at,
      updatedAt: at,
      receivedAt: at,
      apiKeyId: apiKey.id,
      apiKeyPrefix: apiKey.prefix,
    };
    return { item, status: existing ? ('updated' as const) : ('created' as const) };
  });
  const [writeUnits] = await Promise.all([
    batchPut(
      db,
      results.map((r) => r.item),
    ),
    touchApiKey(db, keyHash, at),
  ]);
  return {
    items: results.map(({ item, status }) => ({ status, measurement: toMeasurement(item) })),
    writeUnits,
  };
};

import { hashApiKey, isWellFormedApiKey } from '../api-keys/key-format';
import { apiKeyStatus } from '../api-keys/rules';
import { sourceAllowed } from '../api-keys/sources';
import { getApiKeyByHash } from '../db/api-keys';
import type { Database } from '../db/client';
import type { ApiKey } from '../domain/api-key';
import { Feature } from '../domain/plan';
import type { Tenant } from '../domain/tenant';
import { AppError } from '../errors';
import type { TenantCache } from '../tenant-cache';

/**
 * Spec 5.2 steps 1-3, shared by the API Gateway authorizer (functions/push-authorizer.ts), the push
 * pipeline and the key check: the same checks in the same order give the same answers wherever they run.
 */
export const invalidApiKey = (detail: string) =>
  new AppError('INVALID_API_KEY', detail, { headers: { 'WWW-Authenticate': 'ApiKey header="x-api-key"' } });

/**
 * The key hash of a well-formed `x-api-key` value. The checksum comes first: a mistyped, truncated or
 * made-up key costs no database read.
 */
export const apiKeyHashOf = (apiKey: string | undefined): string => {
  if (!apiKey) throw invalidApiKey('Send the API key in the x-api-key header.');
  if (!isWellFormedApiKey(apiKey)) throw invalidApiKey('The API key is malformed.');
  return hashApiKey(apiKey);
};

/** Spec 5.2.2: unknown is 401; revoked or expired is 403. */
export const assertKeyUsable = (key: ApiKey | undefined, nowMs: number): ApiKey => {
  if (!key) throw invalidApiKey('The API key is not known. Check the x-api-key header.');
  const status = apiKeyStatus(key, nowMs);
  if (status === 'revoked') throw new AppError('API_KEY_REVOKED', `API key ${key.prefix}… has been revoked.`);
  if (status === 'expired')
    throw new AppError('API_KEY_EXPIRED', `API key ${key.prefix}… expired at ${key.expiresAt}.`);
  return key;
};

/**
 * A key limited to some sources works only from them: checked first once the key is known, so a
 * request from elsewhere learns nothing more of the key (not whether it was revoked, nor its
 * organization's state). The answer names the address the service saw, which tells its owner what
 * to add to the list; the list itself is not named.
 */
export const assertSourceAllowed = (key: ApiKey, sourceIp: string | undefined): ApiKey => {
  if (sourceAllowed(key.allowedSources, sourceIp)) return key;
  throw new AppError(
    'SOURCE_NOT_ALLOWED',
    `API key ${key.prefix}… may not be used from ${sourceIp ?? 'an unknown address'}; add that address to the key’s allowed sources if it should.`,
    { extensions: { sourceIp: sourceIp ?? null } },
  );
};

/** Spec 5.2.2-3: the key's tenant is active and its plan includes push. */
export const assertTenantMayPush = (tenant: Tenant | undefined): Tenant => {
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

export interface KeyVerification {
  key: ApiKey;
  keyHash: string;
  /** The key's tenant; undefined only if its record is missing. */
  tenant: Tenant | undefined;
  /** Why the key may not push right now (403), or undefined when it may. */
  refusal: AppError | undefined;
}

/**
 * Checksum → one strongly consistent read by hash → source → state → tenant (from the per-container
 * cache) → plan feature. An unknown or malformed key throws (401); a known key that may not push comes
 * back with its `refusal`, so a caller can still tell whose key it is (the authorizer needs the
 * tenant's usage plan key either way).
 */
export const verifyApiKey = async (
  { db, tenants, now = Date.now }: { db: Database; tenants: TenantCache; now?: () => number },
  apiKey: string | undefined,
  sourceIp: string | undefined,
): Promise<KeyVerification> => {
  const keyHash = apiKeyHashOf(apiKey);
  const key = await getApiKeyByHash(db, keyHash);
  if (!key) assertKeyUsable(key, now());
  const known = key as ApiKey;
  const tenant = await tenants.get(known.tenantId);
  let refusal: AppError | undefined;
  try {
    assertSourceAllowed(known, sourceIp);
    assertKeyUsable(known, now());
    assertTenantMayPush(tenant);
  } catch (error) {
    refusal = error as AppError;
  }
  return { key: known, keyHash, tenant, refusal };
};

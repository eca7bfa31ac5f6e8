import { requestsInWindow } from '../db/api-key-usage';
import { getApiKeyByHash } from '../db/api-keys';
import { Feature } from '../domain/plan';
import { AppError } from '../errors';
import { settleAll } from '../promises';
import { apiKeyHashOf, assertKeyUsable, assertSourceAllowed } from './key-verification';
import type { PushDeps } from './push-service';
import { decide, windowStart } from './rate-limit';

/**
 * `GET /integrations/push/key`: does this key work, and for what? For a CI job's setup step,
 * like Datadog's `GET /api/v1/validate`. A key a push would refuse with 401 or 403 is refused the same
 * way here (unknown, malformed, from a source it does not allow, revoked, expired, tenant inactive). A
 * key whose tenant's plan lacks push is answered 200 with `pushEnabled: false`: the key itself is fine,
 * as the push's 403 also says. The answer names the source address the service saw, and that it is
 * allowed: from an address the key does not allow, the check is refused like a push (403
 * `source-not-allowed`, naming the address), so a copied key tells whoever holds it nothing. The
 * check reads the current rate-limit budget without spending any of it.
 */
export const checkApiKey = async (
  deps: PushDeps,
  apiKey: string | undefined,
  sourceIp: string | undefined,
) => {
  const now = deps.now ?? Date.now;
  const keyHash = apiKeyHashOf(apiKey);
  const checkedAt = now();
  const start = windowStart(checkedAt, deps.rateLimits.windowSeconds);
  const [key, counted] = await settleAll([
    getApiKeyByHash(deps.db, keyHash),
    requestsInWindow(deps.db, keyHash, start),
  ]);
  if (key) assertSourceAllowed(key, sourceIp);
  const usable = assertKeyUsable(key, now());
  const tenant = await deps.tenants.get(usable.tenantId);
  if (!tenant?.active) throw new AppError('TENANT_INACTIVE', 'The organization of this API key is inactive.');
  // The budget as the next push would see it: the requests counted so far, none spent by this check.
  const { headers } = decide(counted, tenant.plan, deps.rateLimits, checkedAt);
  const remaining = Number(headers['RateLimit-Remaining']);
  return {
    body: {
      key: {
        id: usable.id,
        prefix: usable.prefix,
        name: usable.name,
        status: 'active' as const,
        createdAt: usable.createdAt,
        expiresAt: usable.expiresAt,
        allowedSources: usable.allowedSources,
      },
      source: { ip: sourceIp ?? null, allowed: true as const },
      organization: {
        id: tenant.id,
        plan: tenant.plan,
        pushEnabled: tenant.features.includes(Feature.KPI_PUSH_MEASUREMENT),
      },
      rateLimit: {
        limit: Number(headers['RateLimit-Limit']),
        remaining,
        resetSeconds: Number(headers['RateLimit-Reset']),
        windowSeconds: deps.rateLimits.windowSeconds,
      },
    },
    headers: {
      'RateLimit-Limit': headers['RateLimit-Limit'] as string,
      'RateLimit-Remaining': String(remaining),
      'RateLimit-Reset': headers['RateLimit-Reset'] as string,
    },
  };
};

import type { Tenant } from './db/tenants';

export interface TenantCache {
  get(tenantId: string): Promise<Tenant | undefined>;
}

/**
 * Per-container cache of tenant items: tenants change rarely, and the push hot path saves a round
 * trip on a hit. Entries live at most `ttlSeconds` (≤ 30), so a deactivated tenant or a
 * removed plan feature takes effect within that time. API keys are never cached.
 */
export const createTenantCache = ({
  ttlSeconds,
  load,
  now = Date.now,
}: {
  ttlSeconds: number;
  load: (tenantId: string) => Promise<Tenant | undefined>;
  now?: () => number;
}): TenantCache => {
  const entries = new Map<string, { tenant: Tenant; expiresAt: number }>();
  /**
   * The read in flight for each tenant: concurrent misses share it, so a burst on a cold container
   * reads the tenant once, not once per request. With caching off (`ttlSeconds` 0), every call reads.
   */
  const reading = new Map<string, Promise<Tenant | undefined>>();
  const read = async (tenantId: string) => {
    const tenant = await load(tenantId);
    if (tenant && ttlSeconds > 0) entries.set(tenantId, { tenant, expiresAt: now() + ttlSeconds * 1000 });
    else entries.delete(tenantId);
    return tenant;
  };
  return {
    async get(tenantId) {
      const cached = entries.get(tenantId);
      if (cached && cached.expiresAt > now()) return cached.tenant;
      if (ttlSeconds <= 0) return read(tenantId);
      const pending = reading.get(tenantId);
      if (pending) return pending;
      const started = read(tenantId).finally(() => reading.delete(tenantId));
      reading.set(tenantId, started);
      return started;
    },
  };
};

/**
 * At most `perTenant` tasks of one tenant at once; the others of that tenant wait for a free place,
 * in order, while other tenants' tasks run. Per container: what a worker instance holds of one tenant.
 */
export const createTenantLimiter = (perTenant: number) => {
  const running = new Map<string, number>();
  const waiting = new Map<string, (() => void)[]>();
  const acquire = async (tenant: string) => {
    if ((running.get(tenant) ?? 0) < perTenant) {
      running.set(tenant, (running.get(tenant) ?? 0) + 1);
      return;
    }
    await new Promise<void>((resolve) => {
      waiting.set(tenant, [...(waiting.get(tenant) ?? []), resolve]);
    });
  };
  const release = (tenant: string) => {
    const next = waiting.get(tenant)?.shift();
    // The place passes to the next waiting task of the tenant as it is.
    if (next) return next();
    const left = (running.get(tenant) ?? 1) - 1;
    if (left > 0) running.set(tenant, left);
    else running.delete(tenant);
  };
  return {
    async run<T>(tenant: string, task: () => Promise<T>): Promise<T> {
      await acquire(tenant);
      try {
        return await task();
      } finally {
        release(tenant);
      }
    },
    /** Tasks of the tenant running now (for tests). */
    runningOf: (tenant: string) => running.get(tenant) ?? 0,
  };
};

import { describe, expect, it } from 'vitest';
import type { Tenant } from '../../../lib/db/tenants';
import { createTenantCache } from '../../../lib/tenant-cache';

const tenant = { id: 't1', name: 'T', plan: 'free', features: [], active: true } as unknown as Tenant;

/** A loader that counts its reads and answers each when the test says so. */
const loader = () => {
  const waiting: ((t: Tenant | undefined) => void)[] = [];
  let reads = 0;
  return {
    load: (_id: string) => {
      reads += 1;
      return new Promise<Tenant | undefined>((resolve) => waiting.push(resolve));
    },
    answer: (t: Tenant | undefined) => {
      for (const resolve of waiting.splice(0)) resolve(t);
    },
    reads: () => reads,
  };
};

describe('the tenant cache', () => {
  it('concurrent misses share one read; a later miss after it failed or found nothing reads again', async () => {
    const source = loader();
    const cache = createTenantCache({ ttlSeconds: 30, load: source.load });
    const gets = Array.from({ length: 5 }, () => cache.get('t1'));
    expect(source.reads()).toBe(1);
    source.answer(undefined);
    expect(await Promise.all(gets)).toEqual([undefined, undefined, undefined, undefined, undefined]);
    const again = cache.get('t1');
    expect(source.reads()).toBe(2);
    source.answer(tenant);
    expect(await again).toBe(tenant);
    expect(await cache.get('t1')).toBe(tenant);
    expect(source.reads()).toBe(2);
  });

  it('a read that fails fails every request that shared it, and the next request reads again', async () => {
    let reads = 0;
    const cache = createTenantCache({
      ttlSeconds: 30,
      load: async () => {
        reads += 1;
        if (reads === 1) throw new Error('unavailable');
        return tenant;
      },
    });
    const shared = await Promise.allSettled([cache.get('t1'), cache.get('t1')]);
    expect(shared.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await cache.get('t1')).toBe(tenant);
    expect(reads).toBe(2);
  });

  it('with caching off, every request reads, concurrent ones too', async () => {
    const source = loader();
    const cache = createTenantCache({ ttlSeconds: 0, load: source.load });
    const gets = [cache.get('t1'), cache.get('t1')];
    expect(source.reads()).toBe(2);
    source.answer(tenant);
    await Promise.all(gets);
    await Promise.all([cache.get('t1'), source.answer(tenant)]);
    expect(source.reads()).toBe(3);
  });

  it('different tenants do not share a read', async () => {
    const source = loader();
    const cache = createTenantCache({ ttlSeconds: 30, load: source.load });
    const gets = [cache.get('t1'), cache.get('t2')];
    expect(source.reads()).toBe(2);
    source.answer(tenant);
    await Promise.all(gets);
  });
});

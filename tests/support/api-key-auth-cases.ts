import { beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../lib/api-keys/key-format';
import { createApiKey, revokeApiKey } from '../../lib/api-keys/service';
import type { Feature } from '../../lib/domain/plan';
import type { InvokeResult } from './events';
import { createRawKey, createTestTenant, db, publish, type TestTenant } from './fixtures';

/**
 * Sends an otherwise valid push for `tenant` with the given `x-api-key` (or none); `headers` replaces
 * the key header altogether.
 */
type Call = (
  apiKey: string | undefined,
  tenant: TestTenant,
  headers?: Record<string, string>,
) => Promise<InvokeResult>;

const tenantWith = (options: { active?: boolean; features?: Feature[] }) =>
  createTestTenant({ kpiTypes: ['BSC_KPI'], ...options });

/** Spec 5.2 step 1: the API key cases every push route must pass. */
export const describeApiKeyAuth = (route: string, call: Call) =>
  describe(`${route}: API key authentication (shared cases)`, () => {
    let tenant: TestTenant;
    const callWithHeaders = (headers: Record<string, string>, owner: TestTenant) =>
      call(undefined, owner, headers);
    beforeAll(async () => {
      tenant = await tenantWith({});
    });

    const expectProblem = (result: InvokeResult, status: number, type: string) => {
      expect(result.status).toBe(status);
      expect(result.headers['content-type']).toBe('application/problem+json');
      expect(result.headers['cache-control']).toBe('no-store');
      expect(result.body.type).toMatch(new RegExp(`/${type}$`));
      // RFC 9110 §11.6.1: a 401 names the scheme and where the key goes; a 403 challenges nobody.
      expect(result.headers['www-authenticate']).toBe(
        status === 401 ? 'ApiKey header="x-api-key"' : undefined,
      );
    };

    it('401 without x-api-key', async () => {
      expectProblem(await call(undefined, tenant), 401, 'invalid-api-key');
    });

    it('401 for a malformed key, a bad checksum and an unknown well-formed key', async () => {
      const valid = await createRawKey(tenant.tenant.id);
      const badChecksum = `${valid.slice(0, -1)}${valid.endsWith('a') ? 'b' : 'a'}`;
      for (const key of ['not-a-key', valid.slice(0, -3), badChecksum, generateApiKey()]) {
        expectProblem(await call(key, tenant), 401, 'invalid-api-key');
      }
    });

    it('401 for a key one character off anywhere, 10 kB long, or sent in the Authorization header', async () => {
      const valid = await createRawKey(tenant.tenant.id);
      for (const at of [0, 4, 8, valid.length - 7, valid.length - 1]) {
        const changed = valid[at] === 'A' ? 'B' : 'A';
        expectProblem(
          await call(`${valid.slice(0, at)}${changed}${valid.slice(at + 1)}`, tenant),
          401,
          'invalid-api-key',
        );
      }
      expectProblem(await call(valid + 'x'.repeat(10_240), tenant), 401, 'invalid-api-key');
      expectProblem(await call(`Bearer ${valid}`, tenant), 401, 'invalid-api-key');
      const inAuthorization = await callWithHeaders({ Authorization: `Bearer ${valid}` }, tenant);
      expectProblem(inAuthorization, 401, 'invalid-api-key');
    });

    it('403 for a revoked key, at once', async () => {
      const created = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'to revoke' });
      expect((await call(created.key, tenant)).status).toBeLessThan(300);
      await revokeApiKey(db, tenant.tenant.id, created.id, undefined, publish);
      expectProblem(await call(created.key, tenant), 403, 'api-key-revoked');
    });

    it('403 for an expired key', async () => {
      const key = await createRawKey(tenant.tenant.id, new Date(Date.now() - 1000).toISOString());
      expectProblem(await call(key, tenant), 403, 'api-key-expired');
    });

    it('403 for a key of an inactive tenant', async () => {
      const inactive = await tenantWith({ active: false });
      expectProblem(await call(await createRawKey(inactive.tenant.id), inactive), 403, 'tenant-inactive');
    });

    it('403 with its own problem type when the plan lacks kpi_push_measurement', async () => {
      const noPush = await tenantWith({ features: [] });
      const result = await call(await createRawKey(noPush.tenant.id), noPush);
      expectProblem(result, 403, 'feature-not-enabled');
      expect(result.body.detail).toMatch(/plan/i);
    });
  });

import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as pushAuthorizer } from '../../../functions/push-authorizer';
import { handler as singleHandler } from '../../../functions/push-measurement';
import { generateApiKey, hashApiKey } from '../../../lib/api-keys/key-format';
import { createApiKey, getApiKeyByHash, revokeApiKey } from '../../../lib/db/api-keys';
import { updateTenant } from '../../../lib/db/tenants';
import { createGateway } from '../../support/api-gateway';
import { createRawKey, createTestTenant, db, type TestTenant } from '../../support/fixtures';
import { measurementFor } from '../../support/push';

const PUSH_ARN =
  'arn:aws:execute-api:eu-central-1:123456789012:abc123/prod/POST/api/integrations/push/measurement';

const authorize = (headers: Record<string, string>, methodArn = PUSH_ARN) =>
  pushAuthorizer({ type: 'REQUEST', methodArn, headers } as unknown as APIGatewayRequestAuthorizerEvent);

let tenant: TestTenant;
beforeAll(async () => {
  // Enterprise: no key maximum, so every case can create the keys it needs.
  tenant = await createTestTenant({ plan: 'enterprise', kpiTypes: ['BSC_KPI'] });
  await updateTenant(db, tenant.tenant.id, { usageKey: { id: 'k1', value: 'usage-key-of-the-tenant-0001' } });
});

describe('push authorizer: happy path', () => {
  it("allows a usable key with its tenant's usage plan key and tells the handler it is active", async () => {
    const key = await createRawKey(tenant.tenant.id);
    const id = (await getApiKeyByHash(db, hashApiKey(key)))!.id;
    const answer = await authorize({ 'x-api-key': key });
    expect(answer).toEqual({
      principalId: id,
      policyDocument: {
        Version: '2012-10-17',
        Statement: [
          {
            Action: 'execute-api:Invoke',
            Effect: 'Allow',
            Resource: 'arn:aws:execute-api:eu-central-1:123456789012:abc123/prod/*/api/integrations/push/*',
          },
        ],
      },
      context: { keyId: id, tenantId: tenant.tenant.id, status: 'active' },
      usageIdentifierKey: 'usage-key-of-the-tenant-0001',
    });
  });

  it('reads the header in any spelling', async () => {
    const key = await createRawKey(tenant.tenant.id);
    expect((await authorize({ 'X-API-Key': key })).context?.status).toBe('active');
  });
});

describe('push authorizer: errors', () => {
  it('refuses a missing, malformed, mistyped or unknown key with "Unauthorized" (API Gateway: 401)', async () => {
    const valid = await createRawKey(tenant.tenant.id);
    const mistyped = `${valid.slice(0, -1)}${valid.endsWith('a') ? 'b' : 'a'}`;
    const cases: Record<string, string>[] = [
      {},
      { 'x-api-key': 'nope' },
      { 'x-api-key': mistyped },
      { 'x-api-key': generateApiKey() },
    ];
    for (const headers of cases) {
      await expect(authorize(headers)).rejects.toThrow(/^Unauthorized$/);
    }
  });

  it('refuses two different x-api-key headers as one ambiguous credential', async () => {
    const [a, b] = [await createRawKey(tenant.tenant.id), await createRawKey(tenant.tenant.id)];
    await expect(authorize({ 'x-api-key': a, 'X-Api-Key': b })).rejects.toThrow(/^Unauthorized$/);
  });

  it("lets a revoked, an expired, an inactive tenant's and a push-less tenant's key through as refused", async () => {
    const revoked = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'revoked' });
    await revokeApiKey(db, tenant.tenant.id, revoked.id);
    const expired = await createRawKey(tenant.tenant.id, new Date(Date.now() - 1000).toISOString());
    const inactive = await createTestTenant({ active: false, kpiTypes: ['BSC_KPI'] });
    const pushless = await createTestTenant({ features: [], kpiTypes: ['BSC_KPI'] });
    for (const key of [
      revoked.key,
      expired,
      await createRawKey(inactive.tenant.id),
      await createRawKey(pushless.tenant.id),
    ]) {
      const answer = await authorize({ 'x-api-key': key });
      expect(answer.context?.status).toBe('refused');
      expect(answer.policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow' });
    }
  });
});

describe('push authorizer: security', () => {
  it('allows the push routes only: the cached answer is reused for every method of the authorizer', async () => {
    const answer = await authorize({ 'x-api-key': await createRawKey(tenant.tenant.id) });
    const [statement] = answer.policyDocument.Statement as unknown as [{ Resource: string }];
    expect(statement.Resource.endsWith('/*/api/integrations/push/*')).toBe(true);
    expect(statement.Resource).not.toContain('/api/api-keys');
  });

  it('a revocation stops the very next push while API Gateway still caches the authorizer\'s "allow"', async () => {
    const gateway = createGateway({ cacheTtlMs: 300_000 });
    const key = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'cached' });
    const push = () =>
      gateway.invoke(singleHandler, {
        method: 'POST',
        path: '/api/integrations/push/measurement',
        headers: { 'x-api-key': key.key },
        body: measurementFor(tenant.kpis[0]!, { periodStart: '2019-01-01', periodEnd: '2019-01-31' }),
      });
    expect((await push()).status).toBe(201);
    await revokeApiKey(db, tenant.tenant.id, key.id);
    const after = await push();
    expect(gateway.state.authorizerRuns).toBe(1); // the second request was not re-authorized
    expect(after.status).toBe(403);
    expect(after.body.type).toMatch(/\/api-key-revoked$/);
  });

  it('none of the pushes that start after a revocation answered is accepted, with many in flight', async () => {
    const gateway = createGateway({ cacheTtlMs: 300_000 });
    const key = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'in flight' });
    const push = (i: number) =>
      gateway.invoke(singleHandler, {
        method: 'POST',
        path: '/api/integrations/push/measurement',
        headers: { 'x-api-key': key.key },
        body: measurementFor(tenant.kpis[0]!, {
          actual: i,
          periodStart: '2018-01-01',
          periodEnd: '2018-01-01',
        }),
      });
    expect((await push(-1)).status).toBe(201); // the authorizer's "allow" is cached from here on
    const inFlight = Array.from({ length: 20 }, (_, i) => push(i));
    await revokeApiKey(db, tenant.tenant.id, key.id);
    const after = await Promise.all(Array.from({ length: 20 }, (_, i) => push(100 + i)));
    expect(after.map((r) => r.status)).toEqual(Array(20).fill(403));
    // Those already in flight may have been written before the revocation, or refused: nothing else.
    for (const result of await Promise.all(inFlight)) expect([200, 403]).toContain(result.status);
    expect(gateway.state.authorizerRuns).toBe(1);
  });

  it('the answer never contains the raw key or its hash', async () => {
    const key = await createRawKey(tenant.tenant.id);
    const text = JSON.stringify(await authorize({ 'x-api-key': key }));
    expect(text).not.toContain(key);
    expect(text).not.toContain(hashApiKey(key));
  });

  it('a tenant without a usage plan key (the local stack) is allowed without a usage identifier', async () => {
    const local = await createTestTenant({ kpiTypes: ['BSC_KPI'] });
    const key = await createRawKey(local.tenant.id);
    const answer = await authorize({ 'x-api-key': key });
    expect(answer.usageIdentifierKey).toBeUndefined();
    expect(answer).toMatchObject({
      principalId: (await getApiKeyByHash(db, hashApiKey(key)))!.id,
      context: { tenantId: local.tenant.id, status: 'active' },
    });
  });
});

import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { handler as checkHandler } from '../../../functions/check-push-key';
import { handler as pushAuthorizer } from '../../../functions/push-authorizer';
import { handler as singleHandler } from '../../../functions/push-measurement';
import { generateApiKey, hashApiKey } from '../../../lib/api-keys/key-format';
import { createApiKey, revokeApiKey } from '../../../lib/api-keys/service';
import { dayOf, usageDays } from '../../../lib/db/api-key-usage';
import { getApiKeyByHash } from '../../../lib/db/api-keys';
import { updateTenant } from '../../../lib/db/tenants';
import { createGateway } from '../../support/api-gateway';
import { invoke } from '../../support/events';
import { createRawKey, createTestTenant, db, publish, type TestTenant } from '../../support/fixtures';
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

  it("denies a revoked, an expired and an inactive tenant's key on every push route, with no usage plan key", async () => {
    const revoked = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'revoked' });
    await revokeApiKey(db, tenant.tenant.id, revoked.id, undefined, publish);
    const expired = await createRawKey(tenant.tenant.id, new Date(Date.now() - 1000).toISOString());
    const inactive = await createTestTenant({ active: false, kpiTypes: ['BSC_KPI'] });
    await updateTenant(db, inactive.tenant.id, {
      usageKey: { id: 'k2', value: 'usage-key-of-inactive-0001' },
    });
    for (const [key, type] of [
      [revoked.key, 'api-key-revoked'],
      [expired, 'api-key-expired'],
      [await createRawKey(inactive.tenant.id), 'tenant-inactive'],
    ] as const) {
      const answer = await authorize({ 'x-api-key': key });
      expect(answer.context).toMatchObject({
        status: 'refused',
        problemType: expect.stringMatching(new RegExp(`/${type}$`)),
      });
      expect(answer.policyDocument.Statement).toEqual([
        expect.objectContaining({
          Effect: 'Deny',
          Resource: expect.stringMatching(/\/\*\/api\/integrations\/push\/\*$/),
        }),
      ]);
      expect(answer).not.toHaveProperty('usageIdentifierKey');
    }
  });

  it("lets a push-less tenant's key reach the key check only, metered by its plan", async () => {
    const pushless = await createTestTenant({ features: [], kpiTypes: ['BSC_KPI'] });
    await updateTenant(db, pushless.tenant.id, { usageKey: { id: 'k3', value: 'usage-key-of-pushless-01' } });
    const answer = await authorize({ 'x-api-key': await createRawKey(pushless.tenant.id) });
    expect(answer.context).toMatchObject({
      status: 'refused',
      problemType: expect.stringMatching(/\/feature-not-enabled$/),
    });
    expect(answer.policyDocument.Statement.map((s) => (s as { Effect: string }).Effect)).toEqual([
      'Allow',
      'Deny',
    ]);
    expect(answer.usageIdentifierKey).toBe('usage-key-of-pushless-01');
  });
});

describe('push authorizer: refused keys stop at the edge', () => {
  it('the authorizer denies a revoked key: 403 with the handler’s problem, no Lambda run, nothing charged to the plan', async () => {
    const gateway = createGateway({ cacheTtlMs: 300_000 });
    const key = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'leaked' });
    await revokeApiKey(db, tenant.tenant.id, key.id, undefined, publish);
    const request = {
      method: 'POST',
      path: '/api/integrations/push/measurement',
      headers: { 'x-api-key': key.key },
      body: measurementFor(tenant.kpis[0]!),
    };
    const edge = await gateway.invoke(singleHandler, request);
    const handler = await invoke(singleHandler, request);
    expect(edge.status).toBe(403);
    expect(edge.headers['content-type']).toBe('application/problem+json');
    const { requestId: _edge, ...edgeProblem } = edge.body;
    const { requestId: _handler, ...handlerProblem } = handler.body;
    expect(edgeProblem).toEqual(handlerProblem);
    // Denied by the policy: the push function never ran, and no usage plan key was presented.
    expect(gateway.state.denied).toBe(1);
    expect(gateway.state.usageKeys).toEqual([]);
    // Cached like an allow: the following requests are denied without running the authorizer again.
    expect((await gateway.invoke(singleHandler, request)).status).toBe(403);
    expect(gateway.state.authorizerRuns).toBe(1);
    expect(gateway.state.usageKeys).toEqual([]);
  });

  it("a push-less tenant's key: the pushes are denied at the edge with feature-not-enabled, the key check answers", async () => {
    const pushless = await createTestTenant({ features: [], kpiTypes: ['BSC_KPI'] });
    const key = await createRawKey(pushless.tenant.id);
    const gateway = createGateway();
    const push = await gateway.invoke(singleHandler, {
      method: 'POST',
      path: '/api/integrations/push/measurement',
      headers: { 'x-api-key': key },
      body: measurementFor(pushless.kpis[0]!),
    });
    expect(push.status).toBe(403);
    expect(push.body).toMatchObject({
      type: expect.stringMatching(/\/feature-not-enabled$/),
      feature: 'kpi_push_measurement',
    });
    const check = await gateway.invoke(checkHandler, {
      method: 'GET',
      path: '/api/integrations/push/key',
      headers: { 'x-api-key': key },
    });
    expect(check.status).toBe(200);
    expect(check.body.organization.pushEnabled).toBe(false);
  });
});

describe('push authorizer: refusals in the key’s usage', () => {
  const refusedToday = async (rawKey: string) => {
    const today = dayOf(Date.now());
    const [day] = await usageDays(db, hashApiKey(rawKey), today, today);
    return day?.refused;
  };
  const push = (key: string) => ({
    method: 'POST',
    path: '/api/integrations/push/measurement',
    headers: { 'x-api-key': key, 'User-Agent': 'nightly-cron/2.1' },
    body: measurementFor(tenant.kpis[0]!),
  });

  it('a revoked key is counted as an authentication refusal once per evaluation, not per cached answer', async () => {
    const gateway = createGateway({ cacheTtlMs: 300_000 });
    const key = await createApiKey(db, { tenantId: tenant.tenant.id, name: 'revoked and still called' });
    await revokeApiKey(db, tenant.tenant.id, key.id, undefined, publish);
    for (let i = 0; i < 3; i++) expect((await gateway.invoke(singleHandler, push(key.key))).status).toBe(403);
    expect(gateway.state.authorizerRuns).toBe(1);
    expect(await refusedToday(key.key)).toEqual({
      authentication: 1,
      source: 0,
      scope: 0,
      rateLimit: 0,
      validation: 0,
      featureOff: 0,
    });
    const [day] = await usageDays(db, hashApiKey(key.key), dayOf(Date.now()), dayOf(Date.now()));
    expect(day).toMatchObject({ requests: 0, accepted: 0, lastUserAgent: 'nightly-cron/2.1' });
  });

  it("a push-less tenant's key: a push is a feature-off refusal, the key check is not a refusal", async () => {
    const pushless = await createTestTenant({ features: [], kpiTypes: ['BSC_KPI'] });
    const key = await createRawKey(pushless.tenant.id);
    const check = await createGateway().invoke(checkHandler, {
      method: 'GET',
      path: '/api/integrations/push/key',
      headers: { 'x-api-key': key },
    });
    expect(check.status).toBe(200);
    expect(await refusedToday(key)).toBeUndefined();
    expect((await createGateway().invoke(singleHandler, push(key))).status).toBe(403);
    expect(await refusedToday(key)).toMatchObject({ featureOff: 1, authentication: 0 });
  });

  it('an unknown key writes nothing: a flood of forged keys costs no write', async () => {
    const gateway = createGateway();
    const forged = generateApiKey();
    expect((await gateway.invoke(singleHandler, push(forged))).status).toBe(401);
    expect(await refusedToday(forged)).toBeUndefined();
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
    await revokeApiKey(db, tenant.tenant.id, key.id, undefined, publish);
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
          periodEnd: '2018-01-31',
        }),
      });
    expect((await push(-1)).status).toBe(201); // the authorizer's "allow" is cached from here on
    const inFlight = Array.from({ length: 20 }, (_, i) => push(i));
    await revokeApiKey(db, tenant.tenant.id, key.id, undefined, publish);
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

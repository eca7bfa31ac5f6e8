import { beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import { handler as createKeyHandler } from '../../../functions/create-api-key';
import { handler as listKpisHandler } from '../../../functions/list-kpis';
import { handler as loginHandler } from '../../../functions/login';
import { handler as pushHandler } from '../../../functions/push-measurement';
import { handler as revokeKeyHandler } from '../../../functions/revoke-api-key';
import { handler as rollKeyHandler } from '../../../functions/roll-api-key';
import { login } from '../../../lib/auth/sign-in';
import { measurementInputSchema } from '../../../lib/push/measurement-schema';
import { pushMeasurements } from '../../../lib/push/push-service';
import { pushDeps } from '../../../lib/runtime';
import { apiEvent, type EventInput, type Handler, lambdaContext } from '../../support/events';
import { bearer, createRawKey, createTestTenant, db, type TestTenant, tokens } from '../../support/fixtures';
import { captureOutput, metricsOf } from '../../support/output';
import { measurementFor } from '../../support/push';

/**
 * What a request leaves behind for operators. Every response carries X-Request-Id, the id
 * API Gateway gave the request, which is also the problem's `requestId` and every log line's
 * `correlation_id`; one access line per request; audit lines; EMF metrics; and never a secret.
 */
const call = async (handler: unknown, input: EventInput) => {
  const event = apiEvent(input);
  const { result, lines } = await captureOutput(() => (handler as Handler)(event, lambdaContext()));
  const headers = Object.fromEntries(
    Object.entries(result.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]),
  );
  return {
    requestId: event.requestContext.requestId,
    status: result.statusCode,
    headers,
    body: result.body ? JSON.parse(result.body) : undefined,
    lines,
    output: JSON.stringify(lines),
  };
};

let tenant: TestTenant;
let apiKey: string;
beforeAll(async () => {
  tenant = await createTestTenant({ plan: 'business' });
  apiKey = await createRawKey(tenant.tenant.id);
});

const push = (key: string | undefined, body: unknown) =>
  call(pushHandler, {
    method: 'POST',
    path: '/api/integrations/push/measurement',
    resource: '/api/integrations/push/measurement',
    headers: key === undefined ? {} : { 'x-api-key': key },
    body,
  });

describe('X-Request-Id and the access line', () => {
  it('answers with the API Gateway request id, which every log line of the request carries', async () => {
    const result = await push(apiKey, measurementFor(tenant.kpis[0]!));
    expect(result.status).toBe(201);
    expect(result.headers['x-request-id']).toBe(result.requestId);
    expect(result.lines.filter((l) => !l._aws).length).toBeGreaterThan(0);
    for (const line of result.lines.filter((l) => !l._aws))
      expect(line.correlation_id).toBe(result.requestId);
  });

  it('writes one access line with route, status, latency, tenant and key prefix, and Lambda context', async () => {
    const result = await push(apiKey, measurementFor(tenant.kpis[0]!));
    const access = result.lines.filter((l) => l.message === 'request');
    expect(access).toHaveLength(1);
    expect(access[0]).toMatchObject({
      level: 'INFO',
      service: 'strategy-service',
      route: 'POST /api/integrations/push/measurement',
      status: 200,
      tenantId: tenant.tenant.id,
      keyPrefix: apiKey.slice(0, 8),
      function_name: 'test',
      cold_start: expect.any(Boolean),
      function_request_id: expect.any(String),
    });
    expect(access[0].latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('puts the same id into a problem body and its header, and the access line carries the 4xx status', async () => {
    const result = await push('skm_not-a-key', measurementFor(tenant.kpis[0]!));
    expect(result.status).toBe(401);
    expect(result.body.requestId).toBe(result.requestId);
    expect(result.headers['x-request-id']).toBe(result.requestId);
    expect(result.lines.find((l) => l.message === 'request')).toMatchObject({ status: 401 });
  });

  it('does not carry one request’s tenant into the next request’s lines', async () => {
    await push(apiKey, measurementFor(tenant.kpis[0]!));
    const next = await push(undefined, measurementFor(tenant.kpis[0]!));
    for (const line of next.lines) expect(line.tenantId).toBeUndefined();
  });

  it('names the caller on JWT endpoints', async () => {
    const user = tenant.users.VIEWER;
    const result = await call(listKpisHandler, { path: '/api/kpis', headers: bearer(user.token) });
    expect(result.status).toBe(200);
    expect(result.headers['x-request-id']).toBe(result.requestId);
    expect(result.lines.find((l) => l.message === 'request')).toMatchObject({
      route: 'GET /api/kpis',
      status: 200,
      tenantId: tenant.tenant.id,
      userId: user.id,
    });
  });
});

describe('metrics (EMF)', () => {
  it('counts pushed measurements by plan', async () => {
    const result = await push(apiKey, measurementFor(tenant.kpis[2]!));
    expect(metricsOf(result.lines)).toEqual([
      {
        name: 'MeasurementsPushed',
        value: 1,
        namespace: 'StrategyService',
        dimensions: { service: 'strategy-service', plan: 'business' },
      },
    ]);
  });

  it('counts a refused push by reason, with the plan once the key is known', async () => {
    const unknown = await push('skm_not-a-key', {});
    expect(metricsOf(unknown.lines)).toEqual([
      expect.objectContaining({
        name: 'PushRejected',
        value: 1,
        dimensions: { service: 'strategy-service', plan: 'unknown', reason: 'invalid-api-key' },
      }),
    ]);
    const invalid = await push(apiKey, { kpiId: 'nope' });
    expect(metricsOf(invalid.lines)).toEqual([
      expect.objectContaining({
        name: 'PushRejected',
        dimensions: { service: 'strategy-service', plan: 'business', reason: 'validation-failed' },
      }),
    ]);
  });

  it('counts a rate-limited push as PushRejected and RateLimited, by plan', async () => {
    const strict = {
      ...pushDeps,
      rateLimits: { windowSeconds: 60, perPlan: { free: 1, business: 1, enterprise: 1 } },
    };
    const key = await createRawKey(tenant.tenant.id);
    // As the endpoint reads it: the period defaults to the current month.
    const measurement = z.parse(measurementInputSchema, measurementFor(tenant.kpis[3]!));
    const request = { apiKey: key, input: Promise.resolve({ measurements: [measurement] }) };
    await pushMeasurements(strict, request);
    const { lines } = await captureOutput(() => pushMeasurements(strict, request).catch((e: Error) => e));
    expect(metricsOf(lines).map((m) => [m.name, m.dimensions])).toEqual([
      ['PushRejected', { service: 'strategy-service', plan: 'business', reason: 'rate-limit-exceeded' }],
      ['RateLimited', { service: 'strategy-service', plan: 'business' }],
    ]);
  });

  it('counts failed logins by plan and reason', async () => {
    const user = tenant.users.EDITOR;
    const wrong = await call(loginHandler, {
      method: 'POST',
      path: '/api/auth/login',
      body: { email: user.email, password: 'wrong-password' },
    });
    expect(wrong.status).toBe(401);
    expect(metricsOf(wrong.lines)).toEqual([
      expect.objectContaining({
        name: 'LoginFailed',
        dimensions: { service: 'strategy-service', plan: 'business', reason: 'invalid-credentials' },
      }),
    ]);
    const unknown = await call(loginHandler, {
      method: 'POST',
      path: '/api/auth/login',
      body: { email: 'nobody@example.test', password: 'x' },
    });
    expect(metricsOf(unknown.lines)[0]?.dimensions.plan).toBe('unknown');
  });
});

describe('audit lines', () => {
  it('records a login success and a failure with reason, never the password or a token', async () => {
    const user = tenant.users.ADMIN;
    const ok = await call(loginHandler, {
      method: 'POST',
      path: '/api/auth/login',
      body: { email: user.email, password: user.password },
    });
    expect(ok.status).toBe(200);
    expect(ok.lines.filter((l) => l.audit)).toEqual([
      expect.objectContaining({
        message: 'audit',
        audit: 'login.succeeded',
        userId: user.id,
        tenantId: tenant.tenant.id,
      }),
    ]);
    expect(ok.output).not.toContain(user.password);
    expect(ok.output).not.toContain(ok.body.token);
    expect(ok.output).not.toContain(ok.body.refreshToken);
    const failed = await call(loginHandler, {
      method: 'POST',
      path: '/api/auth/login',
      body: { email: user.email, password: 'not-the-password-1' },
    });
    expect(failed.lines.filter((l) => l.audit)).toEqual([
      expect.objectContaining({
        audit: 'login.failed',
        reason: 'invalid-credentials',
        email: user.email,
        userId: user.id,
      }),
    ]);
    expect(failed.output).not.toContain('not-the-password-1');
  });

  it('records the failure that locks an e-mail for a source once, and the refusals while locked', async () => {
    const email = `lock-${Date.now()}@example.test`;
    const deps = {
      db,
      tokens,
      lockout: {
        windowSeconds: 900,
        maxFailures: 2,
        maxFailuresPerSource: 100,
        emailCeiling: 1000,
        newDeviceAttemptsPerMinute: 10,
        freeFailures: 2,
      },
    };
    const attempt = () => captureOutput(() => login(deps, { email, password: 'x' }).catch((e: Error) => e));
    const audits = async () => (await attempt()).lines.filter((l) => l.audit).map((l) => [l.audit, l.reason]);
    expect(await audits()).toEqual([['login.failed', 'invalid-credentials']]);
    expect(await audits()).toEqual([
      ['login.locked', undefined],
      ['login.failed', 'invalid-credentials'],
    ]);
    expect(await audits()).toEqual([['login.failed', 'too-many-login-attempts']]);
  });

  it('records key creation and revocation with the prefix, never the raw key', async () => {
    const admin = tenant.users.ADMIN;
    const created = await call(createKeyHandler, {
      method: 'POST',
      path: '/api/api-keys',
      headers: bearer(admin.token),
      body: { name: 'audit me' },
    });
    expect(created.status).toBe(201);
    expect(created.lines.filter((l) => l.audit)).toEqual([
      expect.objectContaining({
        audit: 'api_key.created',
        keyId: created.body.id,
        keyPrefix: created.body.prefix,
        tenantId: tenant.tenant.id,
        userId: admin.id,
      }),
    ]);
    expect(created.output).not.toContain(created.body.key);
    expect(created.output).not.toContain(admin.token);
    const revoked = await call(revokeKeyHandler, {
      method: 'DELETE',
      path: `/api/api-keys/${created.body.id}`,
      pathParameters: { id: created.body.id },
      headers: bearer(admin.token),
    });
    expect(revoked.status).toBe(200);
    expect(revoked.headers['x-request-id']).toBe(revoked.requestId);
    expect(revoked.lines.filter((l) => l.audit)).toEqual([
      expect.objectContaining({
        audit: 'api_key.revoked',
        keyId: created.body.id,
        tenantId: tenant.tenant.id,
        userId: admin.id,
      }),
    ]);
  });

  it('records a roll with both keys’ ids and prefixes and the old key’s new end, never a raw key', async () => {
    const admin = tenant.users.ADMIN;
    const created = await call(createKeyHandler, {
      method: 'POST',
      path: '/api/api-keys',
      headers: bearer(admin.token),
      body: { name: 'roll me' },
    });
    const rolled = await call(rollKeyHandler, {
      method: 'POST',
      path: `/api/api-keys/${created.body.id}/roll`,
      pathParameters: { id: created.body.id },
      headers: bearer(admin.token),
      body: { gracePeriodHours: 1 },
    });
    expect(rolled.status).toBe(201);
    expect(rolled.lines.filter((l) => l.audit)).toEqual([
      expect.objectContaining({
        audit: 'api_key.rolled',
        keyId: created.body.id,
        keyPrefix: created.body.prefix,
        newKeyId: rolled.body.id,
        newKeyPrefix: rolled.body.prefix,
        oldKeyExpiresAt: rolled.body.previous.expiresAt,
        tenantId: tenant.tenant.id,
        userId: admin.id,
      }),
    ]);
    expect(rolled.output).not.toContain(rolled.body.key);
    expect(rolled.output).not.toContain(created.body.key);
  });
});

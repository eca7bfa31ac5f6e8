import { describe, expect, it } from 'vitest';
import { handler as singleHandler } from '../../../functions/push-measurement';
import gatewayResponses from '../../../infra/gateway-responses.json';
import { generateApiKey } from '../../../lib/api-keys/key-format';
import { createApiKey, revokeApiKey } from '../../../lib/api-keys/service';
import type { ApiKey } from '../../../lib/domain/api-key';
import { AppError, errorCatalog, PROBLEM_TYPE_BASE } from '../../../lib/errors';
import { authorizerResult } from '../../../lib/http/authorizer';
import { problemResponse } from '../../../lib/http/middleware';
import { JSON_SECURITY_HEADERS, STRICT_TRANSPORT_SECURITY } from '../../../lib/http/responses';
import { createGateway, renderGatewayResponse } from '../../support/api-gateway';
import { invoke } from '../../support/events';
import { createRawKey, createTestTenant, db, publish } from '../../support/fixtures';
import { measurementFor } from '../../support/push';

/**
 * "A push answered by the authorizer has the same status and problem type as one answered by
 * the handler". API Gateway renders infra/gateway-responses.json; these tests render it the same way
 * (only `$context.requestId` is substituted) and compare it with the handler's problem documents.
 */
const bySlug = new Map<string, { status: number; title: string }>(
  Object.values(errorCatalog).map((entry) => [entry.slug, entry]),
);

/** The context of the push authorizer's answer for a refused key (lib/http/authorizer.ts). */
const deniedContext = () =>
  authorizerResult(
    {
      key: { id: 'k', tenantId: 't' } as ApiKey,
      keyHash: 'h',
      tenant: undefined,
      refusal: new AppError('API_KEY_REVOKED', 'API key skm_abcd… has been revoked.'),
    },
    'arn:aws:execute-api:eu-central-1:1:api/prod/POST/api/integrations/push/measurement',
  ).context ?? {};

/** The responses of one refusal each (a status of their own), and API Gateway's catch-alls. */
const DEFAULTS = ['DEFAULT_4XX', 'DEFAULT_5XX'];
const ofOneRefusal = Object.entries(gatewayResponses).filter(
  ([, resource]) => !DEFAULTS.includes(resource.Properties.ResponseType),
);

/** The headers every answer of the service carries, the functions' and API Gateway's alike. */
const expectSecurityHeaders = (headers: Record<string, string>, id: string) => {
  expect(headers['cache-control'], id).toBe('no-store');
  expect(headers['strict-transport-security'], id).toBe(STRICT_TRANSPORT_SECURITY);
  for (const [name, value] of Object.entries(JSON_SECURITY_HEADERS)) {
    expect(headers[name.toLowerCase()], `${id} ${name}`).toBe(value);
  }
};

describe('gateway responses: happy path', () => {
  it('each is a problem document of the catalog: type, title and status as lib/errors.ts has them', () => {
    for (const [id, resource] of ofOneRefusal) {
      const rendered = renderGatewayResponse(resource.Properties.ResponseType, 'req-1', deniedContext());
      expect(rendered.headers['content-type'], id).toBe('application/problem+json');
      // The same browser defences as every JSON answer of the functions (lib/http/responses.ts).
      expectSecurityHeaders(rendered.headers, id);
      const slug = String(rendered.body.type).slice(PROBLEM_TYPE_BASE.length);
      const entry = bySlug.get(slug);
      expect(entry, id).toBeDefined();
      expect(rendered.body, id).toMatchObject({
        title: entry!.title,
        status: entry!.status,
        requestId: 'req-1',
      });
      expect(rendered.status, id).toBe(entry!.status);
    }
  });

  it('covers the refusals API Gateway makes on its own', () => {
    expect(Object.values(gatewayResponses).map((r) => r.Properties.ResponseType)).toEqual(
      expect.arrayContaining([
        'THROTTLED',
        'QUOTA_EXCEEDED',
        'UNAUTHORIZED',
        'ACCESS_DENIED',
        'AUTHORIZER_FAILURE',
        // An unknown route: API Gateway's MISSING_AUTHENTICATION_TOKEN (a 403 of its own otherwise).
        'MISSING_AUTHENTICATION_TOKEN',
        'RESOURCE_NOT_FOUND',
        // Everything else API Gateway answers itself: its 413, 502 and 504, a WAF block (WAF_FILTERED).
        ...DEFAULTS,
      ]),
    );
  });

  it("renders API Gateway's other answers (a body over its limit, a failed or slow Lambda, a WAF block) with their status and message and the same security headers", () => {
    const cases = [
      ['DEFAULT_4XX', { statusCode: 413, message: 'Request Too Long' }],
      ['DEFAULT_4XX', { statusCode: 403, message: 'Forbidden' }],
      ['DEFAULT_5XX', { statusCode: 502, message: 'Internal server error' }],
      ['DEFAULT_5XX', { statusCode: 504, message: 'Endpoint request timed out' }],
    ] as const;
    for (const [type, error] of cases) {
      const id = `${type} ${error.statusCode}`;
      const rendered = renderGatewayResponse(type, 'req-2', {}, error);
      expect(rendered.status, id).toBe(error.statusCode);
      expect(rendered.headers['content-type'], id).toBe('application/problem+json');
      expectSecurityHeaders(rendered.headers, id);
      // RFC 9457 §4.2.1: no type of the catalog fits every such answer, so it is about:blank, titled
      // with API Gateway's message.
      expect(rendered.body, id).toEqual({ type: 'about:blank', title: error.message, requestId: 'req-2' });
    }
    for (const type of DEFAULTS) {
      const resource = Object.values(gatewayResponses).find((r) => r.Properties.ResponseType === type);
      expect(resource?.Properties, type).not.toHaveProperty('StatusCode');
    }
  });
});

describe('gateway responses: the same answers as the handler', () => {
  const sameProblem = (
    edge: { status: number; body: any; headers: Record<string, string> },
    handler: typeof edge,
  ) => {
    expect(edge.status).toBe(handler.status);
    expect(edge.body.type).toBe(handler.body.type);
    expect(edge.body.title).toBe(handler.body.title);
    expect(edge.headers['content-type']).toBe(handler.headers['content-type']);
  };
  const handlerAnswer = (error: AppError) => {
    const response = problemResponse(error, 'req');
    return {
      status: response.statusCode,
      body: JSON.parse(response.body),
      headers: Object.fromEntries(
        Object.entries(response.headers ?? {}).map(([k, v]) => [k.toLowerCase(), String(v)]),
      ),
    };
  };

  it('401 for an unknown key: the authorizer refuses it as the handler alone would, WWW-Authenticate included', async () => {
    const tenant = await createTestTenant({ kpiTypes: ['BSC_KPI'] });
    const request = {
      method: 'POST',
      path: '/api/integrations/push/measurement',
      headers: { 'x-api-key': generateApiKey() },
      body: measurementFor(tenant.kpis[0]!),
    };
    const edge = await createGateway().invoke(singleHandler, request);
    const handler = await invoke(singleHandler, request);
    sameProblem(edge, handler);
    expect(edge.headers['www-authenticate']).toBe(handler.headers['www-authenticate']);
    const missing = await createGateway().invoke(singleHandler, { ...request, headers: {} });
    sameProblem(missing, await invoke(singleHandler, { ...request, headers: {} }));
  });

  it('403 for a revoked, expired, inactive or push-less key: denied at the edge with the problem document the handler answers', async () => {
    const active = await createTestTenant({ plan: 'enterprise', kpiTypes: ['BSC_KPI'] });
    const inactive = await createTestTenant({ active: false, kpiTypes: ['BSC_KPI'] });
    const pushless = await createTestTenant({ features: [], kpiTypes: ['BSC_KPI'] });
    const revoked = await createApiKey(db, { tenantId: active.tenant.id, name: 'revoked' });
    await revokeApiKey(db, active.tenant.id, revoked.id, undefined, publish);
    const cases = [
      [revoked.key, active],
      [await createRawKey(active.tenant.id, new Date(Date.now() - 1000).toISOString()), active],
      [await createRawKey(inactive.tenant.id), inactive],
      [await createRawKey(pushless.tenant.id), pushless],
    ] as const;
    for (const [key, owner] of cases) {
      const request = {
        method: 'POST',
        path: '/api/integrations/push/measurement',
        headers: { 'x-api-key': key },
        body: measurementFor(owner.kpis[0]!),
      };
      const gateway = createGateway();
      const edge = await gateway.invoke(singleHandler, request);
      const handler = await invoke(singleHandler, request);
      expect(gateway.state.denied).toBe(1);
      sameProblem(edge, handler);
      const { requestId: _e, ...edgeBody } = edge.body;
      const { requestId: _h, ...handlerBody } = handler.body;
      expect(edgeBody).toEqual(handlerBody);
    }
  });

  it('403 with every extension member of the refusal, as the handler answers them', () => {
    const refusal = new AppError('FEATURE_NOT_ENABLED', 'No "push" \\ here.', {
      extensions: { feature: 'kpi_push_measurement', plan: 'free', sourceIp: null },
    });
    const context =
      authorizerResult(
        { key: { id: 'k', tenantId: 't' } as ApiKey, keyHash: 'h', tenant: undefined, refusal },
        'arn:aws:execute-api:eu-central-1:1:api/prod/POST/api/integrations/push/measurement',
      ).context ?? {};
    const rendered = renderGatewayResponse('ACCESS_DENIED', 'req-2', context);
    const { requestId: _, ...handlerAnswer } = JSON.parse(problemResponse(refusal, 'req-2').body);
    expect(rendered.body).toEqual({ ...handlerAnswer, requestId: 'req-2' });
  });

  it('429 when the usage plan throttles: the rate-limit problem with Retry-After', () => {
    const edge = renderGatewayResponse('THROTTLED');
    sameProblem(edge, handlerAnswer(new AppError('RATE_LIMIT_EXCEEDED', 'x')));
    expect(Number(edge.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('503 with Retry-After when the authorizer fails (DynamoDB unavailable), as the handler answers', () => {
    const edge = renderGatewayResponse('AUTHORIZER_FAILURE');
    sameProblem(edge, handlerAnswer(new AppError('SERVICE_UNAVAILABLE', 'x')));
    expect(edge.headers['retry-after']).toBe('1');
  });

  it('404 not-found for an unknown route or method, as the handlers answer an unknown id', () => {
    for (const type of ['MISSING_AUTHENTICATION_TOKEN', 'RESOURCE_NOT_FOUND']) {
      sameProblem(renderGatewayResponse(type), handlerAnswer(new AppError('NOT_FOUND', 'x')));
    }
  });

  it('429 with its own type when the monthly quota is used up', () => {
    const edge = renderGatewayResponse('QUOTA_EXCEEDED');
    expect(edge.body.type).toBe(`${PROBLEM_TYPE_BASE}quota-exceeded`);
    expect(Number(edge.headers['retry-after'])).toBeGreaterThan(0);
  });
});

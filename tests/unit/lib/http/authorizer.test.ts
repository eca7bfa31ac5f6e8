import { describe, expect, it } from 'vitest';
import type { Tenant } from '../../../../lib/db/tenants';
import type { ApiKey } from '../../../../lib/domain/api-key';
import { AppError, errorCatalog, problemType } from '../../../../lib/errors';
import { apiKeyHeader, authorizerResult, authorizerVerdict } from '../../../../lib/http/authorizer';
import { refusalOf } from '../../../support/refusal';

const withAuthorizer = (authorizer: unknown) => ({ requestContext: { authorizer } as never });

describe('the x-api-key header', () => {
  it('sent twice with different values is an ambiguous credential: 401 invalid-api-key', () => {
    const event = { headers: { 'x-api-key': 'a' }, multiValueHeaders: { 'X-Api-Key': ['b'] } };
    expect(refusalOf(() => apiKeyHeader(event))).toMatchObject({
      code: 'INVALID_API_KEY',
      message: 'Send exactly one x-api-key header.',
      headers: { 'WWW-Authenticate': 'ApiKey header="x-api-key"' },
    });
    expect(apiKeyHeader({ headers: { 'X-API-KEY': 'a' }, multiValueHeaders: { 'x-api-key': ['a'] } })).toBe(
      'a',
    );
  });
});

describe("the authorizer's verdict as the handler reads it", () => {
  it('is active only when the authorizer said so, and refused for any other status', () => {
    expect(authorizerVerdict(withAuthorizer({ keyId: 'k1', status: 'active' }))).toEqual({
      keyId: 'k1',
      status: 'active',
    });
    for (const status of ['refused', 'ACTIVE', undefined, true]) {
      expect(authorizerVerdict(withAuthorizer({ keyId: 'k1', status }))).toEqual({
        keyId: 'k1',
        status: 'refused',
      });
    }
  });

  it('is absent without an authorizer context or without a key id (a direct invocation)', () => {
    expect(authorizerVerdict({ requestContext: {} as never })).toBeUndefined();
    expect(authorizerVerdict(withAuthorizer(null))).toBeUndefined();
    expect(authorizerVerdict(withAuthorizer({ status: 'active' }))).toBeUndefined();
    expect(authorizerVerdict(withAuthorizer({ keyId: 7, status: 'active' }))).toBeUndefined();
    expect(authorizerVerdict({} as never)).toBeUndefined();
  });
});

describe("the authorizer's answer", () => {
  const key = { id: 'key-1', tenantId: 'tenant-1' } as ApiKey;
  const tenant = { id: 'tenant-1', usageKey: { id: 'gw-id', value: 'gw-value' } } as Tenant;
  const ARN = 'arn:aws:execute-api:eu-west-1:1:api/prod/POST/api/integrations/push/measurement';
  const PUSH_ROUTES = 'arn:aws:execute-api:eu-west-1:1:api/prod/*/api/integrations/push/*';

  it("allows a usable key on every push route with the tenant's API Gateway key, so its usage plan applies", () => {
    const answer = authorizerResult({ key, keyHash: 'h', tenant, refusal: undefined }, ARN);
    expect(answer).toEqual({
      principalId: 'key-1',
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: PUSH_ROUTES }],
      },
      context: { keyId: 'key-1', tenantId: 'tenant-1', status: 'active' },
      usageIdentifierKey: 'gw-value',
    });
  });

  it('denies a refused key on every push route, charges no usage plan, and carries the problem the handler would answer', () => {
    for (const code of ['API_KEY_REVOKED', 'API_KEY_EXPIRED', 'TENANT_INACTIVE'] as const) {
      const refusal = new AppError(code, 'API key skm_abcd… says "no" \\ here.');
      const answer = authorizerResult({ key, keyHash: 'h', tenant, refusal }, ARN);
      expect(answer).not.toHaveProperty('usageIdentifierKey');
      expect(answer.policyDocument.Statement).toEqual([
        { Action: 'execute-api:Invoke', Effect: 'Deny', Resource: PUSH_ROUTES },
      ]);
      expect(answer.context).toEqual({
        keyId: 'key-1',
        tenantId: 'tenant-1',
        status: 'refused',
        problemType: problemType(code),
        problemTitle: errorCatalog[code].title,
        // Escaped for the JSON string of the gateway response it is put into.
        problemDetail: 'API key skm_abcd… says \\"no\\" \\\\ here.',
        problemExtensions: '',
      });
    }
  });

  it('lets a key whose plan lacks push check itself, metered by its plan, and denies it every push', () => {
    const refusal = new AppError('FEATURE_NOT_ENABLED', 'No push.', {
      extensions: { feature: 'kpi_push_measurement' },
    });
    const answer = authorizerResult({ key, keyHash: 'h', tenant, refusal }, ARN);
    expect(answer.usageIdentifierKey).toBe('gw-value');
    expect(answer.policyDocument.Statement).toEqual([
      {
        Action: 'execute-api:Invoke',
        Effect: 'Allow',
        Resource: 'arn:aws:execute-api:eu-west-1:1:api/prod/GET/api/integrations/push/key',
      },
      {
        Action: 'execute-api:Invoke',
        Effect: 'Deny',
        Resource: 'arn:aws:execute-api:eu-west-1:1:api/prod/POST/api/integrations/push/*',
      },
    ]);
    expect(answer.context).toMatchObject({
      status: 'refused',
      problemType: problemType('FEATURE_NOT_ENABLED'),
      problemExtensions: ',"feature":"kpi_push_measurement"',
    });
  });

  it('names no usage plan key when the tenant has none (the local stack) or its record is missing', () => {
    expect(
      authorizerResult({ key, keyHash: 'h', tenant: { id: 'tenant-1' } as Tenant, refusal: undefined }, ARN),
    ).not.toHaveProperty('usageIdentifierKey');
    const refusal = new AppError('TENANT_INACTIVE', 'gone');
    expect(authorizerResult({ key, keyHash: 'h', tenant: undefined, refusal }, ARN)).not.toHaveProperty(
      'usageIdentifierKey',
    );
  });
});

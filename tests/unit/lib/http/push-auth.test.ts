import { describe, expect, it } from 'vitest';
import type { ApiKey } from '../../../../lib/db/api-keys';
import type { Tenant } from '../../../../lib/db/tenants';
import { AppError } from '../../../../lib/errors';
import { pushRequestOf } from '../../../../lib/http/push';
import { apiKeyHeader, authorizerResult, authorizerVerdict } from '../../../../lib/http/push-auth';
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

describe("the authorizer's verdict as the handler reads it (issue 10)", () => {
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

  it('names no usage plan key when the tenant record is missing, and refuses the key in its context', () => {
    const refusal = new AppError('TENANT_INACTIVE', 'gone');
    const answer = authorizerResult(
      { key, keyHash: 'h', tenant: undefined, refusal },
      'arn:aws:execute-api:eu-west-1:1:api/prod/POST/api/integrations/push/measurement',
    );
    expect(answer).not.toHaveProperty('usageIdentifierKey');
    expect(answer.context).toEqual({ keyId: 'key-1', tenantId: 'tenant-1', status: 'refused' });
  });

  it("passes the tenant's API Gateway key, so its usage plan applies", () => {
    const tenant = { id: 'tenant-1', usageKey: { id: 'gw-id', value: 'gw-value' } } as Tenant;
    const answer = authorizerResult(
      { key, keyHash: 'h', tenant, refusal: undefined },
      'arn:aws:execute-api:eu-west-1:1:api/prod/POST/api/integrations/push/measurement',
    );
    expect(answer.usageIdentifierKey).toBe('gw-value');
    expect(answer.context?.status).toBe('active');
  });
});

describe('a push request as the pipeline sees it', () => {
  const context = { getRemainingTimeInMillis: () => 1234 };
  const read = async () => [];
  const eventWith = (queryStringParameters: Record<string, string> | null) =>
    ({ headers: { 'x-api-key': 'k' }, queryStringParameters, requestContext: {} }) as never;

  it('is a dry run only for ?dryRun=true', async () => {
    expect(pushRequestOf(eventWith({ dryRun: 'true' }), context, read).dryRun).toBe(true);
    expect(pushRequestOf(eventWith({ dryRun: 'false' }), context, read).dryRun).toBe(false);
    const plain = pushRequestOf(eventWith(null), context, read);
    expect(plain).toMatchObject({ apiKey: 'k', dryRun: false, authorizer: undefined });
    expect(plain.readMeasurements).toBe(read);
    expect(plain.remainingTimeMs?.()).toBe(1234);
  });

  it('with a bad query string is a real push whose body reading fails with the query string problem', async () => {
    const request = pushRequestOf(eventWith({ dryRun: 'yes' }), context, read);
    expect(request.dryRun).toBe(false);
    await expect(request.readMeasurements()).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: 'The query string has 1 invalid field(s).',
      errors: [{ path: 'dryRun', message: 'dryRun must be true or false' }],
    });
  });
});

import { beforeAll, describe, expect, it, vi } from 'vitest';
import { handler as createKeyHandler } from '../../../functions/create-api-key';
import { handler as listKpisHandler } from '../../../functions/list-kpis';
import { handler as loginHandler } from '../../../functions/login';
import { handler as pushHandler } from '../../../functions/push-measurement';
import { handler as refreshHandler } from '../../../functions/refresh-token';
import { generateApiKey } from '../../../lib/api-keys/key-format';
import { tokens } from '../../../lib/runtime';
import { createGateway } from '../../support/api-gateway';
import { invoke } from '../../support/events';

/**
 * Faults: DynamoDB unreachable. Before anything is imported, this file points the handlers at a
 * port nothing listens on (port 1), as a Lambda would be cold-started with an endpoint that does not
 * answer. Every endpoint answers 503 with Retry-After and no internal text, never 500; the push
 * authorizer fails, which API Gateway answers with the AUTHORIZER_FAILURE gateway response, also 503.
 */
vi.hoisted(() => {
  process.env.DYNAMODB_ENDPOINT = 'http://127.0.0.1:1';
});

let accessToken: string;
beforeAll(async () => {
  accessToken = await tokens.issueAccessToken({
    userId: 'u',
    tenantId: 't',
    role: 'ADMIN',
    email: 'a@example.test',
    sessionId: 's',
    tokenVersion: 0,
  });
});

const expectUnavailable = (result: { status: number; headers: Record<string, string>; body: any }) => {
  expect(result.status).toBe(503);
  expect(result.headers['retry-after']).toBe('1');
  expect(result.body.type).toMatch(/\/service-unavailable$/);
  expect(JSON.stringify(result.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|connect|\bat \w/);
};

describe('DynamoDB unreachable (faults)', () => {
  it('login and refresh: 503, no internal text', async () => {
    expectUnavailable(
      await invoke(loginHandler, {
        method: 'POST',
        path: '/api/auth/login',
        body: { email: 'a@example.test', password: 'x' },
      }),
    );
    const refreshToken = await tokens.issueRefreshToken({
      userId: 'u',
      tenantId: 't',
      sessionId: 's',
      tokenVersion: 0,
    });
    expectUnavailable(
      await invoke(refreshHandler, {
        method: 'POST',
        path: '/api/auth/refresh-token',
        body: { refreshToken },
      }),
    );
  });

  it('a read and a key creation with a valid token: 503', async () => {
    const auth = { Authorization: `Bearer ${accessToken}` };
    expectUnavailable(await invoke(listKpisHandler, { path: '/api/kpis', headers: auth }));
    expectUnavailable(
      await invoke(createKeyHandler, {
        method: 'POST',
        path: '/api/api-keys',
        headers: auth,
        body: { name: 'x' },
      }),
    );
  });

  it('a push: the authorizer fails (503 from API Gateway) and the handler alone answers 503 too', async () => {
    const request = {
      method: 'POST',
      path: '/api/integrations/push/measurement',
      headers: { 'x-api-key': generateApiKey() },
      body: { kpiId: '01a200c7-63b3-716b-93e3-65830b252eda', kpiType: 'BSC_KPI', actual: 1 },
    };
    expectUnavailable(await createGateway().invoke(pushHandler, request));
    expectUnavailable(await invoke(pushHandler, request));
  });
});

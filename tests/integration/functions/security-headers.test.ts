import { beforeAll, describe, expect, it } from 'vitest';
import { handler as health } from '../../../functions/health';
import { handler as listKpis } from '../../../functions/list-kpis';
import { handler as login } from '../../../functions/login';
import { handler as logout } from '../../../functions/logout';
import { handler as openApi } from '../../../functions/openapi';
import { handler as push } from '../../../functions/push-measurement';
import { type InvokeResult, invoke } from '../../support/events';
import { bearer, createTestTenant, type TestTenant } from '../../support/fixtures';

/**
 * Browser-facing defences on every answer: HSTS (RFC 6797) on each response whatever produced it, and
 * on each JSON answer (a result or a problem) `nosniff` and a CSP that lets nothing load or run.
 */
const expectHsts = (result: InvokeResult) =>
  expect(result.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');

const expectJsonDefences = (result: InvokeResult) => {
  expectHsts(result);
  expect(result.headers['x-content-type-options']).toBe('nosniff');
  expect(result.headers['content-security-policy']).toBe("default-src 'none'");
};

let tenant: TestTenant;
beforeAll(async () => {
  tenant = await createTestTenant({ plan: 'enterprise', kpiTypes: ['BSC_KPI'] });
});

describe('security headers', () => {
  it('a JSON result carries HSTS, nosniff and the CSP', async () => {
    const results = [
      await invoke(health, { path: '/api/health' }),
      await invoke(openApi, { path: '/api/openapi.json' }),
      await invoke(listKpis, { path: '/api/kpis', headers: bearer(tenant.users.VIEWER.token) }),
    ];
    for (const result of results) {
      expect(result.status).toBe(200);
      expect(result.headers['content-type']).toBe('application/json');
      expectJsonDefences(result);
    }
  });

  it('a problem document carries them too, whichever layer refused the request', async () => {
    const results = [
      // Validation of the body.
      await invoke(login, { method: 'POST', path: '/api/auth/login', body: { email: 'x' } }),
      // Authentication of a JWT route.
      await invoke(listKpis, { path: '/api/kpis' }),
      // Authentication of a push route.
      await invoke(push, { method: 'POST', path: '/api/integrations/push/measurement', body: {} }),
    ];
    for (const result of results) {
      expect(result.status).toBeGreaterThanOrEqual(400);
      expect(result.headers['content-type']).toBe('application/problem+json');
      expectJsonDefences(result);
    }
  });

  it('an answer without a body carries HSTS', async () => {
    const loggedOut = await invoke(logout, {
      method: 'POST',
      path: '/api/auth/logout',
      body: { refreshToken: tenant.users.EDITOR.refreshToken },
    });
    expect(loggedOut.status).toBe(204);
    expectHsts(loggedOut);
  });
});

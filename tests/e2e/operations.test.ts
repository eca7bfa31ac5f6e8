import { readFileSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';
import { baseUrl, loginAs, seed } from '../support/http';

/**
 * Operations over real HTTP against the local stack (serverless-offline with the CORS patch, started
 * with one allowed origin): CORS answers as the deployed API Gateway would, every answer has
 * X-Request-Id, and the stack's log holds the matching lines.
 */
const origin = () => inject('corsOrigin');
const firstUser = () => seed().tenants[0]!.users[0]!;

describe('CORS on the local stack, as deployed', () => {
  it('echoes an allowed origin on a JWT endpoint, without credentials', async () => {
    const { token } = await loginAs(firstUser().email, 'demo-password-1');
    const response = await fetch(`${baseUrl()}/kpis`, {
      headers: { Authorization: `Bearer ${token}`, Origin: origin() },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe(origin());
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('gives any other origin no CORS header', async () => {
    const { token } = await loginAs(firstUser().email, 'demo-password-1');
    const response = await fetch(`${baseUrl()}/kpis`, {
      headers: { Authorization: `Bearer ${token}`, Origin: 'https://evil.example' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('answers the preflight of a JWT endpoint for the allowed origin', async () => {
    const response = await fetch(`${baseUrl()}/auth/login`, {
      method: 'OPTIONS',
      headers: {
        Origin: origin(),
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'content-type',
      },
    });
    expect(response.status).toBeLessThan(300);
    expect(response.headers.get('access-control-allow-origin')).toBe(origin());
  });

  it('allows no browser origin on push: no CORS header on the answer or on the preflight', async () => {
    const push = await fetch(`${baseUrl()}/integrations/push/measurement`, {
      method: 'POST',
      headers: { Origin: origin(), 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(push.status).toBe(401);
    expect(push.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await fetch(`${baseUrl()}/integrations/push/measurement`, {
      method: 'OPTIONS',
      headers: {
        Origin: origin(),
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'x-api-key',
      },
    });
    // No Access-Control-Allow-Origin: the browser refuses (API Gateway: 403 without it; here: no header).
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
  });
});

describe('X-Request-Id over HTTP', () => {
  it('is on every answer, equals the problem requestId, and finds the access line in the log', async () => {
    const response = await fetch(`${baseUrl()}/kpis`);
    expect(response.status).toBe(401);
    const id = response.headers.get('x-request-id');
    expect(id).toBeTruthy();
    expect((await response.json()).requestId).toBe(id);
    const page = await fetch(baseUrl().replace(/\/api$/, '/platform/api-keys'));
    expect(page.headers.get('x-request-id')).toBeTruthy();
    // Logs are written asynchronously by the worker: wait (bounded) for the line to arrive.
    let access: any;
    for (let i = 0; i < 50 && !access; i++) {
      const lines = readFileSync(inject('stackLogFile'), 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('{'));
      access = lines
        .map((l) => JSON.parse(l))
        .find((l) => l.correlation_id === id && l.message === 'request');
      if (!access) await new Promise((r) => setTimeout(r, 100));
    }
    expect(access).toMatchObject({ route: 'GET /api/kpis', status: 401, service: 'strategy-service' });
  });
});

describe('an unknown route on the local stack, as deployed', () => {
  it.each([
    ['GET', '/api/no-such-thing'],
    ['DELETE', '/api/health'],
    // A GET under /platform/ is the pages' HTML 404 (tests/e2e/not-found-page.test.ts); other methods are no page.
    ['POST', '/platform/nothing'],
    ['POST', '/'],
  ])(
    "%s %s is a 404 problem document (API Gateway: MISSING_AUTHENTICATION_TOKEN), not the emulator's route list",
    async (method, path) => {
      const response = await fetch(`${new URL(baseUrl()).origin}${path}`, { method });
      expect(response.status).toBe(404);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(response.headers.get('cache-control')).toBe('no-store');
      const body = await response.json();
      expect(body).toEqual({
        type: 'https://strategy-service.example.com/problems/not-found',
        title: 'Not found',
        status: 404,
        detail: 'No such resource or method.',
        requestId: expect.any(String),
      });
    },
  );
});

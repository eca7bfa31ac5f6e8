import { readFileSync } from 'node:fs';
import { describe, expect, inject, it } from 'vitest';
import { signedHeaders } from '../support/github-keys';
import { baseUrl, createStackTenant, loginAs, request, seed } from '../support/http';

/**
 * No raw API key, password, JWT, refresh token or one-time link in the logs. The e2e stack writes everything
 * it prints (serverless-offline and every handler, at debug level) to one file; this file runs last
 * (vitest.config.mts `sequence.sequencer`), after a journey of its own through every endpoint, right
 * and wrong, and searches the whole log of the run: for the secrets it knows, and for anything shaped
 * like an API key or a JWT.
 */
const API_KEY_SHAPE = /skm_[0-9A-Za-z]{33}/;
const JWT_SHAPE = /eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/;
const WEBHOOK_SECRET_SHAPE = /whsec_[A-Za-z0-9+/]{40,}/;
const LINK_TOKEN_SHAPE = /sul_[A-Za-z0-9_-]{43}/;

const logOfTheRun = () => readFileSync(inject('stackLogFile'), 'utf8');

describe('no secret in the logs of an end-to-end run', () => {
  it('a journey through every endpoint leaves no key, password or token in the log', async () => {
    const { tenant, email, password } = await createStackTenant('enterprise');
    const secrets: string[] = [password];
    const { token, refreshToken } = await loginAs(email, password);
    secrets.push(token, refreshToken);
    const auth = { Authorization: `Bearer ${token}` };
    await request('POST', '/auth/login', { body: { email, password: `${password}-wrong` } });
    secrets.push(`${password}-wrong`);
    secrets.push((await request('POST', '/auth/refresh-token', { body: { refreshToken } })).body.token);
    await request('POST', '/auth/refresh-token', { body: { refreshToken: `${refreshToken}x` } });
    const created = await request('POST', '/api-keys', { headers: auth, body: { name: 'secrets test' } });
    expect(created.status).toBe(201);
    const key: string = created.body.key;
    secrets.push(key);
    await request('GET', '/api-keys', { headers: auth });
    await request('GET', '/kpis', { headers: auth });
    await request('GET', '/strategic-cycles', { headers: { ...auth, 'X-Tenant-ID': tenant.id } });
    const acme = seed().tenants[0]!;
    const kpi = acme.kpis[0]!;
    // A push with the new key to a KPI of another tenant (404), with a good key and a bad body (400),
    // with a key one character off (401), and a revocation then a push with the revoked key (403).
    await request('POST', '/integrations/push/measurement', {
      headers: { 'x-api-key': key },
      body: { kpiId: kpi.id, kpiType: kpi.type, actual: 1 },
    });
    const goodKey = acme.apiKeys.find((k) => k.status === 'active')!.key;
    await request('POST', '/integrations/push/measurement', {
      headers: { 'x-api-key': goodKey },
      body: { kpiId: kpi.id, kpiType: kpi.type, actual: 'x' },
    });
    await request('POST', '/integrations/push/measurements/batch', {
      headers: { 'x-api-key': goodKey },
      body: { measurements: [{ kpiId: kpi.id, kpiType: kpi.type, actual: 2, periodStart: '2019-03-01' }] },
    });
    await request('POST', '/integrations/push/measurement', {
      headers: { 'x-api-key': `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}` },
      body: { kpiId: kpi.id, kpiType: kpi.type, actual: 1 },
    });
    // GitHub's secret scanning reports the key (signed, then forged): the report holds raw keys.
    const report = JSON.stringify([
      { token: key, type: 'strategy_service_api_key', url: 'https://github.com/o/r' },
    ]);
    await request('POST', '/secret-scanning/github', {
      body: report,
      headers: signedHeaders(report, inject('secretScanningKey')),
    });
    await request('POST', '/secret-scanning/github', { body: report });
    await request('DELETE', `/api-keys/${created.body.id}`, { headers: auth });
    await request('POST', '/integrations/push/measurement', {
      headers: { 'x-api-key': key },
      body: { kpiId: kpi.id, kpiType: kpi.type, actual: 1 },
    });
    await fetch(baseUrl().replace(/\/api$/, '/platform/api-keys'));
    // A webhook endpoint: its secret is in the creation's answer only.
    const webhook = await request('POST', '/webhooks', {
      headers: auth,
      body: { url: 'http://127.0.0.1:9/hooks', eventTypes: ['api_key.revoked'] },
    });
    expect(webhook.status).toBe(201);
    secrets.push(webhook.body.secret, webhook.body.secret.slice(6));
    await request('GET', '/webhooks', { headers: auth });
    await request('POST', `/webhooks/${webhook.body.id}/test`, { headers: auth });
    await request('GET', `/webhooks/${webhook.body.id}/deliveries`, { headers: auth });
    await request('DELETE', `/webhooks/${webhook.body.id}`, { headers: auth });
    // People: an invitation's link and token, the password set with it (then a second use and a
    // weak password), a reset link, a change of one's own password and a deactivation.
    const invited = await request('POST', '/users', {
      headers: auth,
      body: { email: `secrets-${Date.now()}@example.test`, role: 'EDITOR' },
    });
    expect(invited.status).toBe(201);
    const personPassword = 'the invited person’s passphrase';
    secrets.push(invited.body.link.token, invited.body.link.url, personPassword);
    await request('POST', '/auth/accept-invitation', {
      body: { token: invited.body.link.token, password: 'too short' },
    });
    const accepted = await request('POST', '/auth/accept-invitation', {
      body: { token: invited.body.link.token, password: personPassword },
    });
    expect(accepted.status).toBe(200);
    secrets.push(accepted.body.token, accepted.body.refreshToken);
    await request('POST', '/auth/accept-invitation', {
      body: { token: invited.body.link.token, password: personPassword },
    });
    const newPassword = 'another passphrase of theirs';
    secrets.push(newPassword);
    await request('POST', '/auth/change-password', {
      headers: { Authorization: `Bearer ${accepted.body.token}` },
      body: { currentPassword: personPassword, newPassword },
    });
    const resetLink = await request('POST', `/users/${invited.body.user.id}/password-reset`, {
      headers: auth,
    });
    expect(resetLink.status).toBe(201);
    secrets.push(resetLink.body.link.token, resetLink.body.link.url);
    await request('GET', '/users', { headers: auth });
    await request('PATCH', `/users/${invited.body.user.id}`, { headers: auth, body: { active: false } });

    // The handlers log asynchronously: wait (bounded) until the last request's access line is in.
    for (
      let i = 0;
      i < 100 && !logOfTheRun().includes('"route":"POST /api/integrations/push/measurement","status":403');
      i++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const log = logOfTheRun();
    expect(log).toContain('"status":403'); // the journey's lines are in the log
    for (const tenantOfSeed of seed().tenants) {
      for (const user of tenantOfSeed.users) secrets.push(user.password);
      for (const apiKey of tenantOfSeed.apiKeys) secrets.push(apiKey.key);
    }
    for (const secret of new Set(secrets)) {
      expect(log.includes(secret), `a secret of ${secret.length} characters is in the log`).toBe(false);
    }
    expect(log.match(API_KEY_SHAPE)?.[0]?.slice(0, 8) ?? 'no API key').toBe('no API key');
    expect(log.match(JWT_SHAPE)?.[0]?.slice(0, 12) ?? 'no JWT').toBe('no JWT');
    expect(log.match(WEBHOOK_SECRET_SHAPE)?.[0]?.slice(0, 8) ?? 'no webhook secret').toBe(
      'no webhook secret',
    );
    expect(log.match(LINK_TOKEN_SHAPE)?.[0]?.slice(0, 8) ?? 'no link token').toBe('no link token');
  });
});

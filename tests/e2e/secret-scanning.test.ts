import { createHash } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { signedHeaders } from '../support/github-keys';
import { loginAs, request, seed } from '../support/http';

/**
 * GitHub's secret scanning against the running local stack: reports signed by the key the stack's
 * global setup publishes (SECRET_SCANNING_KEYS_URL), sent over HTTP as GitHub sends them.
 */
const signingKey = () => inject('secretScanningKey');
const TYPE = 'strategy_service_api_key';
const URL = 'https://github.com/octocat/Hello-World/blob/12345600b9cbe38a219f39a9941c9319b600c002/.env';

const sendReport = (body: string, headers: Record<string, string> = signedHeaders(body, signingKey())) =>
  request('POST', '/secret-scanning/github', { body, headers });

describe('GitHub secret scanning over HTTP (serverless-offline)', () => {
  it('a signed report revokes the live key it names: its next push is refused, the list says by whom', async () => {
    const acme = seed().tenants[0]!;
    const admin = acme.users.find((user) => user.role === 'ADMIN')!;
    const auth = { Authorization: `Bearer ${(await loginAs(admin.email, admin.password)).token}` };
    const created = await request('POST', '/api-keys', { headers: auth, body: { name: 'leaked in e2e' } });
    expect(created.status).toBe(201);
    const key: string = created.body.key;
    const revokedBefore = acme.apiKeys.find((k) => k.status === 'revoked')!.key;
    const kpi = acme.kpis[0]!;
    const push = () =>
      request('POST', '/integrations/push/measurement', {
        headers: { 'x-api-key': key },
        body: {
          kpiId: kpi.id,
          kpiType: kpi.type,
          actual: 1,
          periodStart: '2020-01-01',
          periodEnd: '2020-01-31',
        },
      });
    expect([200, 201]).toContain((await push()).status);

    const body = JSON.stringify(
      [key, revokedBefore, `${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`].map((token) => ({
        token,
        type: TYPE,
        url: URL,
        source: 'content',
      })),
    );
    // A forged report first: refused, and the key still pushes.
    const forged = await sendReport(body, signedHeaders(`${body}\n`, signingKey()));
    expect(forged.status).toBe(401);
    expect([200, 201]).toContain((await push()).status);

    const result = await sendReport(body);
    expect(result.status).toBe(200);
    const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
    expect(result.body).toEqual([
      { token_hash: sha256(key), token_type: TYPE, label: 'true_positive' },
      { token_hash: sha256(revokedBefore), token_type: TYPE, label: 'true_positive' },
      {
        token_hash: sha256(`${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`),
        token_type: TYPE,
        label: 'false_positive',
      },
    ]);
    const refused = await push();
    expect(refused.status).toBe(403);
    expect(refused.body.type).toMatch(/\/api-key-revoked$/);
    const listed = await request('GET', '/api-keys?limit=1000', { headers: auth });
    expect(listed.body.items.find((k: { id: string }) => k.id === created.body.id)).toMatchObject({
      status: 'revoked',
      revokedBy: { type: 'secret-scanning', source: 'github', url: URL },
    });
    // Sent again (GitHub retries): the same answer.
    expect((await sendReport(body)).body).toEqual(result.body);
  });
});

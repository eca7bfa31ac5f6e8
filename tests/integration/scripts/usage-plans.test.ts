import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as pushAuthorizer } from '../../../functions/push-authorizer';
import { createApiKey } from '../../../lib/api-keys/service';
import { getTenant } from '../../../lib/db/tenants';
import { startControlPlane } from '../../support/api-gateway-control-plane';
import { db } from '../../support/fixtures';

/**
 * Each tenant's API Gateway key is made with the tenant and moved when its plan changes, by the
 * operator CLI through the AWS SDK, here against a stand-in of API Gateway's control plane.
 */
const root = resolve(__dirname, '..', '..', '..');
let controlPlane: Awaited<ReturnType<typeof startControlPlane>>;
beforeAll(async () => {
  controlPlane = await startControlPlane(
    ['free', 'business', 'enterprise'].map((t) => `strategy-service-${t}-test`),
  );
});
afterAll(() => controlPlane.stop());

const admin = async (...args: string[]) => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', 'scripts/admin.ts', ...args],
    {
      cwd: root,
      env: {
        ...process.env,
        APIGATEWAY_ENDPOINT: controlPlane.endpoint,
        STAGE: 'test',
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
      },
    },
  );
  return JSON.parse(stdout);
};

describe('operator CLI: usage plan keys', () => {
  it("create-tenant makes the tenant's key on its tier's plan; the authorizer returns it; nobody is shown it", async () => {
    const output = await admin(
      'create-tenant',
      '--name',
      'Plan Corp',
      '--plan',
      'free',
      '--features',
      'kpi_push_measurement',
    );
    expect(output.usageKey).toBeUndefined();
    const tenant = (await getTenant(db, output.id))!;
    expect(tenant.usageKey).toEqual({ id: expect.any(String), value: expect.any(String) });
    expect(tenant.usageKey!.value.length).toBeGreaterThanOrEqual(20);
    const key = controlPlane.keys.get(tenant.usageKey!.id)!;
    expect(key).toMatchObject({
      value: tenant.usageKey!.value,
      tags: { service: 'strategy-service', stage: 'test', tenant: tenant.id },
    });
    expect(controlPlane.planOf(key.id)).toBe('strategy-service-free-test');
    expect(JSON.stringify(await admin('get-tenant', '--tenant', tenant.id))).not.toContain(
      tenant.usageKey!.value,
    );

    const apiKey = await createApiKey(db, { tenantId: tenant.id, name: 'cron' });
    const answer = await pushAuthorizer({
      type: 'REQUEST',
      methodArn: 'arn:aws:execute-api:eu-central-1:1:api/test/POST/api/integrations/push/measurement',
      headers: { 'x-api-key': apiKey.key },
    } as unknown as APIGatewayRequestAuthorizerEvent);
    expect(answer.usageIdentifierKey).toBe(tenant.usageKey!.value);
  });

  it('update-tenant --plan moves the key to the new tier; the same plan again changes nothing', async () => {
    const { id } = await admin('create-tenant', '--name', 'Mover', '--plan', 'free');
    const { usageKey } = (await getTenant(db, id))!;
    expect((await admin('update-tenant', '--tenant', id, '--plan', 'business')).plan).toBe('business');
    expect(controlPlane.planOf(usageKey!.id)).toBe('strategy-service-business-test');
    const calls = controlPlane.log.length;
    await admin('update-tenant', '--tenant', id, '--plan', 'business');
    expect(controlPlane.log.slice(calls).filter((call) => !call.startsWith('GET'))).toEqual([]);
    await admin('update-tenant', '--tenant', id, '--active', 'false');
    expect(controlPlane.planOf(usageKey!.id)).toBe('strategy-service-business-test');
    expect((await getTenant(db, id))!.usageKey).toEqual(usageKey);
  });

  it('a tenant without a key (made before the stage had plans) gets one at its next plan change', async () => {
    const { id } = await createTenantLocally();
    expect((await getTenant(db, id))!.usageKey).toBeUndefined();
    await admin('update-tenant', '--tenant', id, '--plan', 'enterprise');
    const { usageKey } = (await getTenant(db, id))!;
    expect(controlPlane.planOf(usageKey!.id)).toBe('strategy-service-enterprise-test');
  });
});

/** A tenant made on the local stack, where there are no usage plans. */
const createTenantLocally = async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', 'scripts/admin.ts', 'create-tenant', '--name', 'Old Corp'],
    { cwd: root, env: { ...process.env } },
  );
  return JSON.parse(stdout) as { id: string };
};

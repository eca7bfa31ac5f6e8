import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { handler as loginHandler } from '../../../functions/login';
import { getTenant } from '../../../lib/db/tenants';
import { invoke } from '../../support/events';
import { db } from '../../support/fixtures';

const root = resolve(__dirname, '..', '..', '..');
const admin = async (...args: string[]) => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', 'scripts/admin.ts', ...args],
    {
      cwd: root,
      env: { ...process.env },
    },
  );
  return JSON.parse(stdout);
};

describe('npm run admin (operator CLI, JSON output, same table as the service)', () => {
  it('creates a tenant, a user who can log in, a KPI and API keys; changes the plan; revokes a key', async () => {
    const tenant = await admin(
      'create-tenant',
      '--name',
      'CLI Corp',
      '--plan',
      'free',
      '--features',
      'kpi_push_measurement',
    );
    expect(tenant).toMatchObject({
      name: 'CLI Corp',
      plan: 'free',
      features: ['kpi_push_measurement'],
      active: true,
    });

    const user = await admin(
      'create-user',
      '--tenant',
      tenant.id,
      '--email',
      'Ops@CLI.example',
      '--password',
      'long-enough-pw',
      '--role',
      'ADMIN',
    );
    expect(user).toMatchObject({ email: 'ops@cli.example', role: 'ADMIN' });
    expect(JSON.stringify(user)).not.toContain('scrypt');
    const login = await invoke(loginHandler, {
      method: 'POST',
      body: { email: 'ops@cli.example', password: 'long-enough-pw' },
    });
    expect(login.status).toBe(200);

    const kpi = await admin('create-kpi', '--tenant', tenant.id, '--type', 'BSC_KPI', '--name', 'Revenue');
    expect(kpi).toMatchObject({ tenantId: tenant.id, type: 'BSC_KPI', name: 'Revenue' });

    const key = await admin('create-api-key', '--tenant', tenant.id, '--name', 'cron');
    expect(key.key).toMatch(/^skm_/);
    await admin('revoke-api-key', '--tenant', tenant.id, '--id', key.id);
    const keys = await admin('list-api-keys', '--tenant', tenant.id);
    expect(keys).toEqual([expect.objectContaining({ id: key.id, status: 'revoked' })]);
    expect(JSON.stringify(keys)).not.toContain(key.key);

    await admin('update-tenant', '--tenant', tenant.id, '--plan', 'enterprise', '--active', 'false');
    expect(await getTenant(db, tenant.id)).toMatchObject({ plan: 'enterprise', active: false });
  });

  it('exits non-zero with a JSON error naming the bad option', async () => {
    const failure = await admin('create-tenant', '--name', 'X', '--plan', 'platinum').catch((error) => error);
    expect(failure.code).toBe(1);
    expect(JSON.parse(failure.stderr).details[0].path).toBe('plan');
  });
});

import { randomUUID } from 'node:crypto';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { inject } from 'vitest';
import { createApiKey } from '../../lib/api-keys/service';
import { startSession } from '../../lib/auth/sign-in';
import type { Database } from '../../lib/db/client';
import { createKpi } from '../../lib/db/kpis';
import { measurements } from '../../lib/db/measurements';
import { putIntegration, type StoredIntegration } from '../../lib/db/pull-integrations';
import { createStrategicCycle } from '../../lib/db/strategic-cycles';
import { createTenant, type Tenant } from '../../lib/db/tenants';
import { createUser, type User } from '../../lib/db/users';
import { auditEvent, systemContext } from '../../lib/domain/audit-event';
import { KPI_TYPES, type Kpi, type KpiType } from '../../lib/domain/kpi';
import type { Measurement } from '../../lib/domain/measurement';
import type { KpiPeriod } from '../../lib/domain/period';
import type { Feature, Plan } from '../../lib/domain/plan';
import type { Role } from '../../lib/domain/user';
import { uuidv7 } from '../../lib/ids';

import { db, publish, tokens } from '../../lib/runtime';

export { pullIntegrationRecord } from '../../bench/records';

export { db, publish, tokens };

export interface TestUser extends User {
  password: string;
  /** The access and refresh tokens of a session of their own, as a login would start it. */
  token: string;
  refreshToken: string;
}

export interface TestTenant {
  tenant: Tenant;
  users: Record<Role, TestUser>;
  kpis: Kpi[];
}

export interface TenantOptions {
  plan?: Plan;
  features?: Feature[];
  active?: boolean;
  kpiTypes?: KpiType[];
  /** The period of every KPI made (default: the KPIs' default, `month`). */
  period?: KpiPeriod;
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

const addUser = async (database: Database, tenantId: string, role: Role): Promise<TestUser> => {
  // One password for every test user, hashed once per run (tests/support/password-global-setup.ts).
  const { password, hash } = inject('testPassword');
  const user = await createUser(database, {
    tenantId,
    email: `${role.toLowerCase()}-${randomUUID()}@example.test`,
    role,
    passwordHash: hash,
  });
  const { token, refreshToken } = await startSession({ db: database, tokens }, user);
  return { ...user, password, token, refreshToken };
};

/** A tenant with one user of each role (with access tokens) and one KPI per requested type. */
export const createTestTenant = async ({
  plan = 'business',
  features = ['kpi_push_measurement'],
  active = true,
  kpiTypes = KPI_TYPES,
  period,
}: TenantOptions = {}): Promise<TestTenant> => {
  const tenant = await createTenant(db, { name: `Tenant ${randomUUID()}`, plan, features, active });
  const [ADMIN, EDITOR, VIEWER] = await Promise.all(
    (['ADMIN', 'EDITOR', 'VIEWER'] as const).map((role) => addUser(db, tenant.id, role)),
  );
  const kpis = [];
  for (const type of kpiTypes)
    kpis.push(await createKpi(db, tenant.id, { type, name: `${type} KPI`, period }));
  return {
    tenant,
    users: { ADMIN: ADMIN as TestUser, EDITOR: EDITOR as TestUser, VIEWER: VIEWER as TestUser },
    kpis,
  };
};

/** Sequential, so the cycles' creation order (and UUIDv7 order) is the order of `names`. */
export const createTestCycles = async (tenantId: string, names: string[]) => {
  const cycles = [];
  for (const name of names) {
    cycles.push(
      await createStrategicCycle(db, tenantId, { name, startDate: '2026-01-01', endDate: '2026-12-31' }),
    );
  }
  return cycles;
};

/**
 * A stored measurement, as the entity's codec writes it: `extra` sets fields such as a `receivedAt` in
 * the past. Without one, the record has the provenance of one not written by push (null).
 */
export const measurementRecord = (
  kpi: Kpi,
  periodStart: string,
  periodEnd: string,
  actual: number,
  extra: Partial<Measurement> = {},
) => {
  const now = new Date().toISOString();
  return {
    id: uuidv7(),
    tenantId: kpi.tenantId,
    kpiId: kpi.id,
    kpiType: kpi.type,
    actual,
    target: null,
    forecast: null,
    periodStart,
    periodEnd,
    createdAt: now,
    updatedAt: now,
    receivedAt: null,
    apiKeyId: null,
    apiKeyPrefix: null,
    integrationId: null,
    integrationName: null,
    replaced: null,
    ...extra,
  };
};

/** Writes a measurement item directly, for read tests that must not depend on the push endpoints. */
export const putMeasurement = async (...args: Parameters<typeof measurementRecord>) => {
  await db.client.send(
    new PutCommand({ TableName: db.tableName, Item: measurements.toItem(measurementRecord(...args)) }),
  );
};

/** A raw API key of the tenant, created through the library like the endpoint does. */
export const createRawKey = async (tenantId: string, expiresAt?: string) =>
  (await createApiKey(db, { tenantId, name: `key ${randomUUID()}`, expiresAt })).key;

/** Stores a pull integration through its repository, with the audit event its creation writes. */
export const storePullIntegration = async (integration: StoredIntegration) => {
  await putIntegration(
    db,
    integration,
    auditEvent(systemContext('test'), {
      type: 'integration.created',
      tenantId: integration.tenantId,
      target: { type: 'integration', id: integration.id },
    }),
  );
  return integration;
};

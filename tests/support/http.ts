import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { inject } from 'vitest';
import { createApiKey } from '../../lib/api-keys/service';
import { hashPassword } from '../../lib/auth/passwords';
import { createDatabase } from '../../lib/db/client';
import { createKpi } from '../../lib/db/kpis';
import { createTenant } from '../../lib/db/tenants';
import { createUser } from '../../lib/db/users';
import type { Kpi, KpiType } from '../../lib/domain/kpi';
import type { KpiPeriod } from '../../lib/domain/period';
import type { Plan } from '../../lib/domain/plan';
import type { SeedFile } from '../../scripts/seed';
import { assertContract } from './contract';

/** What the end-to-end tests talk to: the running local stack and its demo data. */
export const baseUrl = () => inject('baseUrl');
export const seed = (): SeedFile => JSON.parse(readFileSync(inject('seedFile'), 'utf8'));

export interface HttpResult {
  status: number;
  headers: Headers;
  body: any;
}

/**
 * `curl --interface <address>`: a request that leaves this machine from a local address of its own
 * choosing, so the stack sees it come from there. On Linux every address of 127.0.0.0/8 is this
 * machine's, so 127.0.0.2 and 127.0.0.3 are two clients. (`fetch` cannot choose its local address.)
 */
const sendFrom = (
  localAddress: string,
  url: URL,
  { method, headers, body }: { method: string; headers: Record<string, string>; body: string | undefined },
) =>
  new Promise<{ status: number; headers: Headers; text: string }>((resolve, reject) => {
    const sent = httpRequest(
      // The stack listens on the IPv4 loopback; `localhost` may resolve to ::1, unreachable from 127.0.0.2.
      {
        host: '127.0.0.1',
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method,
        headers,
        localAddress,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const received = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            for (const each of [value ?? []].flat()) received.append(name, each);
          }
          resolve({
            status: response.statusCode ?? 0,
            headers: received,
            text: Buffer.concat(chunks).toString('utf8'),
          });
        });
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });

/**
 * A curl-equivalent request: JSON in, JSON (or problem+json) out. Every response is checked against
 * the OpenAPI document first (./contract.ts): a test whose response breaks the contract fails. `from`
 * sends it from that local address (`sendFrom`).
 */
export const request = async (
  method: string,
  path: string,
  { body, headers = {}, from }: { body?: unknown; headers?: Record<string, string>; from?: string } = {},
): Promise<HttpResult> => {
  const init = {
    method,
    headers: body === undefined ? headers : { 'Content-Type': 'application/json', ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  };
  const url = new URL(`${baseUrl()}${path}`);
  const {
    status,
    headers: received,
    text,
  } = from
    ? await sendFrom(from, url, init)
    : await fetch(url, init).then(async (response) => ({
        status: response.status,
        headers: response.headers,
        text: await response.text(),
      }));
  assertContract({ method, path, status, headers: received, text });
  return { status, headers: received, body: text ? JSON.parse(text) : undefined };
};

export const loginAs = async (email: string, password: string) => {
  const result = await request('POST', '/auth/login', { body: { email, password } });
  if (result.status !== 200) throw new Error(`login failed: ${result.status} ${JSON.stringify(result.body)}`);
  return result.body as { token: string; refreshToken: string; expiresIn: number };
};

/** The running stack's table (the `local` stage's), for data the seed does not have. */
export const stackDatabase = () =>
  createDatabase({
    tableName: 'strategy-service-local',
    region: 'eu-central-1',
    endpoint: inject('stackDynamodbEndpoint'),
  });

/**
 * A new tenant with one ADMIN in the running stack's table (the `local` stage's), written through the
 * same library functions as the seed: for states the seed does not have, such as a tenant without keys.
 */
export const createStackTenant = async (plan: Plan = 'business') => {
  const db = stackDatabase();
  const tenant = await createTenant(db, {
    name: `E2E ${Date.now()}`,
    plan,
    features: ['kpi_push_measurement'],
    active: true,
  });
  const password = `pw-${tenant.id}`;
  const email = `admin-${tenant.id}@e2e.example`;
  await createUser(db, {
    tenantId: tenant.id,
    email,
    role: 'ADMIN',
    passwordHash: await hashPassword(password),
  });
  return { tenant, email, password };
};

export interface PushTenant {
  email: string;
  password: string;
  kpis: Kpi[];
  /** An active key for every KPI. */
  key: string;
}

/**
 * A business-plan tenant with push, these KPIs, an ADMIN and an active key, for tests that push
 * (the seeded tenants' KPIs are other tests' fixtures).
 */
export const createPushTenant = async (
  kpis: { type: KpiType; name: string; period?: KpiPeriod }[],
  keyName: string,
): Promise<PushTenant> => {
  const db = stackDatabase();
  const { tenant, email, password } = await createStackTenant('business');
  const created: Kpi[] = [];
  for (const kpi of kpis) created.push(await createKpi(db, tenant.id, kpi));
  const { key } = await createApiKey(db, { tenantId: tenant.id, name: keyName });
  return { email, password, kpis: created, key };
};

/** Stored measurements of one KPI in one year, as the tenant's users list them. */
export const storedMeasurements = async (tenant: PushTenant, kpiId: string, year: number) => {
  const { token } = await loginAs(tenant.email, tenant.password);
  const listed = await request('GET', `/kpis/${kpiId}/measurements?limit=1000`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  return (listed.body.items as { periodStart: string; actual: number; target?: number }[]).filter((m) =>
    m.periodStart.startsWith(`${year}-`),
  );
};

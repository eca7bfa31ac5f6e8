import { hashPassword } from '../lib/auth/passwords';
import type { Role } from '../lib/auth/roles';
import { type Actor, apiKeyStatus, createApiKey, revokeApiKey, rollApiKey } from '../lib/db/api-keys';
import type { Database } from '../lib/db/client';
import { createKpi } from '../lib/db/kpis';
import { createStrategicCycle } from '../lib/db/strategic-cycles';
import { createTenant } from '../lib/db/tenants';
import { createUser } from '../lib/db/users';
import { type Feature, KPI_TYPES, type KpiType, type Plan } from '../lib/domain';
import { type HistoryPlan, historyMeasurements, pushHistory } from './seed-history';

/** The shape of `.local/seed.json`: a contract that other tooling (tests, demos) reads. */
export interface SeedFile {
  baseUrl: string;
  tenants: SeedTenant[];
}

export interface SeedTenant {
  id: string;
  name: string;
  plan: Plan;
  active: boolean;
  features: Feature[];
  users: { id: string; email: string; password: string; role: Role }[];
  kpis: { id: string; type: KpiType; name: string }[];
  strategicCycles: { id: string; name: string }[];
  apiKeys: {
    id: string;
    key: string;
    prefix: string;
    status: 'active' | 'revoked' | 'expired';
    /** Issue 13: the KPIs the key may push to; null for every KPI. */
    kpiIds: string[] | null;
    /** Issue 13: the id of the key that replaced this one (it works until the end of its grace period). */
    replacedBy: string | null;
  }[];
}

interface TenantPlan {
  name: string;
  plan: Plan;
  active: boolean;
  features: Feature[];
  users: { email: string; role: Role }[];
  kpis: { type: KpiType; name: string }[];
  cycles: string[];
  /**
   * `rolled`: a key rolled with a 24-hour grace period, so the seed has both keys of a roll (issue 13).
   * `scope`: how many of the tenant's first KPIs the key is limited to.
   */
  apiKeys: { name: string; state: 'active' | 'revoked' | 'expired' | 'rolled'; scope?: number }[];
  /** Measurement history per KPI type, pushed with the tenant's first active key (issue 15). */
  history?: Partial<Record<KpiType, HistoryPlan>>;
}

/** Demo passwords for the local stack only; the README prints them too. */
export const DEMO_PASSWORD = 'demo-password-1';

const PUSH: Feature[] = ['kpi_push_measurement'];

const demoTenants: TenantPlan[] = [
  {
    name: 'Acme Corporation',
    plan: 'business',
    active: true,
    features: PUSH,
    users: [
      { email: 'admin@acme.example', role: 'ADMIN' },
      { email: 'editor@acme.example', role: 'EDITOR' },
      { email: 'viewer@acme.example', role: 'VIEWER' },
    ],
    kpis: KPI_TYPES.map((type) => ({ type, name: `Acme ${type.toLowerCase().replaceAll('_', ' ')}` })),
    cycles: ['Strategy 2026', 'Strategy 2027'],
    apiKeys: [
      { name: 'CI pipeline', state: 'active' },
      { name: 'Old cron job', state: 'revoked' },
      { name: 'Expired integration', state: 'expired' },
      { name: 'Revenue cron', state: 'active', scope: 1 },
      { name: 'Deploy bot', state: 'rolled' },
    ],
    // Several months of data for the KPI page; SWOT and PESTLE stay empty, and the product scorecard
    // stopped five months ago: three KPIs are quiet.
    history: {
      BSC_KPI: {
        cadence: 'monthly',
        periods: 15,
        start: 182_000,
        growth: 0.35,
        withTarget: true,
        withForecast: true,
      },
      OKR_KEY_RESULT: {
        cadence: 'weekly',
        periods: 20,
        start: 0.12,
        growth: 5.5,
        withTarget: true,
        decimals: 2,
      },
      THEME_KPI: { cadence: 'quarterly', periods: 6, start: 41, growth: 0.5, withTarget: true },
      KPI_DEFINITION: { cadence: 'monthly', periods: 12, start: 97.5, growth: 0.015, decimals: 1 },
      ASIS_KPI: { cadence: 'monthly', periods: 9, start: 310, growth: -0.3, withForecast: true },
      PRODUCT_SCORECARD_KPI: {
        cadence: 'monthly',
        periods: 10,
        stoppedPeriodsAgo: 5,
        start: 4.1,
        growth: 0.1,
        decimals: 1,
      },
    },
  },
  {
    name: 'Globex (free plan)',
    plan: 'free',
    active: true,
    features: PUSH,
    users: [{ email: 'admin@globex.example', role: 'ADMIN' }],
    kpis: [
      { type: 'BSC_KPI', name: 'Monthly recurring revenue' },
      { type: 'OKR_KEY_RESULT', name: 'Deployments per week' },
    ],
    cycles: ['FY 2026', 'FY 2027'],
    apiKeys: [{ name: 'Deploy pipeline', state: 'active' }],
    history: {
      BSC_KPI: { cadence: 'monthly', periods: 8, start: 12_400, growth: 0.6, withTarget: true },
      OKR_KEY_RESULT: { cadence: 'weekly', periods: 16, start: 9, growth: 0.8 },
    },
  },
  {
    name: 'Initech (push not in plan)',
    plan: 'free',
    active: true,
    features: [],
    users: [{ email: 'admin@initech.example', role: 'ADMIN' }],
    kpis: [{ type: 'KPI_DEFINITION', name: 'TPS reports filed' }],
    cycles: ['2026'],
    apiKeys: [{ name: 'Reporting job', state: 'active' }],
  },
  {
    name: 'Umbrella (inactive)',
    plan: 'business',
    active: false,
    features: PUSH,
    users: [{ email: 'admin@umbrella.example', role: 'ADMIN' }],
    kpis: [{ type: 'THEME_KPI', name: 'Incidents contained' }],
    cycles: ['2026'],
    apiKeys: [{ name: 'Reporting job', state: 'active' }],
  },
];

const seedTenant = async (db: Database, plan: TenantPlan): Promise<SeedTenant> => {
  const tenant = await createTenant(db, {
    name: plan.name,
    plan: plan.plan,
    features: plan.features,
    active: plan.active,
  });
  const users = [];
  for (const { email, role } of plan.users) {
    const passwordHash = await hashPassword(DEMO_PASSWORD);
    const user = await createUser(db, { tenantId: tenant.id, email, role, passwordHash });
    users.push({ id: user.id, email: user.email, password: DEMO_PASSWORD, role });
  }
  const kpis = [];
  for (const input of plan.kpis) {
    const kpi = await createKpi(db, tenant.id, input);
    kpis.push({ id: kpi.id, type: kpi.type, name: kpi.name });
  }
  const strategicCycles = [];
  for (const [index, name] of plan.cycles.entries()) {
    const year = 2026 + index;
    const cycle = await createStrategicCycle(db, tenant.id, {
      name,
      startDate: `${year}-01-01`,
      endDate: `${year}-12-31`,
    });
    strategicCycles.push({ id: cycle.id, name: cycle.name });
  }
  const apiKeys: SeedTenant['apiKeys'] = [];
  // The tenant's first ADMIN made its keys: the page shows who (issue 13's audit trail).
  const adminUser = users.find((user) => user.role === 'ADMIN');
  const by: Actor | undefined = adminUser ? { type: 'user', userId: adminUser.id } : undefined;
  for (const { name, state, scope } of plan.apiKeys) {
    // An expired key is seeded with an expiration date in the past, which only the library allows.
    const expiresAt = state === 'expired' ? new Date(Date.now() - 86_400_000).toISOString() : null;
    const kpiIds = scope ? kpis.slice(0, scope).map((kpi) => kpi.id) : null;
    const created = await createApiKey(db, { tenantId: tenant.id, name, expiresAt, kpiIds, createdBy: by });
    if (state === 'revoked') await revokeApiKey(db, tenant.id, created.id, by);
    const status = state === 'revoked' ? 'revoked' : apiKeyStatus(created);
    const entry = {
      id: created.id,
      key: created.key,
      prefix: created.prefix,
      status,
      kpiIds,
      replacedBy: null,
    };
    if (state !== 'rolled') {
      apiKeys.push(entry);
      continue;
    }
    const rolled = await rollApiKey(db, { tenantId: tenant.id, keyId: created.id, gracePeriodHours: 24, by });
    apiKeys.push(
      { ...entry, replacedBy: rolled.created.id },
      { ...entry, id: rolled.created.id, key: rolled.created.key, prefix: rolled.created.prefix },
    );
  }
  const pushKey = apiKeys.find((key) => key.status === 'active')?.key;
  if (plan.history && pushKey) {
    const now = Date.now();
    const history = kpis.flatMap((kpi) => {
      const wanted = plan.history?.[kpi.type];
      return wanted ? historyMeasurements(kpi, wanted, now) : [];
    });
    await pushHistory(db, pushKey, history);
  }
  return { ...tenant, users, kpis, strategicCycles, apiKeys };
};

/** Writes the demo tenants through the same repository functions the service and admin CLI use. */
export const seedDemoData = async (db: Database, baseUrl: string): Promise<SeedFile> => {
  const tenants = [];
  for (const plan of demoTenants) tenants.push(await seedTenant(db, plan));
  return {
    baseUrl,
    tenants: tenants.map(({ id, name, plan, active, features, users, kpis, strategicCycles, apiKeys }) => ({
      id,
      name,
      plan,
      active,
      features,
      users,
      kpis,
      strategicCycles,
      apiKeys,
    })),
  };
};

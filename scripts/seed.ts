import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { hashApiKey } from '../lib/api-keys/key-format';
import { apiKeyStatus } from '../lib/api-keys/rules';
import { createApiKey, revokeApiKey, rollApiKey } from '../lib/api-keys/service';
import { hashPassword } from '../lib/auth/passwords';
import type { Database } from '../lib/db/client';
import { type ItemKey, keys } from '../lib/db/keys';
import { createKpi } from '../lib/db/kpis';
import { createStrategicCycle } from '../lib/db/strategic-cycles';
import { createTenant, getTenant } from '../lib/db/tenants';
import { createUser } from '../lib/db/users';
import type { Actor } from '../lib/domain/api-key';
import { KPI_TYPES, type KpiCadence, type KpiDirection, type KpiType } from '../lib/domain/kpi';
import type { KpiPeriod } from '../lib/domain/period';
import type { Feature, Plan } from '../lib/domain/plan';
import type { PullSchedule } from '../lib/domain/pull-integration';
import type { Role } from '../lib/domain/user';
import { createEgress } from '../lib/egress';
import { createIntegration } from '../lib/pull/definitions';
import { createTokenCache } from '../lib/pull/fetch';
import { createPullSecretSeal } from '../lib/pull/secrets';
import type { MeasurementInput } from '../lib/push/measurement-schema';
import { createTenantCache } from '../lib/tenant-cache';
import { webhookLocalQueue } from '../lib/webhooks/local-queue';
import { createPublisher } from '../lib/webhooks/publisher';
import {
  type Client,
  type HistoryPlan,
  historyMeasurements,
  historyRequests,
  pushTraffic,
  type SeedRequest,
} from './seed-history';

/** The shape of `.local/seed.json`: a contract that other tooling (tests, demos) reads. */
export interface SeedFile {
  baseUrl: string;
  /**
   * Where the DynamoDB Local of the `npm start` that wrote the record answers, so the local runners
   * (`npm run alerts:run`, the operator CLI) find it as `demo:push` finds the base URL. Absent in
   * records of earlier versions.
   */
  dynamodbEndpoint?: string;
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
    /** The KPIs the key may push to; null for every KPI. */
    kpiIds: string[] | null;
    /** The id of the key that replaced this one (it works until the end of its grace period). */
    replacedBy: string | null;
  }[];
}

interface TenantPlan {
  name: string;
  plan: Plan;
  active: boolean;
  features: Feature[];
  users: { email: string; role: Role }[];
  kpis: {
    type: KpiType;
    name: string;
    unit?: string;
    direction?: KpiDirection;
    tolerance?: number;
    qualitative?: boolean;
    cadence?: KpiCadence;
    graceHours?: number;
  }[];
  /** Names of strategic cycles, one per year from the current one; `{year}` is replaced. */
  cycles: string[];
  /**
   * `rolled`: a key rolled now with a 24-hour grace period, so the seed has both keys of a roll.
   * `scope`: the types of the tenant's KPIs the key is limited to.
   * `createdDaysAgo`: when the key was made (default: two days after the tenant signed up, before its
   * first push); `revokedDaysAgo`: when a revoked key was revoked.
   */
  apiKeys: {
    name: string;
    state: 'active' | 'revoked' | 'expired' | 'rolled';
    scope?: KpiType[];
    createdDaysAgo?: number;
    revokedDaysAgo?: number;
  }[];
  /** Measurement history per KPI type, pushed with the tenant's first active key. */
  history?: Partial<Record<KpiType, HistoryPlan>>;
  /** Where the first active key's pushes of the history come from. */
  historyClient?: Client;
  /** What the tenant's keys sent over the last 30 days besides the history: the key page's usage. */
  traffic?: TrafficPlan[];
  /** Pull integrations (the plan must include kpi_api_integration), with a bearer token each. */
  integrations?: {
    name: string;
    path: string;
    schedule: PullSchedule;
    bindings: { kpi: KpiType; actual: string; target?: string }[];
  }[];
}

/**
 * Where the demo's pull integration fetches from: `npm run demo:source` serves it on this machine
 * (scripts/demo-source.ts). Without it running, its runs fail with `connection`, which the demo then
 * shows too.
 */
export const DEMO_SOURCE_PORT = 4010;
export const DEMO_SOURCE_URL = `http://127.0.0.1:${DEMO_SOURCE_PORT}`;

/** What a key's client sends on one day: a push, a dry run, or a row with the wrong `kpiType`. */
type Send = 'push' | 'dry-run' | 'wrong-type';

interface TrafficPlan {
  /** The seeded key that sends it, by name (a rolled key: the replacement). */
  key: string;
  client: Client;
  /** What it pushes: the newest history value of this KPI, else a value for the day before. */
  kpi: KpiType;
  /**
   * Its requests on one of the last 30 days, at these UTC hours: `day` counts days since 1970,
   * `weekday` is 0 on Sunday and `daysAgo` 0 today, so the pattern is the same on every run of a day.
   */
  sends: (day: number, weekday: number, daysAgo: number) => { hour: number; send: Send }[];
  /** What the service answers every push of this key, by design of the demo. */
  refused?: SeedRequest['refused'];
}

/** Days of traffic seeded: the key list's chart. */
const TRAFFIC_DAYS = 30;

/** Demo passwords for the local stack only; the README prints it too. */
export const DEMO_PASSWORD = 'demo-password-1';

const PUSH: Feature[] = ['kpi_push_measurement'];
const PUSH_AND_PULL: Feature[] = ['kpi_push_measurement', 'kpi_api_integration'];

/** Acme's KPIs, one per type; their histories below fit the names (revenue grows, a backlog shrinks). */
const ACME_KPIS: Record<
  KpiType,
  { name: string; unit: string; cadence?: KpiCadence; graceHours?: number; direction?: KpiDirection }
> = {
  SWOT_KPI: { name: 'Market share in DACH', unit: '%' },
  PESTLE_KPI: { name: 'Open regulatory findings', unit: 'findings' },
  THEME_KPI: { name: 'Employee engagement score', unit: 'points' },
  KPI_DEFINITION: { name: 'On-time delivery rate', unit: '%' },
  BSC_KPI: { name: 'Monthly recurring revenue', unit: 'EUR', cadence: 'monthly', graceHours: 24 },
  // A backlog improves as it shrinks: 100 open tickets against a goal of 80 is off track.
  ASIS_KPI: { name: 'Support ticket backlog', unit: 'tickets', direction: 'lower_is_better' },
  OKR_KEY_RESULT: { name: 'Tickets solved by self-service', unit: 'share' },
  PRODUCT_SCORECARD_KPI: { name: 'App store rating', unit: 'stars', cadence: 'monthly', graceHours: 72 },
};

/** Acme's revenue history: `npm run demo:push` continues its trend into the current month. */
export const ACME_REVENUE: HistoryPlan = {
  cadence: 'monthly',
  periods: 15,
  start: 182_000,
  growth: 0.35,
  withTarget: true,
  withForecast: true,
};

/** A KPI's period is the one its history's measurements stand for. */
export const HISTORY_PERIOD: Record<HistoryPlan['cadence'], KpiPeriod> = {
  weekly: 'week',
  monthly: 'month',
  quarterly: 'quarter',
};

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

/** The demo organizations; exported for the test that holds their KPIs' cadences to their periods. */
export const demoTenants: TenantPlan[] = [
  {
    name: 'Acme Corporation',
    plan: 'business',
    active: true,
    // Acme pulls as well as pushes; Globex's free plan does not include pull integrations.
    features: PUSH_AND_PULL,
    integrations: [
      {
        name: 'Support desk backlog',
        path: '/support-desk/stats',
        schedule: { every: 'hour' },
        bindings: [{ kpi: 'ASIS_KPI', actual: 'tickets.open', target: 'tickets.goal' }],
      },
    ],
    users: [
      { email: 'admin@acme.example', role: 'ADMIN' },
      { email: 'editor@acme.example', role: 'EDITOR' },
      { email: 'viewer@acme.example', role: 'VIEWER' },
    ],
    // One KPI of each type, in the order of KPI_TYPES, named as a company would name them.
    kpis: KPI_TYPES.map((type) => ({ type, ...ACME_KPIS[type] })),
    cycles: ['Strategy {year}', 'Strategy {year}'],
    // In the order they were made: the list shows keys oldest first.
    apiKeys: [
      { name: 'CI pipeline', state: 'active' },
      { name: 'Old cron job', state: 'revoked', revokedDaysAgo: 150 },
      { name: 'Expired integration', state: 'expired', createdDaysAgo: 120 },
      { name: 'Revenue cron', state: 'active', scope: ['BSC_KPI'], createdDaysAgo: 75 },
      { name: 'Deploy bot', state: 'rolled', createdDaysAgo: 45 },
    ],
    // Several months of data for the KPI page; SWOT and PESTLE stay empty (no cadence, so not quiet),
    // and the product scorecard, expected monthly, stopped five months ago: it is quiet, while the
    // revenue, expected monthly as its periods are, is receiving. Against their targets, the engagement score is on
    // track, the revenue at risk and the self-service share (an ambitious target) off track.
    history: {
      BSC_KPI: ACME_REVENUE,
      OKR_KEY_RESULT: {
        cadence: 'weekly',
        periods: 20,
        start: 0.12,
        growth: 5.5,
        withTarget: true,
        targetRatio: 1.25,
        decimals: 2,
      },
      THEME_KPI: {
        cadence: 'quarterly',
        periods: 6,
        start: 41,
        growth: 0.5,
        withTarget: true,
        targetRatio: 0.95,
      },
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
    historyClient: { sourceIp: '203.0.113.24', userAgent: 'kpi-push/0.1.0' },
    // The key page's demo: builds check their push with a dry run on weekdays (a row with the wrong
    // kpiType now and then); the revenue cron pushes the revenue every morning, and for nine days also
    // the self-service share, outside its key's scope; a job that still has the revoked key keeps trying.
    traffic: [
      {
        key: 'CI pipeline',
        client: { sourceIp: '203.0.113.24', userAgent: 'kpi-push/0.1.0' },
        kpi: 'OKR_KEY_RESULT',
        sends: (day, weekday) =>
          weekday === 0 || weekday === 6
            ? []
            : [
                ...Array.from({ length: 1 + ((day * 5) % 4) }, (_, i) => ({
                  hour: 8 + 2.5 * i,
                  send: 'dry-run' as const,
                })),
                ...(day % 6 === 1 ? [{ hour: 9.75, send: 'wrong-type' as const }] : []),
              ],
      },
      {
        key: 'Revenue cron',
        client: { sourceIp: '198.51.100.12', userAgent: 'curl/8.5.0' },
        kpi: 'BSC_KPI',
        sends: () => [{ hour: 5.25, send: 'push' }],
      },
      {
        key: 'Revenue cron',
        client: { sourceIp: '198.51.100.12', userAgent: 'curl/8.5.0' },
        kpi: 'OKR_KEY_RESULT',
        sends: (_day, _weekday, daysAgo) => (daysAgo < 9 ? [{ hour: 5.5, send: 'push' }] : []),
        refused: 'KPI_OUTSIDE_KEY_SCOPE',
      },
      {
        key: 'Old cron job',
        client: { sourceIp: '198.51.100.77', userAgent: 'python-requests/2.32.3' },
        kpi: 'BSC_KPI',
        sends: (day) => (day % 2 === 0 ? [{ hour: 2.25, send: 'push' }] : []),
        refused: 'API_KEY_REVOKED',
      },
    ],
  },
  {
    name: 'Globex (free plan)',
    plan: 'free',
    active: true,
    features: PUSH,
    users: [{ email: 'admin@globex.example', role: 'ADMIN' }],
    kpis: [
      { type: 'BSC_KPI', name: 'Monthly recurring revenue', unit: 'USD' },
      { type: 'OKR_KEY_RESULT', name: 'Deployments per week', unit: 'deployments' },
    ],
    cycles: ['FY {year}', 'FY {year}'],
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
    kpis: [{ type: 'KPI_DEFINITION', name: 'TPS reports filed', unit: 'reports' }],
    cycles: ['{year}'],
    apiKeys: [{ name: 'Reporting job', state: 'active' }],
    // Its job runs on weekdays, and every push is refused until the plan includes push.
    traffic: [
      {
        key: 'Reporting job',
        client: { sourceIp: '192.0.2.140', userAgent: 'kpi-push/0.1.0' },
        kpi: 'KPI_DEFINITION',
        sends: (_day, weekday, daysAgo) =>
          daysAgo < 7 && weekday !== 0 && weekday !== 6 ? [{ hour: 7, send: 'push' }] : [],
        refused: 'FEATURE_NOT_ENABLED',
      },
    ],
  },
  {
    name: 'Umbrella (inactive)',
    plan: 'business',
    active: false,
    features: PUSH,
    users: [{ email: 'admin@umbrella.example', role: 'ADMIN' }],
    kpis: [{ type: 'THEME_KPI', name: 'Incidents contained', unit: 'incidents' }],
    cycles: ['{year}'],
    apiKeys: [{ name: 'Reporting job', state: 'active' }],
  },
];

const iso = (ms: number) => new Date(ms).toISOString();

/** Sets timestamps of a seeded item (everything is written now; see `backdate` below). */
const setTimes = async ({ client, tableName }: Database, key: ItemKey, times: Record<string, number>) => {
  const entries = Object.entries(times);
  await client.send(
    new UpdateCommand({
      TableName: tableName,
      Key: key,
      UpdateExpression: `SET ${entries.map((_, i) => `#n${i} = :v${i}`).join(', ')}`,
      ExpressionAttributeNames: Object.fromEntries(entries.map(([name], i) => [`#n${i}`, name])),
      ExpressionAttributeValues: Object.fromEntries(entries.map(([, at], i) => [`:v${i}`, iso(at)])),
      ConditionExpression: 'attribute_exists(pk)',
    }),
  );
};

const seedTenant = async (db: Database, plan: TenantPlan, secretsKey?: string): Promise<SeedTenant> => {
  const now = Date.now();
  // A new tenant has no webhooks yet: the key changes below publish through the same path as the API's.
  const publish = createPublisher({ db, queue: webhookLocalQueue(db) });
  const year = new Date(now).getUTCFullYear();
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
  const kpis: SeedTenant['kpis'] = [];
  for (const input of plan.kpis) {
    const history = plan.history?.[input.type];
    const kpi = await createKpi(db, tenant.id, {
      ...input,
      ...(history ? { period: HISTORY_PERIOD[history.cadence] } : {}),
    });
    kpis.push({ id: kpi.id, type: kpi.type, name: kpi.name });
  }
  const strategicCycles = [];
  for (const [index, name] of plan.cycles.entries()) {
    const cycle = await createStrategicCycle(db, tenant.id, {
      name: name.replace('{year}', String(year + index)),
      startDate: `${year + index}-01-01`,
      endDate: `${year + index}-12-31`,
    });
    strategicCycles.push({ id: cycle.id, name: cycle.name });
  }
  const history = plan.history
    ? kpis.flatMap((kpi) => {
        const wanted = plan.history?.[kpi.type];
        return wanted ? historyMeasurements(kpi, wanted, now) : [];
      })
    : [];
  // The tenant signed up a month before its first push (or four months ago, without history); its
  // users, KPIs and cycles followed within a day, its first key the day after.
  const firstPush = Math.min(...history.map((entry) => entry.receivedAt), now - 90 * DAY_MS);
  const signedUp = firstPush - 30 * DAY_MS;

  const apiKeys: SeedTenant['apiKeys'] = [];
  /** The raw key of each name; a rolled key's name is its replacement's. */
  const keyByName = new Map<string, string>();
  const keyTimes: { key: ItemKey; times: Record<string, number> }[] = [];
  // The tenant's first ADMIN made its keys: the page shows who (the keys' audit trail).
  const adminUser = users.find((user) => user.role === 'ADMIN');
  const by: Actor | undefined = adminUser ? { type: 'user', userId: adminUser.id } : undefined;
  for (const [index, { name, state, scope, createdDaysAgo, revokedDaysAgo }] of plan.apiKeys.entries()) {
    // An expired key is seeded with an expiration date in the past, which only the library allows.
    const expiresAt = state === 'expired' ? new Date(now - DAY_MS).toISOString() : null;
    const kpiIds = scope ? kpis.filter((kpi) => scope.includes(kpi.type)).map((kpi) => kpi.id) : null;
    const created = await createApiKey(db, { tenantId: tenant.id, name, expiresAt, kpiIds, createdBy: by });
    if (state === 'revoked') await revokeApiKey(db, tenant.id, created.id, by, publish);
    const createdAt = Math.max(
      signedUp + 2 * DAY_MS + index * HOUR_MS,
      now - (createdDaysAgo ?? 1e5) * DAY_MS,
    );
    keyTimes.push({
      key: keys.apiKey(hashApiKey(created.key)),
      times: {
        createdAt,
        ...(state === 'revoked'
          ? { revokedAt: Math.max(createdAt + DAY_MS, now - (revokedDaysAgo ?? 1) * DAY_MS) }
          : {}),
      },
    });
    const status = state === 'revoked' ? 'revoked' : apiKeyStatus(created);
    const entry = {
      id: created.id,
      key: created.key,
      prefix: created.prefix,
      status,
      kpiIds,
      replacedBy: null,
    };
    keyByName.set(name, created.key);
    if (state !== 'rolled') {
      apiKeys.push(entry);
      continue;
    }
    // Rolled just now: both keys of a roll push until the old one's grace period ends tomorrow.
    const rolled = await rollApiKey(
      db,
      { tenantId: tenant.id, keyId: created.id, gracePeriodHours: 24, by },
      publish,
    );
    keyByName.set(name, rolled.created.key);
    apiKeys.push(
      { ...entry, replacedBy: rolled.created.id },
      { ...entry, id: rolled.created.id, key: rolled.created.key, prefix: rolled.created.prefix },
    );
  }
  const pushKey = apiKeys.find((key) => key.status === 'active')?.key;
  const requests = [
    ...(pushKey ? historyRequests(pushKey, plan.historyClient ?? DEFAULT_CLIENT, history) : []),
    ...(plan.traffic ?? []).flatMap((traffic) => trafficRequests(traffic, { kpis, keyByName, history }, now)),
  ];
  await pushTraffic(db, requests);

  // Everything above was written now. A demo reads better as an organization that signed up a while
  // ago and made each key before it pushed (not "created today, last used yesterday"), so the items'
  // timestamps are moved to that timeline; ids, history and `lastUsedAt` are already on it.
  await setTimes(db, keys.tenant(tenant.id), { createdAt: signedUp, updatedAt: signedUp });
  for (const [index, user] of users.entries()) {
    const at = signedUp + (index + 1) * HOUR_MS;
    await setTimes(db, keys.user(tenant.id, user.id), { createdAt: at, updatedAt: at });
  }
  for (const [index, kpi] of kpis.entries()) {
    await setTimes(db, keys.kpi(kpi.id), { createdAt: signedUp + DAY_MS + index * 60_000 });
  }
  for (const cycle of strategicCycles) {
    await setTimes(db, keys.strategicCycle(tenant.id, cycle.id), { createdAt: signedUp + DAY_MS });
  }
  for (const { key, times } of keyTimes) await setTimes(db, key, times);
  // Its pull integrations, made as the API makes them (the credentials sealed with the stack's secrets
  // key); a seed without the key (a test of the seed alone) has none.
  if (secretsKey) {
    const deps = {
      db,
      secrets: createPullSecretSeal(secretsKey),
      egress: createEgress({ allowLoopback: true }),
      tokens: createTokenCache(),
      tenants: createTenantCache({ ttlSeconds: 0, load: (id: string) => getTenant(db, id) }),
      local: true,
      publish,
    };
    for (const integration of plan.integrations ?? []) {
      await createIntegration(deps, {
        tenantId: tenant.id,
        createdBy: { type: 'user', userId: (users[0] as { id: string }).id },
        name: integration.name,
        url: `${DEMO_SOURCE_URL}${integration.path}`,
        auth: { type: 'bearer', token: 'demo-source-token' },
        schedule: integration.schedule,
        period: 'month',
        bindings: integration.bindings.map(({ kpi, ...paths }) => {
          const found = kpis.find((candidate) => candidate.type === kpi) as SeedTenant['kpis'][number];
          return { kpiId: found.id, kpiType: found.type, ...paths };
        }),
      });
    }
  }
  return { ...tenant, users, kpis, strategicCycles, apiKeys };
};

const DEFAULT_CLIENT: Client = { sourceIp: '203.0.113.10', userAgent: 'kpi-push/0.1.0' };

/** A traffic plan's requests over the last 30 days, none later than a minute ago. */
const trafficRequests = (
  traffic: TrafficPlan,
  seeded: {
    kpis: SeedTenant['kpis'];
    keyByName: Map<string, string>;
    history: { measurement: MeasurementInput }[];
  },
  now: number,
): SeedRequest[] => {
  const apiKey = seeded.keyByName.get(traffic.key);
  const kpi = seeded.kpis.find((candidate) => candidate.type === traffic.kpi);
  if (!apiKey || !kpi) throw new Error(`The seed has no key "${traffic.key}" or KPI ${traffic.kpi}`);
  const newest = seeded.history.findLast(({ measurement }) => measurement.kpiId === kpi.id)?.measurement;
  const today = Math.floor(now / DAY_MS);
  const requests: SeedRequest[] = [];
  for (let day = today - TRAFFIC_DAYS + 1; day <= today; day++) {
    const yesterday = new Date((day - 1) * DAY_MS).toISOString().slice(0, 10);
    const measurement: MeasurementInput = newest ?? {
      kpiId: kpi.id,
      kpiType: kpi.type,
      periodStart: yesterday,
      periodEnd: yesterday,
      actual: 40 + (day % 7),
      target: undefined,
      forecast: undefined,
    };
    // A row of another KPI type: the service cannot tell it from a KPI of another organization.
    const wrongType: MeasurementInput = {
      ...measurement,
      kpiType: measurement.kpiType === 'BSC_KPI' ? 'THEME_KPI' : 'BSC_KPI',
    };
    for (const { hour, send } of traffic.sends(day, new Date(day * DAY_MS).getUTCDay(), today - day)) {
      const at = day * DAY_MS + Math.round(hour * 3_600_000);
      if (at >= now - 60_000) continue;
      requests.push({
        at,
        apiKey,
        client: traffic.client,
        measurements: [send === 'wrong-type' ? wrongType : measurement],
        dryRun: send === 'dry-run',
        refused: send === 'wrong-type' ? 'NOT_FOUND' : traffic.refused,
      });
    }
  }
  return requests;
};

/** Writes the demo tenants through the same repository functions the service and admin CLI use. */
export const seedDemoData = async (
  db: Database,
  baseUrl: string,
  { secretsKey }: { secretsKey?: string } = {},
): Promise<SeedFile> => {
  const tenants = [];
  for (const plan of demoTenants) tenants.push(await seedTenant(db, plan, secretsKey));
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

/**
 * `npm run bench` (issue 11): the built handlers against the DynamoDB floor, cold start and bundles.
 *
 * 1. Bundles: every function built as `serverless package` builds it (bench/bundles.ts): minified and
 *    deflated size, its source map, load time over an empty file (median of fresh `node` processes).
 * 2. Counting pass: each scenario's handler, loaded from its bundle with DynamoDB behind a counting
 *    proxy (bench/capacity-proxy.ts): requests, sequential round trips, read and write units.
 * 3. Timing pass: the same bundles loaded again against DynamoDB Local directly, each operation
 *    interleaved with its floor (the minimal DynamoDB calls for it, issued with lib/db/dynamo in this
 *    process) and with the handler's own calls replayed directly (as captured in pass 2), so that
 *    machine noise hits all three alike. p50 and p99 of each; the ratios are the figures that count.
 * 4. First invocation of push single in fresh processes, against its warm p50.
 *
 * The floor is issued with the service's own DynamoDB client rather than the AWS SDK: the same HTTP
 * requests with less CPU per call, so the ratio is, if anything, stricter than against the SDK.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { generateApiKey, hashApiKey } from '../lib/api-keys/key-format';
import { hashPassword, verifyPassword } from '../lib/auth/passwords';
import { createApiKey } from '../lib/db/api-keys';
import { createDatabase, type Database } from '../lib/db/client';
import {
  BatchGetCommand,
  BatchWriteCommand,
  type DynamoDbCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
} from '../lib/db/dynamo';
import { keys } from '../lib/db/keys';
import { createKpi, type Kpi } from '../lib/db/kpis';
import { createStrategicCycle } from '../lib/db/strategic-cycles';
import { createTable } from '../lib/db/table';
import { createTenant } from '../lib/db/tenants';
import { createUser, normalizeEmail } from '../lib/db/users';
import { FEATURES, KPI_TYPES } from '../lib/domain';
import { freePort, startDynamoDbLocal } from '../scripts/processes';
import { apiEvent, type EventInput, lambdaContext } from '../tests/support/events';
import { type Bundle, buildBundle, loadTimes, median, quantile } from './bundles';
import { type ProxiedCall, roundGroups, roundsOf, startCapacityProxy } from './capacity-proxy';

const root = resolve(__dirname, '..');

export interface BenchOptions {
  /** Measured operations per scenario (≥ 300 for figures worth reporting). */
  operations: number;
  /** Warm-up operations per scenario, not measured (≥ 300: DynamoDB Local's JIT is slow to warm). */
  warmup: number;
  /** Fresh `node` processes per bundle for the load time, and for the first invocation. */
  loadRuns: number;
  /** Skip the timing pass (quick mode in `npm test`: the budgets that do not depend on time). */
  timing: boolean;
  /** Where the bundles are built (default `.esbuild-bench`); tests use a folder of their own. */
  outDir?: string;
  log?: (line: string) => void;
}

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

interface Scenario {
  name: string;
  fn: string;
  /** The event of the i-th operation. */
  event: (i: number) => APIGatewayProxyEvent;
  /** The status every operation must answer (a bench of failures measures nothing). */
  status: number;
  /** The minimal DynamoDB calls for the operation; absent: none (e.g. a malformed key). */
  floor?: (i: number) => Promise<unknown>;
  floorText: string;
  /** Loaded with the tenant cache off (push single, tenant cache cold). */
  coldTenantCache?: boolean;
  /** Measurements written per operation (write units per measurement). */
  measurements?: number;
  /** Operations in the timing pass, when fewer than the option (login: scrypt by design). */
  maxOperations?: number;
}

export interface ScenarioResult {
  scenario: string;
  function: string;
  floor: string;
  requests: number;
  roundTrips: number;
  readUnits: number;
  writeUnits: number;
  writeUnitsPerMeasurement: number | null;
  handlerP50Ms: number | null;
  handlerP99Ms: number | null;
  floorP50Ms: number | null;
  floorP99Ms: number | null;
  ownCallsP50Ms: number | null;
  /** handler p50 / floor p50. */
  ratio: number | null;
  /** handler p50 / its own calls replayed directly, p50. */
  ratioOwnCalls: number | null;
  operations: number;
}

export interface FunctionResult {
  function: string;
  bytes: number;
  zippedBytes: number;
  mapBytes: number;
  mapZippedBytes: number;
  loadMs: number | null;
  loadMsSourceMaps: number | null;
  largest: string;
}

export interface Budget {
  name: string;
  limit: number;
  measured: number | null;
  /** Time-dependent budgets are checked only by the full benchmark. */
  timed: boolean;
  ok: boolean;
}

export interface BenchResults {
  date: string;
  machine: string;
  node: string;
  options: Omit<BenchOptions, 'log' | 'outDir'>;
  scenarios: ScenarioResult[];
  functions: FunctionResult[];
  firstInvocation: { pushSingleMs: number | null; warmP50Ms: number | null; ratio: number | null };
  budgets: Budget[];
}

// ---------------------------------------------------------------------------------------------------
// Events

/** An API Gateway REST event as the tests build them (tests/support/events.ts), with its authorizer context. */
const event = (
  method: string,
  path: string,
  input: Pick<EventInput, 'headers' | 'body' | 'authorizer'> = {},
): APIGatewayProxyEvent => apiEvent({ method, path, ...input });

const context = () => lambdaContext();

// ---------------------------------------------------------------------------------------------------
// Data

interface Seeded {
  tenantId: string;
  email: string;
  password: string;
  passwordHash: string;
  userId: string;
  pushKey: string;
  pushKeyId: string;
  kpis: Kpi[];
  /** A tenant with 300 active keys, and its admin's access token (filled after login). */
  crowdedTenantId: string;
  crowdedEmail: string;
}

const PASSWORD = 'bench-password-1';

const seed = async (db: Database): Promise<Seeded> => {
  const features = [...FEATURES];
  const tenant = await createTenant(db, { name: 'Bench', plan: 'enterprise', features, active: true });
  const email = 'admin@bench.example';
  const passwordHash = await hashPassword(PASSWORD);
  const user = await createUser(db, { tenantId: tenant.id, email, role: 'ADMIN', passwordHash });
  const kpis: Kpi[] = [];
  for (let i = 0; i < 50; i++) {
    const type = KPI_TYPES[i % KPI_TYPES.length] as (typeof KPI_TYPES)[number];
    kpis.push(await createKpi(db, tenant.id, { type, name: `KPI ${i}` }));
  }
  for (let i = 0; i < 5; i++) {
    await createStrategicCycle(db, tenant.id, {
      name: `Cycle ${i}`,
      startDate: `202${i}-01-01`,
      endDate: `202${i}-12-31`,
    });
  }
  const pushKey = await createApiKey(db, { tenantId: tenant.id, name: 'bench push' });
  const crowded = await createTenant(db, { name: 'Crowded', plan: 'enterprise', features, active: true });
  const crowdedEmail = 'admin@crowded.example';
  await createUser(db, { tenantId: crowded.id, email: crowdedEmail, role: 'ADMIN', passwordHash });
  for (let i = 0; i < 300; i++) await createApiKey(db, { tenantId: crowded.id, name: `key ${i}` });
  return {
    tenantId: tenant.id,
    email,
    password: PASSWORD,
    passwordHash,
    userId: user.id,
    pushKey: pushKey.key,
    pushKeyId: pushKey.id,
    kpis,
    crowdedTenantId: crowded.id,
    crowdedEmail,
  };
};

/** A day of the i-th operation: distinct periods, so a batch of one KPI has 50 different ones. */
const day = (n: number) => new Date(Date.UTC(2020, 0, 1) + n * 86_400_000).toISOString().slice(0, 10);

const measurement = (kpi: Kpi, n: number, actual: number) => ({
  kpiId: kpi.id,
  kpiType: kpi.type,
  actual,
  target: 100,
  periodStart: day(n),
  periodEnd: day(n),
});

/** The stored form of a measurement, for the floor's writes: the same attributes the service stores. */
const measurementItem = (tenantId: string, kpi: Kpi, n: number, actual: number) => {
  const now = new Date().toISOString();
  return {
    ...keys.measurement(kpi.id, day(n), day(n)),
    type: 'MEASUREMENT',
    id: '01936f0e-7d5a-7c3e-9a41-3f2b8c9d0e1f',
    tenantId,
    kpiId: kpi.id,
    kpiType: kpi.type,
    actual,
    target: 100,
    periodStart: day(n),
    periodEnd: day(n),
    createdAt: now,
    updatedAt: now,
    receivedAt: now,
  };
};

// ---------------------------------------------------------------------------------------------------
// Scenarios

const scenariosOf = (
  db: Database,
  s: Seeded,
  tokens: { access: string; refresh: string; crowded: string },
) => {
  const { client, tableName } = db;
  const send = (command: DynamoDbCommand<unknown, unknown>) => client.send(command as never);
  const pushAuthorizer = { keyId: s.pushKeyId, tenantId: s.tenantId, status: 'active' };
  const pushHeaders = { 'x-api-key': s.pushKey };
  const keyItem = keys.apiKey(hashApiKey(s.pushKey));
  const kpi0 = s.kpis[0] as Kpi;
  const batch = (size: number, oneKpi: boolean) => (i: number) =>
    event('POST', '/api/integrations/push/measurements/batch', {
      headers: pushHeaders,
      authorizer: pushAuthorizer,
      body: {
        measurements: Array.from({ length: size }, (_, j) =>
          oneKpi ? measurement(kpi0, j, i) : measurement(s.kpis[j] as Kpi, 0, i),
        ),
      },
    });
  const batchFloor = (size: number, oneKpi: boolean) => async (i: number) => {
    const kpiKeys = oneKpi ? [keys.kpi(kpi0.id)] : s.kpis.slice(0, size).map((kpi) => keys.kpi(kpi.id));
    await send(new BatchGetCommand({ RequestItems: { [tableName]: { Keys: [keyItem, ...kpiKeys] } } }));
    const items = Array.from({ length: size }, (_, j) =>
      oneKpi ? measurementItem(s.tenantId, kpi0, j, i) : measurementItem(s.tenantId, s.kpis[j] as Kpi, 0, i),
    );
    const chunks: (typeof items)[] = [];
    for (let k = 0; k < items.length; k += 25) chunks.push(items.slice(k, k + 25));
    await Promise.all(
      chunks.map((chunk) =>
        send(
          new BatchWriteCommand({
            RequestItems: { [tableName]: chunk.map((Item) => ({ PutRequest: { Item } })) },
          }),
        ),
      ),
    );
  };
  const pushSingle = (i: number) =>
    event('POST', '/api/integrations/push/measurement', {
      headers: pushHeaders,
      authorizer: pushAuthorizer,
      body: measurement(kpi0, 1000, i),
    });
  const pushSingleFloor = async (i: number) => {
    await send(new GetCommand({ TableName: tableName, Key: keyItem, ConsistentRead: true }));
    await send(new PutCommand({ TableName: tableName, Item: measurementItem(s.tenantId, kpi0, 1000, i) }));
  };
  const createKey = (token: string, tenantId: string) => ({
    event: (i: number) =>
      event('POST', '/api/api-keys', {
        headers: { Authorization: `Bearer ${token}` },
        body: { name: `bench ${i}` },
      }),
    floor: async (i: number) => {
      await send(new GetCommand({ TableName: tableName, Key: keys.tenant(tenantId) }));
      await send(
        new PutCommand({
          TableName: tableName,
          Item: {
            ...keys.apiKey(`floor-${tenantId}-${i}`),
            ...keys.apiKeyIndex(tenantId, `floor-${i}`),
            name: `bench ${i}`,
          },
        }),
      );
    },
  });
  // Well-formed (valid checksum) but never issued: anyone can compute such a key.
  const unknownKey = generateApiKey();
  const scenarios: Scenario[] = [
    {
      name: 'login',
      fn: 'login',
      event: () => event('POST', '/api/auth/login', { body: { email: s.email, password: s.password } }),
      status: 200,
      floor: async () => {
        await send(new GetCommand({ TableName: tableName, Key: keys.email(normalizeEmail(s.email)) }));
        await verifyPassword(s.password, s.passwordHash);
      },
      floorText: 'GetItem(e-mail) + scrypt',
      maxOperations: 100,
    },
    {
      name: 'refresh',
      fn: 'refresh-token',
      event: () => event('POST', '/api/auth/refresh-token', { body: { refreshToken: tokens.refresh } }),
      status: 200,
      floor: () =>
        send(
          new BatchGetCommand({
            RequestItems: {
              [tableName]: { Keys: [keys.user(s.tenantId, s.userId), keys.tenant(s.tenantId)] },
            },
          }),
        ),
      floorText: 'BatchGetItem(user, tenant)',
    },
    {
      name: 'strategic cycles',
      fn: 'list-strategic-cycles',
      event: () =>
        event('GET', '/api/strategic-cycles', { headers: { Authorization: `Bearer ${tokens.access}` } }),
      status: 200,
      floor: () => {
        const { pk, skPrefix } = keys.strategicCyclesOfTenant(s.tenantId);
        return send(
          new QueryCommand({
            TableName: tableName,
            KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
            ExpressionAttributeValues: { ':pk': pk, ':sk': skPrefix },
            Limit: 101,
          }),
        );
      },
      floorText: 'Query',
    },
    {
      name: 'push single, tenant cached',
      fn: 'push-measurement',
      event: pushSingle,
      status: 200,
      floor: pushSingleFloor,
      floorText: 'GetItem(key) → PutItem(measurement)',
      measurements: 1,
    },
    {
      name: 'push single, tenant cache cold',
      fn: 'push-measurement',
      event: pushSingle,
      status: 200,
      floor: pushSingleFloor,
      floorText: 'GetItem(key) → PutItem(measurement)',
      coldTenantCache: true,
      measurements: 1,
    },
    {
      name: 'push batch of 50, one KPI',
      fn: 'push-measurements-batch',
      event: batch(50, true),
      status: 200,
      floor: batchFloor(50, true),
      floorText: 'BatchGetItem(2) → 2 × BatchWriteItem(25)',
      measurements: 50,
    },
    {
      name: 'push batch of 50, 50 KPIs of mixed types',
      fn: 'push-measurements-batch',
      event: batch(50, false),
      status: 200,
      floor: batchFloor(50, false),
      floorText: 'BatchGetItem(51) → 2 × BatchWriteItem(25)',
      measurements: 50,
    },
    ...[1, 10, 25].map(
      (size): Scenario => ({
        name: `push batch of ${size}, mixed`,
        fn: 'push-measurements-batch',
        event: batch(size, false),
        status: 200,
        floor: batchFloor(size, false),
        floorText: `BatchGetItem(${size + 1}) → BatchWriteItem(${size})`,
        measurements: size,
      }),
    ),
    {
      name: 'create API key, 0 keys before',
      fn: 'create-api-key',
      ...createKey(tokens.access, s.tenantId),
      status: 201,
      floorText: 'GetItem(tenant) → PutItem(key)',
    },
    {
      name: 'create API key, 300 active keys',
      fn: 'create-api-key',
      ...createKey(tokens.crowded, s.crowdedTenantId),
      status: 201,
      floorText: 'GetItem(tenant) → PutItem(key)',
    },
    {
      name: 'push refused: unknown key',
      fn: 'push-measurement',
      event: (i) =>
        event('POST', '/api/integrations/push/measurement', {
          headers: { 'x-api-key': unknownKey },
          body: measurement(kpi0, 1000, i),
        }),
      status: 401,
      floor: () =>
        send(
          new GetCommand({
            TableName: tableName,
            Key: keys.apiKey(hashApiKey(unknownKey)),
            ConsistentRead: true,
          }),
        ),
      floorText: 'GetItem(key)',
    },
    {
      name: 'push refused: malformed key',
      fn: 'push-measurement',
      event: (i) =>
        event('POST', '/api/integrations/push/measurement', {
          headers: { 'x-api-key': 'not-a-key' },
          body: measurement(kpi0, 1000, i),
        }),
      status: 401,
      floorText: '(none)',
    },
  ];
  return scenarios;
};

// ---------------------------------------------------------------------------------------------------
// Running

/** Loads a bundle as a fresh module with `env` applied (config is read at load, lib/runtime.ts). */
const loadHandler = (file: string, env: Record<string, string>): Handler => {
  Object.assign(process.env, env);
  delete require.cache[require.resolve(file)];
  return (require(file) as { handler: Handler }).handler;
};

/** A captured request, sent again as it was (the handler's own calls, replayed directly). */
const rawCommand = (call: ProxiedCall): DynamoDbCommand<unknown, unknown> =>
  ({
    operation: call.operation,
    marshall: () => JSON.parse(call.body),
    unmarshall: (body: unknown) => body,
  }) as unknown as DynamoDbCommand<unknown, unknown>;

const round2 = (x: number | null) => (x === null || Number.isNaN(x) ? null : Math.round(x * 100) / 100);

export const runBench = async (options: BenchOptions): Promise<BenchResults> => {
  const log = options.log ?? (() => undefined);
  const outDir = resolve(root, options.outDir ?? '.esbuild-bench');
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });

  log('building the functions…');
  const bundles = new Map<string, Bundle>();
  for (const file of readdirSync(join(root, 'functions'))
    .filter((f) => f.endsWith('.ts'))
    .sort()) {
    const name = basename(file, '.ts');
    bundles.set(name, await buildBundle(root, outDir, join(root, 'functions', file), name));
  }

  log('starting DynamoDB Local…');
  const dynamo = await startDynamoDbLocal(await freePort());
  const proxy = await startCapacityProxy(dynamo.endpoint);
  const tableName = 'strategy-service-bench';
  const db = createDatabase({ tableName, region: 'eu-central-1', endpoint: dynamo.endpoint });
  const savedEnv = { ...process.env };
  try {
    await createTable(db);
    log('seeding…');
    const seeded = await seed(db);
    const baseEnv = {
      TABLE_NAME: tableName,
      AWS_REGION: 'eu-central-1',
      AWS_ACCESS_KEY_ID: 'AKIDBENCH',
      AWS_SECRET_ACCESS_KEY: 'bench',
      JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
      LOG_LEVEL: 'silent',
      POWERTOOLS_METRICS_DISABLED: 'true',
      RATE_LIMIT_ENTERPRISE: '1000000000',
      TENANT_CACHE_TTL_SECONDS: '30',
    };
    const file = (fn: string) => (bundles.get(fn) as Bundle).outfile;
    const loadBoth = (fn: string, cold: boolean) => ({
      counted: loadHandler(file(fn), {
        ...baseEnv,
        DYNAMODB_ENDPOINT: proxy.endpoint,
        TENANT_CACHE_TTL_SECONDS: cold ? '0' : '30',
      }),
      direct: loadHandler(file(fn), {
        ...baseEnv,
        DYNAMODB_ENDPOINT: dynamo.endpoint,
        TENANT_CACHE_TTL_SECONDS: cold ? '0' : '30',
      }),
    });

    // Tokens for the JWT scenarios, from the login bundle itself.
    const login = loadBoth('login', false).direct;
    const loginAs = async (email: string) => {
      const answer = await login(
        event('POST', '/api/auth/login', { body: { email, password: PASSWORD } }),
        context(),
      );
      if (answer.statusCode !== 200)
        throw new Error(`bench login failed: ${answer.statusCode} ${answer.body}`);
      return JSON.parse(answer.body) as { token: string; refreshToken: string };
    };
    const admin = await loginAs(seeded.email);
    const crowded = await loginAs(seeded.crowdedEmail);
    const scenarios = scenariosOf(db, seeded, {
      access: admin.token,
      refresh: admin.refreshToken,
      crowded: crowded.token,
    });

    const results: ScenarioResult[] = [];
    let opIndex = 0;
    for (const scenario of scenarios) {
      log(`${scenario.name}…`);
      const { counted, direct } = loadBoth(scenario.fn, scenario.coldTenantCache === true);
      const invoke = async (handler: Handler, i: number) => {
        const answer = await handler(scenario.event(i), context());
        if (
          answer.statusCode !== scenario.status &&
          !(scenario.status === 200 && answer.statusCode === 201)
        ) {
          throw new Error(`${scenario.name}: ${answer.statusCode} ${answer.body}`);
        }
      };

      // Counting pass: the last of a few operations (the first warm the caches as on a warm container).
      let captured: ProxiedCall[] = [];
      for (let k = 0; k < 3; k++) {
        proxy.calls.splice(0);
        await invoke(counted, opIndex++);
        captured = [...proxy.calls];
      }
      const read = captured.reduce((sum, call) => sum + call.read, 0);
      const write = captured.reduce((sum, call) => sum + call.write, 0);
      const result: ScenarioResult = {
        scenario: scenario.name,
        function: scenario.fn,
        floor: scenario.floorText,
        requests: captured.length,
        roundTrips: roundsOf(captured),
        readUnits: read,
        writeUnits: write,
        writeUnitsPerMeasurement: scenario.measurements ? round2(write / scenario.measurements) : null,
        handlerP50Ms: null,
        handlerP99Ms: null,
        floorP50Ms: null,
        floorP99Ms: null,
        ownCallsP50Ms: null,
        ratio: null,
        ratioOwnCalls: null,
        operations: 0,
      };

      if (options.timing) {
        const groups = roundGroups(captured);
        // A replayed conditional write may fail its condition (the handler's own write already ran):
        // DynamoDB did the same work and answered in the same round trip, which is what is timed.
        const replay = (call: ProxiedCall) =>
          db.client.send(rawCommand(call)).catch((error: { name?: string }) => {
            if (error.name !== 'ConditionalCheckFailedException') throw error;
          });
        const own = async () => {
          for (const group of groups) await Promise.all(group.map(replay));
        };
        const operations = Math.min(options.operations, scenario.maxOperations ?? options.operations);
        const warmup = Math.min(options.warmup, scenario.maxOperations ?? options.warmup);
        const samples = { handler: [] as number[], floor: [] as number[], own: [] as number[] };
        const timed = async (f: () => Promise<unknown>) => {
          const start = performance.now();
          await f();
          return performance.now() - start;
        };
        for (let k = 0; k < warmup + operations; k++) {
          const i = opIndex++;
          // Interleaved, in a rotating order, so that noise and ordering effects hit all three alike.
          const steps: [keyof typeof samples, () => Promise<unknown>][] = [
            ['handler', () => invoke(direct, i)],
            ['floor', () => (scenario.floor ? scenario.floor(i) : Promise.resolve())],
            ['own', own],
          ];
          const order = [...steps.slice(k % 3), ...steps.slice(0, k % 3)];
          for (const [label, step] of order) {
            const ms = await timed(step);
            if (k >= warmup) samples[label].push(ms);
          }
        }
        const handlerP50 = median(samples.handler);
        const floorP50 = scenario.floor ? median(samples.floor) : null;
        const ownP50 = captured.length > 0 ? median(samples.own) : null;
        Object.assign(result, {
          handlerP50Ms: round2(handlerP50),
          handlerP99Ms: round2(quantile(samples.handler, 0.99)),
          floorP50Ms: round2(floorP50),
          floorP99Ms: scenario.floor ? round2(quantile(samples.floor, 0.99)) : null,
          ownCallsP50Ms: round2(ownP50),
          ratio: floorP50 ? round2(handlerP50 / floorP50) : null,
          ratioOwnCalls: ownP50 ? round2(handlerP50 / ownP50) : null,
          operations,
        });
      }
      results.push(result);
    }

    // Load times and the first invocation, in fresh processes.
    const functions: FunctionResult[] = [...bundles.values()].map((bundle) => ({
      function: bundle.label,
      bytes: bundle.bytes,
      zippedBytes: bundle.zippedBytes,
      mapBytes: bundle.mapBytes,
      mapZippedBytes: bundle.mapZippedBytes,
      loadMs: null,
      loadMsSourceMaps: null,
      largest: Object.entries(bundle.byPackage)
        .sort(([, a], [, b]) => b - a)
        .slice(0, 4)
        .map(([name, bytes]) => `${name} ${(bytes / 1000).toFixed(1)}`)
        .join(', '),
    }));
    const firstInvocation = {
      pushSingleMs: null as number | null,
      warmP50Ms: null as number | null,
      ratio: null as number | null,
    };
    if (options.timing) {
      log('load times…');
      const empty = join(outDir, 'empty.js');
      writeFileSync(empty, '');
      const files = functions.map((f) => file(f.function));
      const plain = loadTimes(files, empty, options.loadRuns);
      const withMaps = loadTimes(files, empty, options.loadRuns, true);
      for (const f of functions) {
        f.loadMs = round2(plain.overEmpty.get(file(f.function)) ?? null);
        f.loadMsSourceMaps = round2(withMaps.overEmpty.get(file(f.function)) ?? null);
      }
      log('first invocations…');
      const firsts: number[] = [];
      for (let k = 0; k < options.loadRuns; k++) {
        firsts.push(
          firstPushInvocation(
            file('push-measurement'),
            { ...baseEnv, DYNAMODB_ENDPOINT: dynamo.endpoint },
            seeded,
            opIndex++,
          ),
        );
      }
      const warm = results.find((r) => r.scenario === 'push single, tenant cached')?.handlerP50Ms ?? null;
      firstInvocation.pushSingleMs = round2(median(firsts));
      firstInvocation.warmP50Ms = warm;
      firstInvocation.ratio = warm ? round2(median(firsts) / warm) : null;
    }

    return {
      date: new Date().toISOString(),
      machine: machineText(),
      node: process.version,
      options: {
        operations: options.operations,
        warmup: options.warmup,
        loadRuns: options.loadRuns,
        timing: options.timing,
      },
      scenarios: results,
      functions,
      firstInvocation,
      budgets: budgetsOf(results, functions, firstInvocation),
    };
  } finally {
    for (const name of Object.keys(process.env)) if (!(name in savedEnv)) delete process.env[name];
    Object.assign(process.env, savedEnv);
    db.client.destroy();
    await proxy.close();
    await dynamo.stop();
  }
};

/** A fresh `node` loads the push bundle and answers one push: the time of that first invocation. */
const firstPushInvocation = (bundle: string, env: Record<string, string>, s: Seeded, i: number): number => {
  const kpi = s.kpis[0] as Kpi;
  const pushEvent = event('POST', '/api/integrations/push/measurement', {
    headers: { 'x-api-key': s.pushKey },
    authorizer: { keyId: s.pushKeyId, tenantId: s.tenantId, status: 'active' },
    body: measurement(kpi, 2000, i),
  });
  const script = [
    `const { handler } = require(${JSON.stringify(bundle)});`,
    `const event = ${JSON.stringify(pushEvent)};`,
    `const context = { getRemainingTimeInMillis: () => 60000, awsRequestId: 'first', functionName: 'bench' };`,
    'const t = performance.now();',
    'handler(event, context).then((r) => { const ms = performance.now() - t;',
    '  if (r.statusCode >= 300) { console.error(r.body); process.exit(1); }',
    '  process.stdout.write(String(ms)); process.exit(0); });',
  ].join('\n');
  return Number(
    execFileSync(process.execPath, ['-e', script], {
      env: { PATH: process.env.PATH, ...env },
      encoding: 'utf8',
    }),
  );
};

const machineText = () => {
  const os = require('node:os') as typeof import('node:os');
  const load = os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ');
  return `${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, shared; load average ${load} at the end`;
};

// ---------------------------------------------------------------------------------------------------
// Budgets (issue 11; round trips and units of issue 10)

const scenarioBy = (results: ScenarioResult[], name: string) => results.find((r) => r.scenario === name);

export const budgetsOf = (
  results: ScenarioResult[],
  functions: FunctionResult[],
  first: BenchResults['firstInvocation'],
): Budget[] => {
  const budgets: Budget[] = [];
  const add = (name: string, limit: number, measured: number | null | undefined, timed: boolean) =>
    budgets.push({
      name,
      limit,
      measured: measured ?? null,
      timed,
      ok: measured != null && measured <= limit,
    });
  const ratio = (label: string, scenario: string, limit: number) =>
    add(`${label}: handler/floor p50`, limit, scenarioBy(results, scenario)?.ratio, true);
  ratio('push single', 'push single, tenant cached', 1.6);
  add(
    'push single: handler/own calls p50',
    1.15,
    scenarioBy(results, 'push single, tenant cached')?.ratioOwnCalls,
    true,
  );
  ratio('push batch of 50 (mixed)', 'push batch of 50, 50 KPIs of mixed types', 1.3);
  ratio('refresh', 'refresh', 1.2);
  ratio('strategic cycles', 'strategic cycles', 1.2);
  ratio('create key', 'create API key, 0 keys before', 1.5);
  for (const f of functions) {
    add(`${f.function}: bundle KB (minified)`, 100, round2(f.bytes / 1000), false);
    if (f.loadMs !== null) add(`${f.function}: load ms over empty`, 40, f.loadMs, true);
  }
  add('push single: first invocation / warm p50', 2, first.ratio, true);
  // Round trips and units do not depend on time: the quick mode in npm test checks these.
  const rounds = (scenario: string, limit: number) =>
    add(`${scenario}: sequential round trips`, limit, scenarioBy(results, scenario)?.roundTrips, false);
  rounds('push single, tenant cached', 2);
  rounds('push batch of 50, 50 KPIs of mixed types', 2);
  rounds('refresh', 1);
  rounds('strategic cycles', 1);
  rounds('create API key, 0 keys before', 2);
  rounds('create API key, 300 active keys', 2);
  add('push single: write units', 3, scenarioBy(results, 'push single, tenant cached')?.writeUnits, false);
  add(
    'push batch of 50 (mixed): write units per measurement',
    1.04,
    scenarioBy(results, 'push batch of 50, 50 KPIs of mixed types')?.writeUnitsPerMeasurement,
    false,
  );
  add(
    'create key, 300 active keys: write units',
    2,
    scenarioBy(results, 'create API key, 300 active keys')?.writeUnits,
    false,
  );
  add(
    'push refused, unknown key: write units',
    0,
    scenarioBy(results, 'push refused: unknown key')?.writeUnits,
    false,
  );
  add(
    'push refused, malformed key: requests',
    0,
    scenarioBy(results, 'push refused: malformed key')?.requests,
    false,
  );
  return budgets;
};

/**
 * Cost of a million operations on AWS list prices (us-east-1, the README's "Cost"): API Gateway REST
 * $3.50 and Lambda $0.20 per million requests, Lambda arm64 at 1024 MB $0.0000133334 per GB-second of
 * the handler's p50 here (an upper bound: this machine is slower than Lambda's), on-demand DynamoDB
 * $0.125 per million read and $0.625 per million write request units. Login and refresh are not behind
 * the push authorizer; a push adds the authorizer's run once per key per 5 minutes (not counted).
 */
export const costPerMillionUsd = (r: ScenarioResult): number | null =>
  r.handlerP50Ms === null
    ? null
    : Math.round(
        (3.5 +
          0.2 +
          (r.handlerP50Ms / 1000) * 1 * 0.0000133334 * 1e6 +
          r.readUnits * 0.125 +
          r.writeUnits * 0.625) *
          100,
      ) / 100;

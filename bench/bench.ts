/**
 * `npm run bench`: the built handlers against their own DynamoDB calls, the floor, and cold start.
 *
 * 1. Bundles: every function built as `serverless package` builds it (bench/bundles.ts), once with the
 *    AWS SDK bundled and once with it left to the runtime: size, the service's own code in it (lib/ and
 *    functions/). The deployed functions come from `serverless package` itself: each zip's size and
 *    files, and the load time of its handler unpacked, in fresh `node` processes with the environment
 *    the template gives it (NODE_OPTIONS included), also without `--enable-source-maps`; all interleaved
 *    with the external-SDK builds and the minimal handler (bench/minimal-handler.ts), under the same
 *    NODE_OPTIONS.
 * 2. Counting pass: each scenario's handler, loaded from its bundle (as serverless.yml deploys the SDK),
 *    with the call recorder of bench/capacity.ts on the bundle's own DynamoDB client: requests,
 *    sequential round trips, read and write units.
 * 3. Timing pass: each operation interleaved with the floor (the minimal DynamoDB calls for it) and
 *    with the handler's own calls issued again directly through the same DocumentClient, so that
 *    machine noise hits all three alike. p50 and p99; the ratios are the figures that count.
 * 4. First invocation of push single in fresh processes, against its warm p50.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { generateApiKey, hashApiKey, identificationPrefix } from '../lib/api-keys/key-format';
import { createApiKey } from '../lib/api-keys/service';
import { hashPassword, verifyPassword } from '../lib/auth/passwords';
import { apiKeys } from '../lib/db/api-keys';
import { createDatabase, type Database } from '../lib/db/client';
import { INDEX_SHARDS, keys } from '../lib/db/keys';
import { createKpi } from '../lib/db/kpis';
import { measurements } from '../lib/db/measurements';
import { createStrategicCycle } from '../lib/db/strategic-cycles';
import { createTenant } from '../lib/db/tenants';
import { createUser, normalizeEmail } from '../lib/db/users';
import { KPI_TYPES, type Kpi } from '../lib/domain/kpi';
import { FEATURES } from '../lib/domain/plan';
import { uuidv7 } from '../lib/ids';
import { apiEvent, type EventInput, lambdaContext } from '../scripts/local/events';
import { freePort, startDynamoDbLocal } from '../scripts/local/processes';
import { createTable } from '../scripts/local/table';
import {
  type Bundle,
  buildBundle,
  deployedSdkMode,
  type Loadable,
  lambdaEnv,
  loadEnv,
  loadTimes,
  median,
  packageFunctions,
  quantile,
  type SdkMode,
  withoutSourceMaps,
} from './bundles';
import { type BurstResults, measureBurst } from './burst';
import { type Call, capacityOf, recordCalls, roundGroups, roundsOf } from './capacity';
import { measurePull, type PullResults } from './pull';

const root = resolve(__dirname, '..');

export interface BenchOptions {
  /** Measured operations per scenario (≥ 300 for figures worth reporting). */
  operations: number;
  /** Warm-up operations per scenario, not measured (≥ 300: DynamoDB Local's JIT is slow to warm). */
  warmup: number;
  /** Fresh `node` processes per bundle for the load time, and for the first invocation. */
  loadRuns: number;
  /** Skip the timing pass and the other SDK mode (quick mode in `npm test`: what does not depend on time). */
  timing: boolean;
  /** With `timing`: false times only the functions' loads and first invocations (`--loads`), not the scenarios. */
  scenarios?: boolean;
  /** Where the bundles are built (default `.esbuild-bench`); tests use a folder of their own. */
  outDir?: string;
  /**
   * Another checkout of the service (with its node_modules) to time against this one: the scenarios
   * of the handler/own-calls budget run both builds interleaved in one process, on one table, so the
   * machine's noise hits before and after alike. The other scenarios are then only counted.
   */
  before?: string | undefined;
  log?: (line: string) => void;
}

type Handler = (event: APIGatewayProxyEvent, context: Context) => Promise<APIGatewayProxyResult>;

/** What a bench build of a function exports: its handler, its DynamoDB client, and commands to replay with. */
interface BenchModule {
  handler: Handler;
  db: Database;
  commands: Record<string, new (input: never) => unknown>;
}

interface Scenario {
  name: string;
  fn: string;
  /** The event of the i-th operation. */
  event: (i: number) => APIGatewayProxyEvent;
  /** The status every operation must answer (a bench of failures measures nothing). */
  status: number;
  /** The minimal DynamoDB calls for the operation, through the handler's client; absent: none. */
  floor?: (module: BenchModule, i: number) => Promise<unknown>;
  floorText: string;
  /** Loaded with the tenant cache off (push single, tenant cache cold). */
  coldTenantCache?: boolean;
  /** Load the function with no session cache: every JWT request reads its session, user and tenant. */
  coldSessionCache?: boolean;
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
  ownCallsP50Ms: number | null;
  /** handler p50 / floor p50. */
  ratio: number | null;
  /** handler p50 / its own calls issued directly, p50. */
  ratioOwnCalls: number | null;
  /** With `before`: the other checkout's handler, timed interleaved with this one's. */
  before: { handlerP50Ms: number; ownCallsP50Ms: number; ratioOwnCalls: number } | null;
  operations: number;
}

export interface FunctionResult {
  function: string;
  mode: SdkMode;
  bytes: number;
  ownBytes: number;
  /** The bundle alone, deflated as a zip entry stores it. */
  zippedBytes: number;
  /** The deployed mode, with the timing pass: the zip `serverless package` made, as uploaded. */
  packagedZipBytes: number | null;
  /** Its source map, unpacked (0: none in the zip). */
  mapBytes: number | null;
  /** Deployed: the packaged handler with the deployed environment; external: under the same NODE_OPTIONS. */
  loadMs: number | null;
  /** Deployed: the same, without `--enable-source-maps`. */
  loadNoSourceMapsMs: number | null;
  /** Load time over the minimal handler's in the same mode. */
  loadRatio: number | null;
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
  /** How serverless.yml deploys the SDK; the timing and the budgets are of this mode. */
  deployedMode: SdkMode;
  options: Omit<BenchOptions, 'log' | 'outDir' | 'before'>;
  /** The checkout timed against this one, when there was one. */
  before: string | null;
  scenarios: ScenarioResult[];
  functions: FunctionResult[];
  minimal: Record<SdkMode, { bytes: number; loadMs: number | null } | undefined>;
  firstInvocation: { pushSingleMs: number | null; warmP50Ms: number | null; ratio: number | null };
  /** Why push single makes more calls than the floor, call by call. */
  beyondFloor: string[];
  /** Pull integrations: a scheduler pass over 1,000 of which 10 are due, and one scheduled run. */
  pull: PullResults;
  /** 150 concurrent pushes with one Free key, through one warm push container; null with `--loads`. */
  burst: BurstResults | null;
  budgets: Budget[];
}

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
  crowdedEmail: string;
  crowdedTenantId: string;
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
    // Daily KPIs: the bench pushes one day per measurement (`day(n)`), one whole period each.
    kpis.push(await createKpi(db, tenant.id, { type, name: `KPI ${i}`, period: 'day' }));
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
    crowdedEmail,
    crowdedTenantId: crowded.id,
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

/** A key as the create-key floor writes it: the service's own item (its entity's codec), never used. */
const floorKey = (tenantId: string, i: number) => ({
  id: uuidv7(),
  keyHash: `floor-${tenantId}-${i}`,
  tenantId,
  name: `bench ${i}`,
  prefix: 'skm_flor',
  createdAt: new Date().toISOString(),
  expiresAt: null,
  lastUsedAt: null,
  revokedAt: null,
  kpiIds: null,
  allowedSources: null,
  createdBy: null,
  revokedBy: null,
  rolledAt: null,
  rolledBy: null,
  replacedBy: null,
  replaces: null,
});

/** The stored form of a measurement, for the floor's writes: the service's own item (its entity's codec). */
const measurementItem = (s: Seeded, kpi: Kpi, n: number, actual: number) => {
  const now = new Date().toISOString();
  return measurements.toItem({
    id: '01936f0e-7d5a-7c3e-9a41-3f2b8c9d0e1f',
    tenantId: s.tenantId,
    kpiId: kpi.id,
    kpiType: kpi.type,
    actual,
    target: 100,
    forecast: null,
    periodStart: day(n),
    periodEnd: day(n),
    createdAt: now,
    updatedAt: now,
    receivedAt: now,
    apiKeyId: s.pushKeyId,
    apiKeyPrefix: identificationPrefix(s.pushKey),
    integrationId: null,
    integrationName: null,
    replaced: null,
  });
};

// ---------------------------------------------------------------------------------------------------
// Scenarios

const event = (
  method: string,
  path: string,
  input: Pick<EventInput, 'headers' | 'body' | 'authorizer'> = {},
) => apiEvent({ method, path, ...input });

const send = ({ db, commands }: BenchModule, command: string, input: Record<string, unknown>) =>
  db.client.send(
    new (commands[command] as new (input: unknown) => never)({ TableName: db.tableName, ...input }),
  );

const scenariosOf = (s: Seeded, tokens: { access: string; refresh: string; crowded: string }): Scenario[] => {
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
  const batchFloor = (size: number, oneKpi: boolean) => async (module: BenchModule, i: number) => {
    const kpiKeys = oneKpi ? [keys.kpi(kpi0.id)] : s.kpis.slice(0, size).map((kpi) => keys.kpi(kpi.id));
    await module.db.client.send(
      new (module.commands.BatchGetCommand as new (input: unknown) => never)({
        RequestItems: { [module.db.tableName]: { Keys: [keyItem, ...kpiKeys] } },
      }),
    );
    const items = Array.from({ length: size }, (_, j) =>
      oneKpi ? measurementItem(s, kpi0, j, i) : measurementItem(s, s.kpis[j] as Kpi, 0, i),
    );
    const chunks: (typeof items)[] = [];
    for (let k = 0; k < items.length; k += 25) chunks.push(items.slice(k, k + 25));
    await Promise.all(
      chunks.map((chunk) =>
        module.db.client.send(
          new (module.commands.BatchWriteCommand as new (input: unknown) => never)({
            RequestItems: { [module.db.tableName]: chunk.map((Item) => ({ PutRequest: { Item } })) },
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
  const pushSingleFloor = async (module: BenchModule, i: number) => {
    await send(module, 'GetCommand', { Key: keyItem, ConsistentRead: true });
    await send(module, 'PutCommand', { Item: measurementItem(s, kpi0, 1000, i) });
  };
  /** The strategic cycles' floor: the tenant's cycles, one Query of a page. */
  const cyclesFloor = (module: BenchModule) => {
    const { pk, skPrefix } = keys.strategicCyclesOfTenant(s.tenantId);
    return send(module, 'QueryCommand', {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sk)',
      ExpressionAttributeValues: { ':pk': pk, ':sk': skPrefix },
      Limit: 101,
    });
  };
  const createKey = (token: string, tenantId: string) => ({
    event: (i: number) =>
      event('POST', '/api/api-keys', {
        headers: { Authorization: `Bearer ${token}` },
        body: { name: `bench ${i}` },
      }),
    floor: async (module: BenchModule, i: number) => {
      await send(module, 'GetCommand', { Key: keys.tenant(tenantId) });
      await send(module, 'PutCommand', { Item: apiKeys.toItem(floorKey(tenantId, i)) });
    },
  });
  // Well-formed (valid checksum) but never issued: anyone can compute such a key.
  const unknownKey = generateApiKey();
  return [
    {
      name: 'login',
      fn: 'login',
      event: () => event('POST', '/api/auth/login', { body: { email: s.email, password: s.password } }),
      status: 200,
      floor: async (module) => {
        await send(module, 'GetCommand', { Key: keys.email(normalizeEmail(s.email)) });
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
      floor: (module) =>
        module.db.client.send(
          new (module.commands.BatchGetCommand as new (input: unknown) => never)({
            RequestItems: {
              [module.db.tableName]: { Keys: [keys.user(s.tenantId, s.userId), keys.tenant(s.tenantId)] },
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
      floor: cyclesFloor,
      floorText: 'Query',
    },
    {
      // What revocable access tokens cost a read: the session check of a request that finds no
      // cached state (a session's first request in a container, then once per cache period).
      name: 'strategic cycles, session not cached',
      fn: 'list-strategic-cycles',
      event: () =>
        event('GET', '/api/strategic-cycles', { headers: { Authorization: `Bearer ${tokens.access}` } }),
      status: 200,
      coldSessionCache: true,
      floor: cyclesFloor,
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
      floor: (module) =>
        send(module, 'GetCommand', { Key: keys.apiKey(hashApiKey(unknownKey)), ConsistentRead: true }),
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
};

/** Why push single makes more calls than the floor (GetItem of the key, then PutItem). */
const BEYOND_FLOOR = [
  'Round 1 reads the key and the KPI in one BatchGetItem (the floor reads the key only): the KPI must be the key tenant’s (spec 5.2.4), and reading it with the key costs no round trip.',
  'Round 1 also counts the request on the key’s usage item (UpdateItem ADD), in parallel: the exact per-key rate limit with RateLimit-* headers.',
  'Round 2 writes the measurement with UpdateItem rather than PutItem, to keep its id and createdAt when it replaces one (if_not_exists), without a read.',
  'Round 2 also sets the key’s lastUsedAt on its usage item (spec 2.7, 5.2.5), in parallel.',
];

// ---------------------------------------------------------------------------------------------------
// Running

/**
 * The entry of a function's bench build: the function itself, plus its DynamoDB client and the
 * SDK's command classes, so that calls can be recorded on, and issued through, that very client.
 */
const benchEntry = (fn: string, at = root) => ({
  contents: [
    `export { handler } from './functions/${fn}';`,
    "export { db } from './lib/runtime';",
    "import { BatchWriteItemCommand } from '@aws-sdk/client-dynamodb';",
    "import { BatchGetCommand, BatchWriteCommand, DeleteCommand, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';",
    'export const commands = { BatchGetCommand, BatchWriteCommand, DeleteCommand, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand, BatchWriteItemCommand };',
  ].join('\n'),
  resolveDir: at,
});

/** The scenarios of the handler/own-calls budget: what a `before` checkout is timed against. */
const COMPARED = new Set([
  'push single, tenant cached',
  'push batch of 50, 50 KPIs of mixed types',
  'refresh',
  'strategic cycles',
  'create API key, 0 keys before',
]);

/** The DocumentClient command that sends each SDK command, for issuing a recorded call again. */
const REPLAY: Record<string, string> = {
  GetItemCommand: 'GetCommand',
  PutItemCommand: 'PutCommand',
  UpdateItemCommand: 'UpdateCommand',
  DeleteItemCommand: 'DeleteCommand',
  QueryCommand: 'QueryCommand',
  BatchGetItemCommand: 'BatchGetCommand',
  TransactWriteItemsCommand: 'TransactWriteCommand',
  // The service converts and sends multi-item writes itself (lib/db/batch.ts): the same command again.
  BatchWriteItemCommand: 'BatchWriteItemCommand',
};

/** Loads a bench build as a fresh module with `env` applied (config is read at load, lib/runtime.ts). */
const loadModule = (file: string, env: Record<string, string>): BenchModule => {
  Object.assign(process.env, env);
  delete require.cache[require.resolve(file)];
  return require(file) as BenchModule;
};

const round2 = (x: number | null) => (x === null || Number.isNaN(x) ? null : Math.round(x * 100) / 100);

const functionNames = () =>
  readdirSync(join(root, 'functions'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => basename(f, '.ts'))
    .sort();

/** The environment the bench builds load with: the bench's table, no logs or metrics, no enterprise limit. */
const benchEnv = (tableName: string, endpoint: string) => ({
  TABLE_NAME: tableName,
  DYNAMODB_ENDPOINT: endpoint,
  AWS_REGION: 'eu-central-1',
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret',
  LOG_LEVEL: 'silent',
  POWERTOOLS_METRICS_DISABLED: 'true',
  RATE_LIMIT_ENTERPRISE: '1000000000',
  TENANT_CACHE_TTL_SECONDS: '30',
});

/** `--burst`: the burst alone, with the push function's bench build, on a DynamoDB Local of its own. */
export const runBurst = async (outDirOption?: string): Promise<BurstResults> => {
  const outDir = resolve(root, outDirOption ?? '.esbuild-bench-burst');
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const built = await buildBundle(
    root,
    outDir,
    benchEntry('push-measurement'),
    'push-measurement.bench',
    deployedSdkMode(root),
  );
  const dynamo = await startDynamoDbLocal(await freePort());
  const tableName = 'strategy-service-bench-burst';
  const db = createDatabase({ tableName, region: 'eu-central-1', endpoint: dynamo.endpoint });
  const savedEnv = { ...process.env };
  try {
    await createTable(db);
    return await measureBurst(db, loadModule(built.outfile, benchEnv(tableName, dynamo.endpoint)));
  } finally {
    for (const name of Object.keys(process.env)) if (!(name in savedEnv)) delete process.env[name];
    Object.assign(process.env, savedEnv);
    db.client.destroy();
    await dynamo.stop();
    rmSync(outDir, { recursive: true, force: true });
  }
};

export const runBench = async (options: BenchOptions): Promise<BenchResults> => {
  const log = options.log ?? (() => undefined);
  const outDir = resolve(root, options.outDir ?? '.esbuild-bench');
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const deployedMode = deployedSdkMode(root);
  const modes: SdkMode[] = options.timing ? ['bundled', 'external'] : [deployedMode];

  log(`building the functions (${modes.join(', ')})…`);
  const bundles: Bundle[] = [];
  const minimal = new Map<SdkMode, Bundle>();
  for (const mode of modes) {
    for (const name of functionNames()) {
      bundles.push(await buildBundle(root, outDir, join(root, 'functions', `${name}.ts`), name, mode));
    }
    minimal.set(
      mode,
      await buildBundle(root, outDir, join(root, 'bench', 'minimal-handler.ts'), 'minimal', mode),
    );
  }
  const benchBuilds = new Map<string, string>();
  const benchFile = async (fn: string, at = root) => {
    const label = `${fn}.${at === root ? 'bench' : 'before.bench'}`;
    if (!benchBuilds.has(label)) {
      const built = await buildBundle(at, outDir, benchEntry(fn, at), label, deployedMode);
      benchBuilds.set(label, built.outfile);
    }
    return benchBuilds.get(label) as string;
  };
  const before = options.before ? resolve(options.before) : undefined;

  log('starting DynamoDB Local…');
  const dynamo = await startDynamoDbLocal(await freePort());
  const tableName = 'strategy-service-bench';
  const db = createDatabase({ tableName, region: 'eu-central-1', endpoint: dynamo.endpoint });
  const savedEnv = { ...process.env };
  try {
    await createTable(db);
    log('seeding…');
    const seeded = await seed(db);
    const baseEnv = benchEnv(tableName, dynamo.endpoint);
    const load = async (fn: string, cold = false, coldSession = false, at = root) =>
      loadModule(await benchFile(fn, at), {
        ...baseEnv,
        TENANT_CACHE_TTL_SECONDS: cold ? '0' : '30',
        SESSION_CACHE_TTL_SECONDS: coldSession ? '0' : '30',
      });

    // Tokens for the JWT scenarios, from the login function itself.
    const login = (await load('login')).handler;
    const loginAs = async (email: string) => {
      const answer = await login(
        event('POST', '/api/auth/login', { body: { email, password: PASSWORD } }),
        lambdaContext(),
      );
      if (answer.statusCode !== 200)
        throw new Error(`bench login failed: ${answer.statusCode} ${answer.body}`);
      return JSON.parse(answer.body) as { token: string; refreshToken: string };
    };
    const admin = await loginAs(seeded.email);
    const crowded = await loginAs(seeded.crowdedEmail);
    const scenarios = scenariosOf(seeded, {
      access: admin.token,
      refresh: admin.refreshToken,
      crowded: crowded.token,
    });

    const results: ScenarioResult[] = [];
    let opIndex = 0;
    for (const scenario of scenarios) {
      log(`${scenario.name}…`);
      const module = await load(
        scenario.fn,
        scenario.coldTenantCache === true,
        scenario.coldSessionCache === true,
      );
      const compared = before !== undefined && COMPARED.has(scenario.name);
      const beforeModule = compared
        ? await load(
            scenario.fn,
            scenario.coldTenantCache === true,
            scenario.coldSessionCache === true,
            before,
          )
        : undefined;
      const invokeOn = async (on: BenchModule, i: number) => {
        const answer = await on.handler(scenario.event(i), lambdaContext());
        if (
          answer.statusCode !== scenario.status &&
          !(scenario.status === 200 && answer.statusCode === 201)
        ) {
          throw new Error(`${scenario.name}: ${answer.statusCode} ${answer.body}`);
        }
      };
      const invoke = (i: number) => invokeOn(module, i);

      // Counting pass: the last of a few operations (the first warm the caches as on a warm container).
      const countCalls = async (on: BenchModule) => {
        const calls: Call[] = [];
        const stopRecording = recordCalls(on.db.client as DynamoDBDocumentClient, calls);
        let last: Call[] = [];
        for (let k = 0; k < 3; k++) {
          calls.splice(0);
          await invokeOn(on, opIndex++);
          last = [...calls];
        }
        stopRecording();
        return last;
      };
      const captured = await countCalls(module);
      const beforeCaptured = beforeModule ? await countCalls(beforeModule) : [];
      const { read, write } = capacityOf(captured);
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
        ownCallsP50Ms: null,
        ratio: null,
        ratioOwnCalls: null,
        before: null,
        operations: 0,
      };

      if (options.timing && options.scenarios !== false && (before === undefined || compared)) {
        // An issued-again conditional write may fail its condition (the handler's own write already
        // ran): DynamoDB did the same work and answered in the same round trip, which is what is timed.
        const again = (on: BenchModule) => (call: Call) =>
          send(on, REPLAY[call.command] as string, call.input).catch((error: { name?: string }) => {
            if (
              error.name !== 'ConditionalCheckFailedException' &&
              error.name !== 'TransactionCanceledException'
            )
              throw error;
          });
        const ownCalls = (on: BenchModule, calls: Call[]) => {
          const groups = roundGroups(calls);
          return async () => {
            for (const group of groups) await Promise.all(group.map(again(on)));
          };
        };
        const own = ownCalls(module, captured);
        const beforeOwn = ownCalls(beforeModule ?? module, beforeCaptured);
        const operations = Math.min(options.operations, scenario.maxOperations ?? options.operations);
        const warmup = Math.min(options.warmup, scenario.maxOperations ?? options.warmup);
        const samples = {
          handler: [] as number[],
          floor: [] as number[],
          own: [] as number[],
          beforeHandler: [] as number[],
          beforeOwn: [] as number[],
        };
        const timed = async (f: () => Promise<unknown>) => {
          const start = performance.now();
          await f();
          return performance.now() - start;
        };
        for (let k = 0; k < warmup + operations; k++) {
          const i = opIndex++;
          // Interleaved, in a new random order each time, so that noise and ordering effects hit all
          // alike: a rotated fixed cycle would keep each step behind the same neighbour.
          const steps: [keyof typeof samples, () => Promise<unknown>][] = [
            ['handler', () => invoke(i)],
            ['floor', () => (scenario.floor ? scenario.floor(module, i) : Promise.resolve())],
            ['own', own],
          ];
          if (beforeModule) {
            steps.push(['beforeHandler', () => invokeOn(beforeModule, i)]);
            steps.push(['beforeOwn', beforeOwn]);
          }
          const order = steps
            .map((step) => ({ step, at: Math.random() }))
            .sort((a, b) => a.at - b.at)
            .map(({ step }) => step);
          for (const [label, step] of order) {
            const ms = await timed(step);
            if (k >= warmup) samples[label].push(ms);
          }
        }
        const handlerP50 = median(samples.handler);
        const floorP50 = scenario.floor ? median(samples.floor) : null;
        const ownP50 = captured.length > 0 ? median(samples.own) : null;
        const beforeHandlerP50 = median(samples.beforeHandler);
        const beforeOwnP50 = median(samples.beforeOwn);
        Object.assign(result, {
          before: beforeModule
            ? {
                handlerP50Ms: round2(beforeHandlerP50),
                ownCallsP50Ms: round2(beforeOwnP50),
                ratioOwnCalls: round2(beforeHandlerP50 / beforeOwnP50),
              }
            : null,
          handlerP50Ms: round2(handlerP50),
          handlerP99Ms: round2(quantile(samples.handler, 0.99)),
          floorP50Ms: round2(floorP50),
          ownCallsP50Ms: round2(ownP50),
          ratio: floorP50 ? round2(handlerP50 / floorP50) : null,
          ratioOwnCalls: ownP50 ? round2(handlerP50 / ownP50) : null,
          operations,
        });
      }
      results.push(result);
    }

    const functions: FunctionResult[] = bundles.map((bundle) => ({
      function: bundle.label,
      mode: bundle.mode,
      bytes: bundle.bytes,
      ownBytes: bundle.ownBytes,
      zippedBytes: bundle.zippedBytes,
      packagedZipBytes: null,
      mapBytes: null,
      loadMs: null,
      loadNoSourceMapsMs: null,
      loadRatio: null,
      largest: Object.entries(bundle.byPackage)
        .sort(([, a], [, b]) => b - a)
        .slice(0, 4)
        .map(([name, bytes]) => `${name} ${(bytes / 1000).toFixed(1)}`)
        .join(', '),
    }));
    const minimalResults: BenchResults['minimal'] = { bundled: undefined, external: undefined };
    for (const [mode, bundle] of minimal) minimalResults[mode] = { bytes: bundle.bytes, loadMs: null };
    const firstInvocation = {
      pushSingleMs: null as number | null,
      warmP50Ms: null as number | null,
      ratio: null as number | null,
    };
    if (options.timing) {
      log('serverless package (the deployed artifact)…');
      const packaged = await packageFunctions(root, join(outDir, 'packaged'));
      const packagedPush = packaged.find((fn) => fn.label === 'push-measurement');
      if (!packagedPush) throw new Error('serverless package made no push-measurement function');
      // Every process loads under the deployed NODE_OPTIONS; the external builds find the SDK as the
      // runtime provides it (here: node_modules).
      const deployedOptions = { NODE_OPTIONS: packagedPush.environment.NODE_OPTIONS ?? '' };
      const loads = new Map<string, Loadable>();
      const loadOf = (key: string, load: Loadable) => {
        loads.set(key, load);
        return load;
      };
      for (const fn of packaged) {
        loadOf(`packaged:${fn.label}`, { file: fn.handlerFile, env: lambdaEnv(fn) });
        loadOf(`no-maps:${fn.label}`, { file: fn.handlerFile, env: withoutSourceMaps(lambdaEnv(fn)) });
      }
      for (const bundle of bundles.filter((b) => b.mode !== deployedMode)) {
        loadOf(`built:${bundle.mode}:${bundle.label}`, {
          file: bundle.outfile,
          env: { ...loadEnv, ...deployedOptions },
        });
      }
      for (const [mode, bundle] of minimal) {
        loadOf(`minimal:${mode}`, { file: bundle.outfile, env: { ...loadEnv, ...deployedOptions } });
      }
      log(`load times (${loads.size} loads × ${options.loadRuns}, interleaved)…`);
      const times = loadTimes([...loads.values()], options.loadRuns);
      const timeOf = (key: string) => {
        const load = loads.get(key);
        return load ? (times.get(load) ?? null) : null;
      };
      for (const mode of minimal.keys()) {
        (minimalResults[mode] as { loadMs: number | null }).loadMs = round2(timeOf(`minimal:${mode}`));
      }
      for (const f of functions) {
        const fn = packaged.find((candidate) => candidate.label === f.function);
        if (f.mode === deployedMode && fn) {
          f.packagedZipBytes = fn.zipBytes;
          f.mapBytes = Object.entries(fn.files)
            .filter(([name]) => name.endsWith('.map'))
            .reduce((sum, [, bytes]) => sum + bytes, 0);
          f.loadNoSourceMapsMs = round2(timeOf(`no-maps:${f.function}`));
        }
        const ms = timeOf(
          f.mode === deployedMode ? `packaged:${f.function}` : `built:${f.mode}:${f.function}`,
        );
        const base = minimalResults[f.mode]?.loadMs ?? null;
        f.loadMs = round2(ms);
        f.loadRatio = ms !== null && base ? round2(ms / base) : null;
      }
      log('first invocations…');
      const firsts: number[] = [];
      for (let k = 0; k < options.loadRuns; k++) {
        firsts.push(
          firstPushInvocation(
            packagedPush.handlerFile,
            { ...baseEnv, ...deployedOptions },
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

    log('pull integrations…');
    const pull = await measurePull(db, options.timing);
    log('burst of pushes on one Free key…');
    const burst = options.scenarios === false ? null : await measureBurst(db, await load('push-measurement'));

    return {
      date: new Date().toISOString(),
      machine: machineText(),
      node: process.version,
      deployedMode,
      options: {
        operations: options.operations,
        warmup: options.warmup,
        loadRuns: options.loadRuns,
        timing: options.timing,
        scenarios: options.scenarios,
      },
      before: before ?? null,
      scenarios: results,
      functions,
      minimal: minimalResults,
      firstInvocation,
      beyondFloor: BEYOND_FLOOR,
      pull,
      burst,
      budgets: [
        ...budgetsOf(results, functions, firstInvocation, deployedMode),
        ...pullBudgets(pull),
        ...(burst ? burstBudgets(burst) : []),
      ],
    };
  } finally {
    for (const name of Object.keys(process.env)) if (!(name in savedEnv)) delete process.env[name];
    Object.assign(process.env, savedEnv);
    db.client.destroy();
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
      env: { PATH: process.env.PATH, NODE_PATH: join(root, 'node_modules'), ...env },
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
// Budgets

const scenarioBy = (results: ScenarioResult[], name: string) => results.find((r) => r.scenario === name);

/** Over the size budget by design: it serves Swagger UI's static assets, which browsers cache. */
export const SIZE_EXEMPT = ['api-docs'];

export const budgetsOf = (
  results: ScenarioResult[],
  functions: FunctionResult[],
  first: BenchResults['firstInvocation'],
  deployedMode: SdkMode,
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
  // Our code's overhead: each handler against its own DynamoDB calls, issued directly.
  for (const [label, scenario] of [
    ['push single', 'push single, tenant cached'],
    ['push batch of 50 (mixed)', 'push batch of 50, 50 KPIs of mixed types'],
    ['refresh', 'refresh'],
    ['strategic cycles', 'strategic cycles'],
    ['create key', 'create API key, 0 keys before'],
  ] as const) {
    add(`${label}: handler/own calls p50`, 1.15, scenarioBy(results, scenario)?.ratioOwnCalls, true);
  }
  for (const f of functions.filter((x) => x.mode === deployedMode)) {
    if (!SIZE_EXEMPT.includes(f.function)) {
      add(`${f.function}: own code KB (lib/ + functions/, minified)`, 100, round2(f.ownBytes / 1000), false);
    }
    if (f.loadRatio !== null) add(`${f.function}: load / minimal handler's load`, 1.3, f.loadRatio, true);
  }
  add('push single: first invocation / warm p50', 3, first.ratio, true);
  // Round trips and units do not depend on time: the quick mode in npm test checks these.
  const rounds = (scenario: string, limit: number) =>
    add(`${scenario}: sequential round trips`, limit, scenarioBy(results, scenario)?.roundTrips, false);
  rounds('push single, tenant cached', 2);
  rounds('push batch of 50, 50 KPIs of mixed types', 2);
  rounds('refresh', 1);
  rounds('strategic cycles', 1);
  rounds('create API key, 0 keys before', 2);
  rounds('create API key, 300 active keys', 2);
  const single = scenarioBy(results, 'push single, tenant cached');
  add('push single: write units', 3, single?.writeUnits, false);
  add('push single: read units', 2, single?.readUnits, false);
  add(
    'push batch of 50 (mixed): write units per measurement',
    1.04,
    scenarioBy(results, 'push batch of 50, 50 KPIs of mixed types')?.writeUnitsPerMeasurement,
    false,
  );
  // The key item with its index entry (2) and its audit event (1), doubled by their transaction: the
  // tenant's audit log writes each change with its event (docs/performance.md).
  add(
    'create key, 300 active keys: write units',
    6,
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
    'push refused, malformed key: write units',
    0,
    scenarioBy(results, 'push refused: malformed key')?.writeUnits,
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
 * The scheduler's requests grow with the due integrations only: a pass over 1,000 of which 10 are due
 * is one range Query per shard of the index (a fixed number, whatever waits) and one claim per due slot.
 */
export const pullBudgets = (pull: PullResults): Budget[] =>
  [
    ['pull scheduler, 10 due of 1,000: requests', INDEX_SHARDS + 10, pull.scheduler.requests],
    ['pull scheduler, 10 due of 1,000: Queries', INDEX_SHARDS, pull.scheduler.queries],
  ].map(([name, limit, measured]) => ({
    name: name as string,
    limit: limit as number,
    measured: measured as number,
    timed: false,
    ok: (measured as number) <= (limit as number),
  }));

/**
 * A burst on one key is answered 201 or 429, never 503 (what DynamoDB cannot take is the rate limit's
 * to refuse), and no window admits more than the service's own counters let in.
 */
export const burstBudgets = (burst: BurstResults): Budget[] =>
  [
    [`burst of ${burst.pushes} on one Free key: 503 answers`, 0, burst.answers[503] ?? 0],
    [`burst of ${burst.pushes} on one Free key: 201s past the limit of a window`, 0, burst.admittedOverLimit],
  ].map(([name, limit, measured]) => ({
    name: name as string,
    limit: limit as number,
    measured: measured as number,
    timed: false,
    ok: (measured as number) <= (limit as number),
  }));

/**
 * Cost of a million operations on AWS list prices (us-east-1): API Gateway REST $3.50 and Lambda
 * $0.20 per million requests, Lambda arm64 at 1024 MB $0.0000133334 per GB-second of the handler's p50
 * here (an upper bound: this machine is slower than Lambda's), on-demand DynamoDB $0.125 per million
 * read and $0.625 per million write request units. A push adds the authorizer's run once per key per
 * 5 minutes (not counted).
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

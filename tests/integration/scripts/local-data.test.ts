import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
} from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import tableDefinition from '../../../infra/table.json';
import { hashApiKey } from '../../../lib/api-keys/key-format';
import { createApiKey, listApiKeys } from '../../../lib/api-keys/service';
import { createTokenService } from '../../../lib/auth/tokens';
import { keysExpiringBetween } from '../../../lib/db/alerts';
import { createDatabase, type Database } from '../../../lib/db/client';
import { keys } from '../../../lib/db/keys';
import { listKpis } from '../../../lib/db/kpis';
import { listStrategicCycles } from '../../../lib/db/strategic-cycles';
import { createTenant, getTenant, listTenants } from '../../../lib/db/tenants';
import { listUsers } from '../../../lib/db/users';
import { FEATURES } from '../../../lib/domain/plan';
import { freePort, startDynamoDbLocal } from '../../../scripts/local/processes';
import { createTable } from '../../../scripts/local/table';
import {
  claim,
  holderOf,
  localData,
  localDynamoDb,
  prepareLocalData,
  tableState,
  wipe,
} from '../../../scripts/local-data';
import { type SeedFile, seedDemoData } from '../../../scripts/seed';

const root = resolve(__dirname, '..', '..', '..');
const DAY_MS = 86_400_000;
/** Where npm start answers, as it hands it to prepareLocalData. */
const stack = (baseUrl: string, dynamoPort = 8000) => ({
  baseUrl,
  dynamodbEndpoint: `http://127.0.0.1:${dynamoPort}`,
});
const page = { limit: 1000 };

/** A database of its own in the run's DynamoDB Local: a new table name is a new, missing table. */
const newDatabase = (): Database =>
  createDatabase({
    tableName: `local-data-${randomBytes(6).toString('hex')}`,
    region: 'eu-central-1',
    endpoint: inject('dynamodbEndpoint'),
  });

const dirs: string[] = [];
const newDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'local-data-test-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('the demo data (scripts/seed.ts) reads as real organizations', () => {
  let db: Database;
  let seed: SeedFile;
  let now: number;
  beforeAll(async () => {
    db = newDatabase();
    await createTable(db);
    now = Date.now();
    seed = await seedDemoData(db, 'http://localhost:3000/api');
  }, 300_000);

  it('timestamps in order: sign-up, then users, KPIs and cycles, then each key before its first use', async () => {
    for (const seeded of seed.tenants) {
      const tenant = await getTenant(db, seeded.id);
      const signedUp = Date.parse(tenant!.createdAt);
      expect(signedUp, seeded.name).toBeLessThan(now - 30 * DAY_MS);
      const later = [
        ...(await listUsers(db, seeded.id, page)).items,
        ...(await listKpis(db, seeded.id, page)).items,
        ...(await listStrategicCycles(db, seeded.id, page)).items,
      ];
      for (const item of later) {
        expect(Date.parse(item.createdAt), seeded.name).toBeGreaterThan(signedUp);
        expect(Date.parse(item.createdAt), seeded.name).toBeLessThan(now);
      }
      const apiKeys = (await listApiKeys(db, seeded.id, page)).items;
      expect(apiKeys.length).toBeGreaterThan(0);
      for (const key of apiKeys) {
        const created = Date.parse(key.createdAt);
        expect(created, key.name).toBeGreaterThan(signedUp);
        expect(created, key.name).toBeLessThanOrEqual(Date.now());
        for (const later of [key.lastUsedAt, key.revokedAt, key.rolledAt, key.expiresAt]) {
          if (later !== null) expect(Date.parse(later), key.name).toBeGreaterThanOrEqual(created);
        }
        for (const past of [key.lastUsedAt, key.revokedAt]) {
          if (past !== null) expect(Date.parse(past), key.name).toBeLessThanOrEqual(Date.now());
        }
      }
      // Listed oldest first (by id), and the dates say the same.
      const created = apiKeys.map((key) => key.createdAt);
      expect(created).toEqual([...created].sort());
    }
    // The key that pushed the history was made well before its first push, and used since.
    const pusher = (await listApiKeys(db, seed.tenants[0]!.id, page)).items[0]!;
    expect(pusher.name).toBe('CI pipeline');
    expect(Date.parse(pusher.lastUsedAt!) - Date.parse(pusher.createdAt)).toBeGreaterThan(300 * DAY_MS);
  });

  it('KPIs are named as a company names them, not after their type, and carry units', async () => {
    const typeWords = /\b(swot|pestle|theme|kpi|definition|bsc|asis|okr|key result|scorecard)\b/i;
    for (const seeded of seed.tenants) {
      const kpis = (await listKpis(db, seeded.id, page)).items;
      for (const kpi of kpis) {
        expect(kpi.name, kpi.name).not.toMatch(typeWords);
        expect(kpi.name.startsWith(seeded.name.split(' ')[0]!), kpi.name).toBe(false);
        expect(kpi.unit, kpi.name).toEqual(expect.any(String));
      }
      expect(new Set(kpis.map((kpi) => kpi.name)).size).toBe(kpis.length);
    }
  });
});

describe("npm start's data between runs (scripts/local-data.ts)", () => {
  it('seeds a new table once; a restart keeps the data, its ids and the signing key, with the new base URL and DynamoDB port', async () => {
    const data = localData(root, { LOCAL_DATA_DIR: newDir() });
    const db = newDatabase();
    expect(await tableState(db)).toBe('missing');

    const first = await prepareLocalData(db, data, stack('http://localhost:3000/api'), {});
    expect(first.seeded).toBe(true);
    expect(JSON.parse(readFileSync(data.seedFile, 'utf8'))).toEqual(first.seed);
    expect(readFileSync(data.secretFile, 'utf8')).toBe(first.jwtSecret);
    expect(statSync(data.secretFile).mode & 0o777).toBe(0o600);
    const tenants = (await listTenants(db, page)).items.map((tenant) => tenant.id).sort();

    expect(first.seed?.dynamodbEndpoint).toBe('http://127.0.0.1:8000');
    const second = await prepareLocalData(db, data, stack('http://localhost:3100/api', 8100), {});
    expect(second.seeded).toBe(false);
    expect(second.jwtSecret).toBe(first.jwtSecret);
    expect(second.seed).toEqual({
      ...first.seed,
      baseUrl: 'http://localhost:3100/api',
      dynamodbEndpoint: 'http://127.0.0.1:8100',
    });
    expect(JSON.parse(readFileSync(data.seedFile, 'utf8'))).toEqual(second.seed);
    // Nothing was seeded again: the same tenants, no more.
    expect((await listTenants(db, page)).items.map((tenant) => tenant.id).sort()).toEqual(tenants);
  }, 300_000);

  it('a database of an earlier version keeps its data and gets the index it lacks, with its keys in it', async () => {
    // As npm start runs it: a DynamoDB Local of its own with its database file on disk. (In the run's
    // shared in-memory one, other test files' writes could keep the new index from ever becoming active.)
    const dir = newDir();
    const data = localData(root, { LOCAL_DATA_DIR: dir });
    const dynamo = await startDynamoDbLocal(await freePort(), { dataDir: join(dir, 'dynamodb') });
    try {
      await upgradeEarlierVersion(data, dynamo.endpoint);
    } finally {
      await dynamo.stop();
    }
  }, 300_000);

  const upgradeEarlierVersion = async (data: ReturnType<typeof localData>, endpoint: string) => {
    const db = createDatabase({ tableName: 'strategy-service-local', region: 'eu-central-1', endpoint });
    // The table as a version before the alert index (gsi2) made it, holding a key that expires.
    const {
      TimeToLiveSpecification: _ttl,
      PointInTimeRecoverySpecification: _pitr,
      SSESpecification: _sse,
      ...definition
    } = tableDefinition;
    const input = { ...definition, TableName: db.tableName } as CreateTableCommandInput;
    await db.client.send(
      new CreateTableCommand({
        ...input,
        AttributeDefinitions: input.AttributeDefinitions?.filter((a) => !a.AttributeName?.startsWith('gsi2')),
        GlobalSecondaryIndexes: input.GlobalSecondaryIndexes?.filter((index) => index.IndexName !== 'gsi2'),
      }),
    );
    const tenant = await createTenant(db, {
      name: 'Before',
      plan: 'business',
      features: [...FEATURES],
      active: true,
    });
    const expiresAt = Date.now() + 5 * DAY_MS;
    const key = await createApiKey(db, {
      tenantId: tenant.id,
      name: 'made before',
      expiresAt: new Date(expiresAt).toISOString(),
    });
    await db.client.send(
      new UpdateCommand({
        TableName: db.tableName,
        Key: keys.apiKey(hashApiKey(key.key)),
        UpdateExpression: 'REMOVE gsi2pk, gsi2sk',
      }),
    );

    const prepared = await prepareLocalData(db, data, stack('http://localhost:3000/api'), {});
    expect(prepared.seeded).toBe(false);
    // The new index is active before anything writes to it (DynamoDB Local fails writes while filling it).
    const { Table } = await db.client.send(new DescribeTableCommand({ TableName: db.tableName }));
    expect(
      Table?.GlobalSecondaryIndexes?.map((index) => [index.IndexName, index.IndexStatus]).sort(),
    ).toEqual([
      ['gsi1', 'ACTIVE'],
      ['gsi2', 'ACTIVE'],
    ]);
    expect((await listTenants(db, page)).items.map(({ id }) => id)).toEqual([tenant.id]);
    const expiring = await keysExpiringBetween(db, expiresAt - DAY_MS, expiresAt + DAY_MS);
    expect(expiring.map((found) => found.key.id)).toEqual([key.id]);
  };

  it('an empty table is seeded too; a table with data but no record is kept, and says so (no demo logins)', async () => {
    const data = localData(root, { LOCAL_DATA_DIR: newDir() });
    const db = newDatabase();
    await createTable(db);
    expect(await tableState(db)).toBe('empty');
    expect((await prepareLocalData(db, data, stack('http://localhost:3000/api'), {})).seeded).toBe(true);
    expect(await tableState(db)).toBe('filled');
    rmSync(data.seedFile);
    const kept = await prepareLocalData(db, data, stack('http://localhost:3000/api'), {});
    expect(kept).toMatchObject({ seeded: false, seed: undefined });
  }, 300_000);

  it('a new database gets a new signing key: a token of the data before is refused (401)', async () => {
    const data = localData(root, { LOCAL_DATA_DIR: newDir() });
    const before = await prepareLocalData(newDatabase(), data, stack('http://localhost:3000/api'), {});
    const settings = { issuer: 'strategy-service', audience: 'strategy-service-api', refreshTtlSeconds: 60 };
    const admin = before.seed!.tenants[0]!.users[0]!;
    const token = await createTokenService({ ...settings, secret: before.jwtSecret }).issueAccessToken({
      userId: admin.id,
      tenantId: before.seed!.tenants[0]!.id,
      role: admin.role,
      email: admin.email,
      sessionId: 'a-session-of-the-data-before',
      tokenVersion: 0,
    });

    // As after `npm run reset` (or a deleted database folder): the data is new, the old key file remains.
    const after = await prepareLocalData(newDatabase(), data, stack('http://localhost:3000/api'), {});
    expect(after.seeded).toBe(true);
    expect(after.jwtSecret).not.toBe(before.jwtSecret);
    expect(readFileSync(data.secretFile, 'utf8')).toBe(after.jwtSecret);
    await expect(
      createTokenService({ ...settings, secret: after.jwtSecret }).verifyAccessToken(token),
    ).rejects.toMatchObject({ code: 'UNAUTHENTICATED', status: 401 });
  }, 300_000);

  it('JWT_SECRET is used as given; a database in memory writes no key file and its own seed record', async () => {
    const dir = newDir();
    const given = await prepareLocalData(
      newDatabase(),
      localData(root, { LOCAL_DATA_DIR: dir }),
      stack('http://x/api'),
      {
        JWT_SECRET: 'given-secret-given-secret-given-secret',
      },
    );
    expect(given.jwtSecret).toBe('given-secret-given-secret-given-secret');
    expect(existsSync(join(dir, 'jwt-secret'))).toBe(false);

    const inMemory = localData(root, { LOCAL_DATA_DIR: dir, DYNAMODB_IN_MEMORY: 'true' });
    expect(inMemory.dynamoDir).toBeUndefined();
    expect(inMemory.seedFile).toBe(join(dir, 'seed-in-memory.json'));
    const prepared = await prepareLocalData(newDatabase(), inMemory, stack('http://x/api'), {});
    expect(prepared.jwtSecret.length).toBeGreaterThanOrEqual(32);
    expect(existsSync(join(dir, 'jwt-secret'))).toBe(false);
    expect(existsSync(join(dir, 'seed.json'))).toBe(true); // the record of the data on disk is untouched
  }, 300_000);

  it('a folder in use by a live process is refused to others; a dead one is not; wipe keeps only the folder', () => {
    const data = localData(root, { LOCAL_DATA_DIR: newDir() });
    const release = claim(data);
    expect(holderOf(data)).toBeUndefined(); // this process holds it
    writeFileSync(data.pidFile, `${process.ppid}\n`);
    expect(holderOf(data)).toBe(process.ppid);
    const finished = spawnSync(process.execPath, ['-e', '0']);
    writeFileSync(data.pidFile, `${finished.pid}\n`);
    expect(holderOf(data)).toBeUndefined();
    release(); // not this process's claim any more: left alone
    expect(existsSync(data.pidFile)).toBe(true);

    mkdirSync(data.dynamoDir!, { recursive: true });
    writeFileSync(join(data.dynamoDir!, 'shared-local-instance.db'), '');
    writeFileSync(data.seedFile, '{}');
    writeFileSync(data.secretFile, 'x');
    wipe(data);
    expect([data.dynamoDir!, data.seedFile, data.secretFile].filter((path) => existsSync(path))).toEqual([]);
    expect(existsSync(data.dir)).toBe(true);
  });

  it("the local runners find npm start's DynamoDB: the variables first, then the running stack's record, then port 8000", () => {
    const dir = newDir();
    const env = { LOCAL_DATA_DIR: dir };
    expect(localDynamoDb(root, env)).toEqual({
      endpoint: 'http://127.0.0.1:8000',
      from: "npm start's default port",
    });
    writeFileSync(
      join(dir, 'seed.json'),
      JSON.stringify({
        baseUrl: 'http://localhost:3300/api',
        dynamodbEndpoint: 'http://127.0.0.1:8300',
        tenants: [],
      }),
    );
    expect(localDynamoDb(root, env)).toEqual({
      endpoint: 'http://127.0.0.1:8300',
      from: `npm start's, recorded in ${join(dir, 'seed.json')}`,
    });
    expect(localDynamoDb(root, { ...env, DYNAMODB_PORT: '8400' })).toEqual({
      endpoint: 'http://127.0.0.1:8400',
      from: 'DYNAMODB_PORT',
    });
    expect(
      localDynamoDb(root, { ...env, DYNAMODB_PORT: '8400', DYNAMODB_ENDPOINT: 'http://db:8000' }),
    ).toEqual({
      endpoint: 'http://db:8000',
      from: 'DYNAMODB_ENDPOINT',
    });
  });

  it('npm run alerts:run names the endpoint, where it came from and DYNAMODB_PORT when nothing answers there', async () => {
    const dir = newDir();
    const port = await freePort();
    writeFileSync(
      join(dir, 'seed.json'),
      JSON.stringify({
        baseUrl: 'http://localhost:3300/api',
        dynamodbEndpoint: `http://127.0.0.1:${port}`,
        tenants: [],
      }),
    );
    const { DYNAMODB_ENDPOINT: _endpoint, DYNAMODB_PORT: _port, ...env } = process.env;
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/alerts-run.ts'], {
      cwd: root,
      encoding: 'utf8',
      env: { ...env, LOCAL_DATA_DIR: dir, JWT_SECRET: 'x'.repeat(32), AWS_MAX_ATTEMPTS: '1' },
    });
    expect(run.status).toBe(1);
    expect(run.stderr.trim()).toBe(
      `Nothing answers at http://127.0.0.1:${port} (npm start's, recorded in ${join(dir, 'seed.json')}): start the local stack with npm start, or set DYNAMODB_PORT (or DYNAMODB_ENDPOINT) to where its DynamoDB Local runs.`,
    );
  }, 60_000);
});

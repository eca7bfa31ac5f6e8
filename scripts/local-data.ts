/**
 * What `npm start` keeps between runs, in LOCAL_DATA_DIR (default `.local/` of the checkout,
 * git-ignored):
 * - `dynamodb/`: DynamoDB Local's database file, so tenants, users, keys, KPIs and measurements
 *   survive a restart with the same ids;
 * - `seed.json`: the demo logins, raw keys and ids (SEED_FILE overrides the path); the raw keys are
 *   stored nowhere else, as on AWS;
 * - `jwt-secret`: the local signing key, made together with the data, so no token outlives its data;
 * - `secrets-key`: the key that seals the tenants' secrets (webhook secrets, pull credentials), made
 *   with the data like the signing key, and like it only for this machine;
 * - `npm-start.pid`: the process using the folder, so a second `npm start` or `npm run reset` does not
 *   open the same database file.
 * With DYNAMODB_IN_MEMORY=true (the tests) the database lives in memory, the signing key only in the
 * process, and nothing but the seed record is written.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { indexExistingKeyExpiries } from '../lib/alerts/check';
import { createDatabase, type Database } from '../lib/db/client';
import { shardDueIndexes } from '../lib/db/due-indexes';
import { logger } from '../lib/logger';
import { addMissingIndexes, createTable } from './local/table';
import { type SeedFile, seedDemoData } from './seed';

export interface LocalData {
  dir: string;
  /** DynamoDB Local's folder; undefined when the database lives in memory. */
  dynamoDir: string | undefined;
  seedFile: string;
  secretFile: string;
  secretsKeyFile: string;
  pidFile: string;
}

export const localData = (root: string, env: NodeJS.ProcessEnv): LocalData => {
  const dir = resolve(env.LOCAL_DATA_DIR || join(root, '.local'));
  const inMemory = env.DYNAMODB_IN_MEMORY === 'true';
  return {
    dir,
    dynamoDir: inMemory ? undefined : join(dir, 'dynamodb'),
    // An in-memory run must not overwrite the record of the data on disk.
    seedFile: resolve(env.SEED_FILE || join(dir, inMemory ? 'seed-in-memory.json' : 'seed.json')),
    secretFile: join(dir, 'jwt-secret'),
    secretsKeyFile: join(dir, 'secrets-key'),
    pidFile: join(dir, 'npm-start.pid'),
  };
};

/**
 * For a runner beside `npm start` that found no stack: it reads the data folder LOCAL_DATA_DIR names,
 * and a stack started with another folder is invisible to it unless given the same one.
 */
export const dataFolderHint = (command: string, env: NodeJS.ProcessEnv): string =>
  env.LOCAL_DATA_DIR
    ? `This read LOCAL_DATA_DIR=${env.LOCAL_DATA_DIR}: give it the folder that npm start was given.`
    : `If npm start runs with LOCAL_DATA_DIR set, give this the same folder, e.g. LOCAL_DATA_DIR=.local-2 ${command}.`;

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The pid of another live process that uses the folder, if any. */
export const holderOf = (data: LocalData): number | undefined => {
  if (!existsSync(data.pidFile)) return undefined;
  const pid = Number(readFileSync(data.pidFile, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid) ? pid : undefined;
};

/** Marks the folder as used by this process; the returned function gives it up. */
export const claim = (data: LocalData): (() => void) => {
  mkdirSync(data.dir, { recursive: true });
  writeFileSync(data.pidFile, `${process.pid}\n`);
  return () => {
    try {
      if (readFileSync(data.pidFile, 'utf8').trim() === String(process.pid)) rmSync(data.pidFile);
    } catch {
      // Already gone.
    }
  };
};

/** Deletes the database, the seed record and the signing key; keeps the folder. */
export const wipe = (data: LocalData): void => {
  if (data.dynamoDir) rmSync(data.dynamoDir, { recursive: true, force: true });
  rmSync(data.seedFile, { force: true });
  rmSync(data.secretFile, { force: true });
  rmSync(data.secretsKeyFile, { force: true });
};

export const readSeedFile = (file: string): SeedFile | undefined => {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as SeedFile;
  } catch {
    return undefined;
  }
};

const writeSeedFile = (file: string, seed: SeedFile) => {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(seed, null, 2)}\n`);
};

const newSecret = () => randomBytes(48).toString('base64url');

/** Whether the table is missing, empty, or holds data. */
export const tableState = async (db: Database): Promise<'missing' | 'empty' | 'filled'> => {
  const names: string[] = [];
  let start: string | undefined;
  do {
    const page = await db.client.send(new ListTablesCommand({ ExclusiveStartTableName: start }));
    names.push(...(page.TableNames ?? []));
    start = page.LastEvaluatedTableName;
  } while (start);
  if (!names.includes(db.tableName)) return 'missing';
  const { Items } = await db.client.send(new ScanCommand({ TableName: db.tableName, Limit: 1 }));
  return Items && Items.length > 0 ? 'filled' : 'empty';
};

/**
 * The seed pushes months of history through the push library, which logs every push and emits a
 * metric for it: not news here, so both are quiet while it runs.
 */
const quietly = async <T>(work: () => Promise<T>): Promise<T> => {
  const level = logger.getLevelName();
  const metricsDisabled = process.env.POWERTOOLS_METRICS_DISABLED;
  logger.setLogLevel('WARN');
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  try {
    return await work();
  } finally {
    logger.setLogLevel(level);
    if (metricsDisabled === undefined) delete process.env.POWERTOOLS_METRICS_DISABLED;
    else process.env.POWERTOOLS_METRICS_DISABLED = metricsDisabled;
  }
};

/** Where a running `npm start` answers: its API, and its DynamoDB Local. */
export interface LocalStack {
  baseUrl: string;
  dynamodbEndpoint: string;
}

export interface PreparedData {
  /** The demo record; undefined when the table holds data but the record is gone. */
  seed: SeedFile | undefined;
  /** Whether the demo data was written by this run (the table was missing or empty). */
  seeded: boolean;
  jwtSecret: string;
  secretsKey: string;
}

/** The local stack's secrets key as `npm start` keeps it in the data folder, or '' when there is none. */
export const storedSecretsKey = (data: LocalData): string =>
  existsSync(data.secretsKeyFile) ? readFileSync(data.secretsKeyFile, 'utf8').trim() : '';

/**
 * SECRETS_KEY, else the one kept in the data folder, else a new one, kept there (not for an in-memory
 * database, whose secrets go with it).
 */
const secretsKeyOf = (data: LocalData, env: NodeJS.ProcessEnv): string => {
  const known = env.SECRETS_KEY || storedSecretsKey(data);
  if (known) return known;
  const made = newSecret();
  if (data.dynamoDir) {
    mkdirSync(data.dir, { recursive: true });
    writeFileSync(data.secretsKeyFile, made, { mode: 0o600 });
  }
  return made;
};

/** The local stack's signing key as `npm start` keeps it in the data folder, or '' when there is none. */
export const storedJwtSecret = (data: LocalData): string =>
  existsSync(data.secretFile) ? readFileSync(data.secretFile, 'utf8').trim() : '';

/**
 * Creates the table if it is missing and seeds the demo data into an empty one; a table that holds
 * data keeps it (it only gets the indexes a later version added), and its seed record gets the current
 * base URL and DynamoDB endpoint. JWT_SECRET, when set, is the
 * signing key; otherwise a new database gets a new key: a token signed before names users and tenants
 * that are gone, and is refused (401, sign in again) instead of answered with empty lists.
 */
export const prepareLocalData = async (
  db: Database,
  data: LocalData,
  { baseUrl, dynamodbEndpoint }: LocalStack,
  env: NodeJS.ProcessEnv = process.env,
): Promise<PreparedData> => {
  const state = await tableState(db);
  if (state === 'missing') await createTable(db);
  // A database of an earlier version gets the indexes it lacks, and its keys' expiries their entries
  // in the alert index, which only keys created since carry: its data stays usable as it is.
  else if ((await addMissingIndexes(db)).length > 0) await indexExistingKeyExpiries(db, Date.now());
  // Its due entries of before the shards move into them (two Queries when there are none).
  if (state !== 'missing') await shardDueIndexes(db, Date.now());
  if (state !== 'filled') {
    // A new database gets a new secrets key too: nothing is sealed with the old one any more.
    if (!env.SECRETS_KEY) rmSync(data.secretsKeyFile, { force: true });
    const secretsKey = secretsKeyOf(data, env);
    const { tenants } = await quietly(() => seedDemoData(db, baseUrl, { secretsKey }));
    const seed: SeedFile = { baseUrl, dynamodbEndpoint, tenants };
    writeSeedFile(data.seedFile, seed);
    let jwtSecret = env.JWT_SECRET;
    if (!jwtSecret) {
      jwtSecret = newSecret();
      if (data.dynamoDir) {
        mkdirSync(data.dir, { recursive: true });
        writeFileSync(data.secretFile, jwtSecret, { mode: 0o600 });
      }
    }
    return { seed, seeded: true, jwtSecret, secretsKey };
  }
  const stored = readSeedFile(data.seedFile);
  const seed = stored && { baseUrl, dynamodbEndpoint, tenants: stored.tenants };
  if (seed && (stored.baseUrl !== baseUrl || stored.dynamodbEndpoint !== dynamodbEndpoint)) {
    writeSeedFile(data.seedFile, seed);
  }
  let jwtSecret = env.JWT_SECRET || storedJwtSecret(data);
  if (!jwtSecret) {
    jwtSecret = newSecret();
    if (data.dynamoDir) writeFileSync(data.secretFile, jwtSecret, { mode: 0o600 });
  }
  return { seed, seeded: false, jwtSecret, secretsKey: secretsKeyOf(data, env) };
};

/** Where a local runner finds DynamoDB, and what said so (for its messages). */
export interface LocalDynamoDb {
  endpoint: string;
  from: string;
}

/**
 * The local stack's DynamoDB, for the runners beside `npm start` (`npm run alerts:run`, the operator
 * CLI): DYNAMODB_ENDPOINT or DYNAMODB_PORT when set; else where the last `npm start` of this data folder
 * put it, as its demo record says (the way `demo:push` finds the base URL); else npm start's default
 * port, 8000.
 */
export const localDynamoDb = (root: string, env: NodeJS.ProcessEnv): LocalDynamoDb => {
  if (env.DYNAMODB_ENDPOINT) return { endpoint: env.DYNAMODB_ENDPOINT, from: 'DYNAMODB_ENDPOINT' };
  if (env.DYNAMODB_PORT) return { endpoint: `http://127.0.0.1:${env.DYNAMODB_PORT}`, from: 'DYNAMODB_PORT' };
  const { seedFile } = localData(root, env);
  const recorded = readSeedFile(seedFile)?.dynamodbEndpoint;
  if (recorded) {
    const shown = seedFile.startsWith(`${root}/`) ? relative(root, seedFile) : seedFile;
    return { endpoint: recorded, from: `npm start's, recorded in ${shown}` };
  }
  return { endpoint: 'http://127.0.0.1:8000', from: "npm start's default port" };
};

/** What to do when nothing answers at the runner's DynamoDB endpoint. */
export const unreachableDynamoDb = ({ endpoint, from }: LocalDynamoDb): string =>
  `Nothing answers at ${endpoint} (${from}): start the local stack with npm start, or set ` +
  'DYNAMODB_PORT (or DYNAMODB_ENDPOINT) to where its DynamoDB Local runs.';

/** What a runner beside `npm start` works with: the stack's table, and the keys it keeps. */
export interface BesideStack {
  db: Database;
  /** SECRETS_KEY, else the data folder's. */
  secretsKey: string;
  /** JWT_SECRET, else the data folder's; '' when there is none. */
  jwtSecret: string;
}

/**
 * Runs `work` once against the local stack's table (`npm run alerts:run`, `npm run pull:run`): the
 * table found as `localDynamoDb` finds it, the keys `npm start` keeps. When nothing answers it says
 * where it looked; any failure exits 1.
 */
export const runBesideLocalStack = (root: string, work: (stack: BesideStack) => Promise<void>): void => {
  const env = process.env;
  env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const dynamoDb = localDynamoDb(root, env);
  const run = async () => {
    const data = localData(root, env);
    const secretsKey = env.SECRETS_KEY || storedSecretsKey(data);
    if (!secretsKey) throw new Error('No secrets key: set SECRETS_KEY, or run npm start once to make one.');
    const db = createDatabase({
      tableName: env.TABLE_NAME || 'strategy-service-local',
      region: env.AWS_REGION || 'eu-central-1',
      endpoint: dynamoDb.endpoint,
    });
    try {
      await work({ db, secretsKey, jwtSecret: env.JWT_SECRET || storedJwtSecret(data) });
    } finally {
      db.client.destroy();
    }
  };
  run().catch((error) => {
    const refused = (error as { code?: string }).code === 'ECONNREFUSED';
    console.error(refused ? unreachableDynamoDb(dynamoDb) : error instanceof Error ? error.message : error);
    process.exit(1);
  });
};

/**
 * `npm start`: the whole service on this machine.
 * 1. DynamoDB Local in memory (DYNAMODB_PORT, default 8000)
 * 2. the table from infra/table.json, 3. demo data, written to SEED_FILE (default .local/seed.json)
 * 4. serverless-offline on PORT (default 3000) with LAMBDA_PORT (default 3002)
 * It starts nothing when one of the three ports is taken, and says which variable to set (issue 13).
 * Ctrl-C (SIGINT) or SIGTERM stops everything, by process group.
 * STACK_LOG_FILE: also append everything serverless-offline and the handlers print (the JSON log and
 * metric lines) to this file, so a test can read every line a run wrote (issue 14).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createDatabase } from '../lib/db/client';
import { createTable } from '../lib/db/table';
import { logger } from '../lib/logger';
import {
  nextFreePort,
  portTaken,
  type RunningDynamoDb,
  startDynamoDbLocal,
  stopGroup,
  stopGroupAndWait,
} from './processes';
import { DEMO_PASSWORD, seedDemoData } from './seed';

const root = resolve(__dirname, '..');

/** The three ports, each from its variable: what to set is what the messages below name. */
const PORTS = [
  { variable: 'PORT', fallback: 3000, what: 'the HTTP API (serverless-offline)' },
  { variable: 'LAMBDA_PORT', fallback: 3002, what: "serverless-offline's Lambda invoke endpoint" },
  { variable: 'DYNAMODB_PORT', fallback: 8000, what: 'DynamoDB Local' },
] as const;
const portOf = (variable: (typeof PORTS)[number]['variable']) => {
  const { fallback } = PORTS.find((port) => port.variable === variable) as (typeof PORTS)[number];
  const value = process.env[variable];
  return value === undefined || value === '' ? fallback : Number(value);
};
const httpPort = portOf('PORT');
const lambdaPort = portOf('LAMBDA_PORT');
const dynamoPort = portOf('DYNAMODB_PORT');
const seedFile = resolve(process.env.SEED_FILE ?? join(root, '.local', 'seed.json'));
const stage = 'local';
const tableName = `strategy-service-${stage}`;
const baseUrl = `http://localhost:${httpPort}/api`;
const quiet = process.env.OFFLINE_LOG === 'quiet';
const logFile = process.env.STACK_LOG_FILE ? resolve(process.env.STACK_LOG_FILE) : undefined;

/** One secret per checkout, generated on first start, unless JWT_SECRET is set. */
const localJwtSecret = (): string => {
  if (process.env.JWT_SECRET) return process.env.JWT_SECRET;
  const file = join(root, '.local', 'jwt-secret');
  if (!existsSync(file)) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, randomBytes(48).toString('base64url'), { mode: 0o600 });
  }
  return readFileSync(file, 'utf8').trim();
};

let dynamo: RunningDynamoDb | undefined;
let offline: ChildProcess | undefined;
let stopping = false;

const shutdown = async (code: number) => {
  if (stopping) return;
  stopping = true;
  await Promise.all([stopGroupAndWait(offline), dynamo?.stop()]);
  process.exit(code);
};

process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));
// Last resort if this process dies another way: never leave a JVM or Lambda worker behind.
process.on('exit', () => {
  stopGroup(offline, 'SIGKILL');
  stopGroup(dynamo?.process, 'SIGKILL');
});

const waitForHttp = async (url: string, child: ChildProcess, timeoutMs = 300_000) => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`serverless offline exited with code ${child.exitCode}`);
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`serverless offline did not answer on ${url}`);
};

/**
 * Issue 13: before starting anything, each port must be valid, distinct and free. On a taken DynamoDB
 * port the script would otherwise talk to whatever answers there (another `npm start`'s database) and
 * die with "Cannot create preexisting table"; say instead which port, and what to set.
 */
const checkPorts = async (): Promise<string[]> => {
  const problems: string[] = [];
  const ports = PORTS.map((port) => ({ ...port, port: portOf(port.variable) }));
  for (const { variable, port } of ports) {
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      problems.push(`${variable}=${process.env[variable]} is not a port number (1 to 65535).`);
    }
  }
  if (problems.length > 0) return problems;
  for (const [index, { variable, port }] of ports.entries()) {
    const earlier = ports.slice(0, index).find((other) => other.port === port);
    if (earlier)
      problems.push(`${earlier.variable} and ${variable} are both ${port}: give each its own port.`);
  }
  if (problems.length > 0) return problems;
  for (const { variable, port, what } of ports) {
    if (!(await portTaken(port))) continue;
    const free = await nextFreePort(
      port,
      ports.map((other) => other.port),
    );
    problems.push(
      `Port ${port} (${variable}, for ${what}) is already in use, perhaps by another npm start. ` +
        `Stop what uses it, or choose another port${free ? `, e.g. ${variable}=${free} npm start` : ` with ${variable}=<port>`}.`,
    );
  }
  return problems;
};

const main = async () => {
  const problems = await checkPorts();
  if (problems.length > 0) {
    for (const problem of problems) console.error(problem);
    stopping = true;
    process.exit(1);
  }
  console.log(`Starting DynamoDB Local on port ${dynamoPort} ...`);
  dynamo = await startDynamoDbLocal(dynamoPort);
  const db = createDatabase({ tableName, region: 'eu-central-1', endpoint: dynamo.endpoint });
  await createTable(db);
  // The seed pushes months of history through the push library, which logs every push and emits a
  // metric for it: not news here, so both are quiet while it runs.
  const logLevel = logger.getLevelName();
  const metricsDisabled = process.env.POWERTOOLS_METRICS_DISABLED;
  logger.setLogLevel('WARN');
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  const seed = await seedDemoData(db, baseUrl);
  logger.setLogLevel(logLevel);
  if (metricsDisabled === undefined) delete process.env.POWERTOOLS_METRICS_DISABLED;
  else process.env.POWERTOOLS_METRICS_DISABLED = metricsDisabled;
  mkdirSync(dirname(seedFile), { recursive: true });
  writeFileSync(seedFile, `${JSON.stringify(seed, null, 2)}\n`);

  console.log(`Starting serverless offline on port ${httpPort} ...`);
  offline = spawn(
    process.execPath,
    [
      join(root, 'node_modules', 'serverless', 'bin', 'serverless.js'),
      'offline',
      'start',
      '--stage',
      stage,
      '--httpPort',
      String(httpPort),
      '--lambdaPort',
      String(lambdaPort),
    ],
    {
      cwd: root,
      detached: true,
      stdio: ['ignore', logFile ? 'pipe' : quiet ? 'ignore' : 'inherit', logFile ? 'pipe' : 'inherit'],
      env: {
        ...process.env,
        JWT_SECRET: localJwtSecret(),
        DYNAMODB_ENDPOINT: dynamo.endpoint,
        AWS_REGION: 'eu-central-1',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        SLS_TELEMETRY_DISABLED: '1',
      },
    },
  );
  if (logFile) {
    const file = createWriteStream(logFile, { flags: 'a' });
    offline.stdout?.on('data', (chunk) => {
      file.write(chunk);
      if (!quiet) process.stdout.write(chunk);
    });
    offline.stderr?.on('data', (chunk) => {
      file.write(chunk);
      process.stderr.write(chunk);
    });
  }
  offline.once('exit', (code) => {
    if (!stopping) {
      console.error(`serverless offline exited (code ${code}); stopping.`);
      void shutdown(1);
    }
  });
  await waitForHttp(`http://127.0.0.1:${httpPort}/`, offline);

  const logins = seed.tenants.flatMap((tenant) =>
    tenant.users.map((user) => `  ${user.email.padEnd(26)} ${user.role.padEnd(7)} ${tenant.name}`),
  );
  console.log(
    [
      '',
      `Strategy service is running: ${baseUrl}`,
      `API key page: http://localhost:${httpPort}/platform/api-keys`,
      `KPI page: http://localhost:${httpPort}/platform/kpis`,
      `Demo data: ${seedFile}`,
      `Demo logins (password "${DEMO_PASSWORD}"):`,
      ...logins,
      '',
      'Press Ctrl-C to stop.',
    ].join('\n'),
  );
};

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  void shutdown(1);
});

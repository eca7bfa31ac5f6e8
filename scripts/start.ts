/**
 * `npm start`: the whole service on this machine.
 * 1. DynamoDB Local (DYNAMODB_PORT, default 8000), its database file in LOCAL_DATA_DIR (default
 *    .local/; scripts/local-data.ts), so the data survives a restart; DYNAMODB_IN_MEMORY=true keeps it
 *    in memory (the tests);
 * 2. the table from infra/table.json, and the demo data into an empty table only, recorded in
 *    SEED_FILE (default .local/seed.json); `npm run reset` starts over;
 * 3. serverless-offline on PORT (default 3000) with LAMBDA_PORT (default 3002).
 * It starts nothing when one of the three ports is taken, or another `npm start` uses the same data
 * folder, and says what to do. Ctrl-C (SIGINT) or SIGTERM stops everything, by process group.
 * STACK_LOG_FILE: also append everything serverless-offline and the handlers print (the JSON log and
 * metric lines) to this file, so a test can read every line a run wrote.
 * The handlers are built into a folder of this stack's own (ESBUILD_WORK_FOLDER, default
 * `.esbuild-offline-<PORT>`), removed when it stops: `serverless package` builds into `.esbuild/` and
 * deletes it when done, and a second stack rebuilds its own folder, so neither takes away the handlers
 * this one serves.
 * While the handlers build it prints how many are built, and waits as long as the build advances
 * (START_WAIT_SECONDS without progress, scripts/local/build-progress.ts), not a fixed time.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, readFileSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { createDatabase } from '../lib/db/client';
import { FUNCTIONS_FILE } from './deployment';
import {
  type BuildProgress,
  handlerModules,
  progressLine,
  progressOf,
  stalledMessage,
  waitSeconds,
} from './local/build-progress';
import { isRouteTableLine } from './local/offline-output';
import {
  nextFreePort,
  type PrivateTempDir,
  portTaken,
  privateTempDir,
  type RunningDynamoDb,
  startDynamoDbLocal,
  stopGroup,
  stopGroupAndWait,
} from './local/processes';
import { claim, holderOf, localData, prepareLocalData } from './local-data';
import { DEMO_PASSWORD } from './seed';

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
const data = localData(root, process.env);
const stage = 'local';
const tableName = `strategy-service-${stage}`;
const baseUrl = `http://localhost:${httpPort}/api`;
const quiet = process.env.OFFLINE_LOG === 'quiet';
/** One stack per HTTP port, so one build folder per port; a folder given in the environment is kept. */
const buildFolder = process.env.ESBUILD_WORK_FOLDER || `.esbuild-offline-${httpPort}`;
const removeBuild = () => {
  if (!process.env.ESBUILD_WORK_FOLDER) rmSync(join(root, buildFolder), { recursive: true, force: true });
};
const logFile = process.env.STACK_LOG_FILE ? resolve(process.env.STACK_LOG_FILE) : undefined;

/** A path for messages: relative to the checkout when inside it. */
const shown = (path: string) => (path.startsWith(`${root}/`) ? relative(root, path) : path);

let dynamo: RunningDynamoDb | undefined;
let offline: ChildProcess | undefined;
let offlineTemp: PrivateTempDir | undefined;
let release: (() => void) | undefined;
let stopping = false;

const shutdown = async (code: number) => {
  if (stopping) return;
  stopping = true;
  await Promise.all([stopGroupAndWait(offline), dynamo?.stop()]);
  offlineTemp?.remove();
  if (offline) removeBuild();
  release?.();
  process.exit(code);
};

process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));
// Last resort if this process dies another way: never leave a JVM or Lambda worker behind.
process.on('exit', () => {
  stopGroup(offline, 'SIGKILL');
  stopGroup(dynamo?.process, 'SIGKILL');
  offlineTemp?.remove();
  release?.();
});

/** The build's progress as the plugin's lines tell it (none yet: nothing built). */
const readProgress = (file: string, total: number): BuildProgress => {
  try {
    return progressOf(readFileSync(file, 'utf8'), total);
  } catch {
    return progressOf('', total);
  }
};

/**
 * Waits until serverless-offline answers, as long as something advances: a function's build starting
 * or ending. Prints the progress when it changes, at most every few seconds.
 */
const waitForStack = async (url: string, child: ChildProcess, progressFile: string, total: number) => {
  const stallMs = waitSeconds(process.env) * 1000;
  const startedAt = Date.now();
  let advancedAt = startedAt;
  let lastSeen: number | undefined;
  let printed = '';
  let printedAt = 0;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`serverless offline exited with code ${child.exitCode}`);
    try {
      await fetch(url);
      return;
    } catch {
      // Not listening yet.
    }
    const progress = readProgress(progressFile, total);
    if (progress.lastChangeAt !== lastSeen) {
      lastSeen = progress.lastChangeAt;
      advancedAt = Date.now();
    }
    const line = progressLine(progress);
    if (
      progress.lastChangeAt !== undefined &&
      line !== printed &&
      (Date.now() - printedAt >= 5000 || progress.built === total)
    ) {
      console.log(line);
      printed = line;
      printedAt = Date.now();
    }
    if (Date.now() - advancedAt > stallMs) {
      throw new Error(
        stalledMessage({
          url,
          waitedSeconds: (Date.now() - startedAt) / 1000,
          stalledSeconds: stallMs / 1000,
          progress,
        }),
      );
    }
    await new Promise((r) => setTimeout(r, 250));
  }
};

/**
 * Before starting anything, each port must be valid, distinct and free. On a taken DynamoDB
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
  const holder = data.dynamoDir ? holderOf(data) : undefined;
  if (holder) {
    problems.push(
      `Another npm start (pid ${holder}) uses ${shown(data.dir)}: stop it first, or give this one a ` +
        'data folder of its own, e.g. LOCAL_DATA_DIR=.local-2 npm start.',
    );
  }
  if (problems.length > 0) {
    for (const problem of problems) console.error(problem);
    stopping = true;
    process.exit(1);
  }
  if (data.dynamoDir) release = claim(data);
  console.log(
    `Starting DynamoDB Local on port ${dynamoPort} ${data.dynamoDir ? `(data in ${shown(data.dynamoDir)})` : '(in memory)'} ...`,
  );
  dynamo = await startDynamoDbLocal(dynamoPort, { dataDir: data.dynamoDir });
  const db = createDatabase({ tableName, region: 'eu-central-1', endpoint: dynamo.endpoint });
  const { seed, seeded, jwtSecret, secretsKey } = await prepareLocalData(db, data, {
    baseUrl,
    dynamodbEndpoint: dynamo.endpoint,
  });

  console.log(`Starting serverless offline on port ${httpPort} ...`);
  offlineTemp = privateTempDir('strategy-offline-');
  const progressFile = join(offlineTemp.dir, 'build-progress.jsonl');
  const functionsFile = resolve(root, process.env.FUNCTIONS_FILE || FUNCTIONS_FILE);
  const total = handlerModules(JSON.parse(readFileSync(functionsFile, 'utf8'))).length;
  console.log(`Building ${total} functions (esbuild) ...`);
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
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        ...offlineTemp.env,
        BUILD_PROGRESS_FILE: progressFile,
        ESBUILD_WORK_FOLDER: buildFolder,
        JWT_SECRET: jwtSecret,
        SECRETS_KEY: secretsKey,
        DYNAMODB_ENDPOINT: dynamo.endpoint,
        AWS_REGION: 'eu-central-1',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
        SLS_TELEMETRY_DISABLED: '1',
      },
    },
  );
  // Everything goes to the log file as written; the terminal gets all but the function and route
  // lists (the summary below names the pages, and /api/docs the routes).
  const file = logFile ? createWriteStream(logFile, { flags: 'a' }) : undefined;
  if (offline.stdout && offline.stderr) {
    offline.stdout.on('data', (chunk) => file?.write(chunk));
    offline.stderr.on('data', (chunk) => file?.write(chunk));
    createInterface({ input: offline.stdout }).on('line', (line) => {
      if (!quiet && !isRouteTableLine(line)) process.stdout.write(`${line}\n`);
    });
    createInterface({ input: offline.stderr }).on('line', (line) => process.stderr.write(`${line}\n`));
  }
  offline.once('exit', (code) => {
    if (!stopping) {
      console.error(`serverless offline exited (code ${code}); stopping.`);
      void shutdown(1);
    }
  });
  await waitForStack(`http://127.0.0.1:${httpPort}/`, offline, progressFile, total);

  const logins = (seed?.tenants ?? []).flatMap((tenant) =>
    tenant.users.map((user) => `  ${user.email.padEnd(26)} ${user.role.padEnd(7)} ${tenant.name}`),
  );
  const platform = `http://localhost:${httpPort}/platform`;
  console.log(
    [
      '',
      `Strategy service is running: ${baseUrl}`,
      `KPI page: ${platform}/kpis`,
      `API key page: ${platform}/api-keys`,
      `Integrations page: ${platform}/integrations (locally they run only with npm run pull:run or "Run now")`,
      `Audit log: ${platform}/audit`,
      `People: ${platform}/people (invitation links open ${platform}/accept)`,
      `API reference: ${baseUrl}/docs`,
      seeded
        ? `Demo data: seeded now, recorded in ${shown(data.seedFile)}`
        : `Demo data: kept from the last run, recorded in ${shown(data.seedFile)} (npm run reset starts over)`,
      ...(seed
        ? [`Demo logins (password "${DEMO_PASSWORD}"):`, ...logins]
        : [
            `The database holds data but ${shown(data.seedFile)} is gone, so the demo logins and keys are unknown: npm run reset seeds them again.`,
          ]),
      '',
      'Push a first measurement: npm run demo:push (in another terminal)',
      'Press Ctrl-C to stop.',
    ].join('\n'),
  );
};

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  void shutdown(1);
});

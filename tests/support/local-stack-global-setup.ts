import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { freePort, stopGroupAndWait } from '../../scripts/local/processes';
import { newSigningKey, startKeysServer } from './github-keys';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
    seedFile: string;
    /** The stack's DynamoDB Local, for tests that need data the seed does not have. */
    stackDynamodbEndpoint: string;
    /** Everything the stack printed: serverless-offline, and every log and metric line of the handlers. */
    stackLogFile: string;
    /** The one browser origin the stack allows on its JWT endpoints (CORS). */
    corsOrigin: string;
    /**
     * The stack's signing key: other processes of the local stage (`npm run alerts:run`) open the
     * webhook secrets with it, as they do with the key `npm start` keeps in its data folder.
     */
    stackJwtSecret: string;
    /** The stack's secrets key: `npm run pull:run` opens the pull credentials with it. */
    stackSecretsKey: string;
  }
}

/**
 * Starts the real local stack, exactly as `npm start` does (scripts/start.ts), on free ports, with a
 * database in memory and its own seed file, then hands the base URL to the end-to-end tests. Its
 * folder (seed file, log) goes when the stack stops.
 */
export async function setup(project: TestProject) {
  const root = resolve(__dirname, '..', '..');
  const [httpPort, lambdaPort, dynamoPort] = [await freePort(), await freePort(), await freePort()];
  const dir = mkdtempSync(join(tmpdir(), 'strategy-e2e-'));
  const seedFile = join(dir, 'seed.json');
  const stackLogFile = join(dir, 'stack.log');
  const corsOrigin = 'https://app.example.test';
  // GitHub's secret-scanning keys, served here: the stack's handlers fetch them as they would GitHub's.
  const signingKey = newSigningKey();
  const keysServer = await startKeysServer([signingKey]);
  // An in-memory database keeps no key file: the key is given, as a developer may give JWT_SECRET.
  const jwtSecret = randomBytes(32).toString('base64url');
  const secretsKey = randomBytes(32).toString('base64url');
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      PORT: String(httpPort),
      LAMBDA_PORT: String(lambdaPort),
      DYNAMODB_PORT: String(dynamoPort),
      SEED_FILE: seedFile,
      // The tests' own data, gone when the stack stops: never a developer's .local/ database.
      DYNAMODB_IN_MEMORY: 'true',
      OFFLINE_LOG: 'quiet',
      // Every line at the most verbose level into one file: tests can search all of it.
      STACK_LOG_FILE: stackLogFile,
      LOG_LEVEL: 'debug',
      POWERTOOLS_METRICS_DISABLED: 'false',
      CORS_ORIGINS: corsOrigin,
      SECRET_SCANNING_KEYS_URL: keysServer.url,
      JWT_SECRET: jwtSecret,
      SECRETS_KEY: secretsKey,
      // Its own build folder, so a developer's `npm start` in the same checkout keeps its handlers.
      ESBUILD_WORK_FOLDER: '.esbuild-e2e',
    },
  });
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });

  const baseUrl = `http://localhost:${httpPort}/api`;
  // As npm start itself waits: as long as the build advances (each built function prints a line), and
  // minutes, not seconds, without a new line: on a loaded machine the JVM and an esbuild take long.
  let seen = 0;
  let deadline = Date.now() + 300_000;
  while (!output.includes('Strategy service is running')) {
    if (output.length > seen) {
      seen = output.length;
      deadline = Date.now() + 300_000;
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      await stopGroupAndWait(child);
      await keysServer.close();
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`The local stack did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  if (!existsSync(seedFile) || !readFileSync(seedFile, 'utf8').includes(baseUrl)) {
    throw new Error(`Seed file ${seedFile} missing or without ${baseUrl}`);
  }
  project.provide('baseUrl', baseUrl);
  project.provide('seedFile', seedFile);
  project.provide('stackDynamodbEndpoint', `http://127.0.0.1:${dynamoPort}`);
  project.provide('stackLogFile', stackLogFile);
  project.provide('corsOrigin', corsOrigin);
  project.provide('secretScanningKey', {
    identifier: signingKey.identifier,
    privateKeyPem: signingKey.privateKeyPem,
  });
  project.provide('stackJwtSecret', jwtSecret);
  project.provide('stackSecretsKey', secretsKey);
  return async () => {
    await stopGroupAndWait(child, 10_000);
    await keysServer.close();
    rmSync(dir, { recursive: true, force: true });
  };
}

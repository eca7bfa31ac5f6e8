import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, stopGroupAndWait } from '../../scripts/local/processes';
import type { SeedFile } from '../../scripts/seed';

/**
 * A stack of its own, started as a developer starts `npm start`, with its defaults (no
 * ESBUILD_WORK_FOLDER): `npm run package` beside it leaves it serving, and with its DynamoDB Local
 * gone it answers pushes as API Gateway does when the authorizer fails (AUTHORIZER_FAILURE → 503).
 */
const root = resolve(__dirname, '..', '..');
const scratch = mkdtempSync(join(tmpdir(), 'strategy-resilience-'));
const ports = { http: 0, lambda: 0, dynamo: 0 };
let child: ChildProcess | undefined;
let seed: SeedFile;
let base = '';

/** The environment of a developer's shell: no build folder, no AWS credentials, a temp folder of its own. */
const developerEnv = (tmp: string) => {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => name !== 'ESBUILD_WORK_FOLDER' && !name.startsWith('AWS_') && !name.startsWith('DYNAMODB_'),
    ),
  );
  return { ...env, TMPDIR: tmp, TMP: tmp, TEMP: tmp, SLS_TELEMETRY_DISABLED: '1' };
};

beforeAll(async () => {
  [ports.http, ports.lambda, ports.dynamo] = [await freePort(), await freePort(), await freePort()];
  const tmp = join(scratch, 'stack-tmp');
  mkdirSync(tmp);
  child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...developerEnv(tmp),
      PORT: String(ports.http),
      LAMBDA_PORT: String(ports.lambda),
      DYNAMODB_PORT: String(ports.dynamo),
      DYNAMODB_IN_MEMORY: 'true',
      SEED_FILE: join(scratch, 'seed.json'),
      OFFLINE_LOG: 'quiet',
    },
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const deadline = Date.now() + 300_000;
  while (!output.includes('Press Ctrl-C to stop.')) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`npm start did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  seed = JSON.parse(readFileSync(join(scratch, 'seed.json'), 'utf8')) as SeedFile;
  base = seed.baseUrl;
}, 330_000);

afterAll(async () => {
  await stopGroupAndWait(child);
  rmSync(scratch, { recursive: true, force: true });
});

const acme = () => seed.tenants[0]!;
const pushKey = () => acme().apiKeys.find((key) => key.status === 'active' && key.kpiIds === null)!.key;
const push = (key: string) => {
  const kpi = acme().kpis.find((candidate) => candidate.type === 'BSC_KPI')!;
  return fetch(`${base}/integrations/push/measurement`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'Content-Type': 'application/json' },
    body: JSON.stringify({ kpiId: kpi.id, kpiType: kpi.type, actual: 42 }),
  });
};

/** The pid of the JVM of DynamoDB Local on `port` (it leads its own process group). */
const dynamoDbPid = (port: number): number => {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let args: string[];
    try {
      args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
    } catch {
      continue; // gone meanwhile
    }
    const flag = args.indexOf('-port');
    if (args.some((arg) => arg.includes('DynamoDBLocal')) && args[flag + 1] === String(port))
      return Number(entry);
  }
  throw new Error(`no DynamoDB Local on port ${port}`);
};

describe('npm start beside `npm run package`, and without its database', () => {
  it('`npm run package` while the stack runs: the stack keeps serving, also functions first called after it', async () => {
    const tmp = join(scratch, 'package-tmp');
    mkdirSync(tmp);
    const build = join(root, `.esbuild-offline-${ports.http}`);
    expect(existsSync(build)).toBe(true);
    // As docs/operations.md says, with the artifacts put aside so a developer's .serverless/ stays.
    await promisify(execFile)('npm', ['run', 'package', '--', '--package', join(scratch, 'package')], {
      cwd: root,
      env: { ...developerEnv(tmp), AWS_SHARED_CREDENTIALS_FILE: '/nonexistent' },
      maxBuffer: 16 * 1024 * 1024,
    });
    expect(readdirSync(join(scratch, 'package')).some((name) => name.endsWith('.zip'))).toBe(true);
    // Packaging built in .esbuild/ and deleted it; the stack's own folder is as it was.
    expect(existsSync(join(root, '.esbuild'))).toBe(false);
    expect(existsSync(build)).toBe(true);

    // None of these functions ran before the package: each loads its handler from the stack's folder now.
    const health = await fetch(`${base}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });
    expect((await fetch(`${base.replace(/\/api$/, '/platform')}/kpis`)).status).toBe(200);
    expect((await push(pushKey())).status).toBeOneOf([200, 201]);
  }, 600_000);

  it('with DynamoDB Local gone, a push is 503 with Retry-After (AUTHORIZER_FAILURE, as on AWS), not 401', async () => {
    // A token first, while the database answers.
    const admin = acme().users.find((user) => user.role === 'ADMIN')!;
    const login = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: admin.email, password: admin.password }),
    });
    const { token } = (await login.json()) as { token: string };
    process.kill(-dynamoDbPid(ports.dynamo), 'SIGKILL');

    const refused = await push(pushKey());
    expect(refused.status).toBe(503);
    expect(refused.headers.get('content-type')).toBe('application/problem+json');
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({
      type: 'https://strategy-service.example.com/problems/service-unavailable',
      status: 503,
    });
    // A malformed key needs no database: still the authorizer's refusal, 401.
    expect((await push('skm_not-a-key')).status).toBe(401);
    // Reads with a token answer 503 too, as before.
    const read = await fetch(`${base}/kpis`, { headers: { Authorization: `Bearer ${token}` } });
    expect(read.status).toBe(503);
  }, 300_000);

  it('Ctrl-C removes the build folder the stack made for itself', async () => {
    const exited = new Promise<number | null>((done) => child?.once('exit', (code) => done(code)));
    process.kill(child?.pid as number, 'SIGINT');
    expect(await exited).toBe(0);
    expect(existsSync(join(root, `.esbuild-offline-${ports.http}`))).toBe(false);
  }, 120_000);
});

import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { type AddressInfo, connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, stopGroupAndWait } from '../../scripts/local/processes';
import type { SeedFile } from '../../scripts/seed';
import { BROWSER_TIMEOUT_MS, launchBrowser, signIn } from '../support/browser';

const root = resolve(__dirname, '..', '..');
const scratch = mkdtempSync(join(tmpdir(), 'strategy-start-'));
let scratchFiles = 0;
const scratchDir = () => {
  const dir = join(scratch, String(++scratchFiles));
  mkdirSync(dir);
  return dir;
};
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const listening = (port: number) =>
  new Promise<boolean>((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });

/** `npm start` as a developer runs it (`exec node --import tsx scripts/start.ts`), until it is ready. */
const startStack = async (env: Record<string, string>, command = 'node --import tsx scripts/start.ts') => {
  const [file, ...args] = command.split(' ') as [string, ...string[]];
  const child = spawn(file === 'node' ? process.execPath : file, args, {
    cwd: root,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, OFFLINE_LOG: 'quiet', ...env },
  });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const deadline = Date.now() + 240_000;
  while (!output.includes('Press Ctrl-C to stop.') && Date.now() < deadline && child.exitCode === null) {
    await new Promise((r) => setTimeout(r, 200));
  }
  return { child, output: () => output };
};

/** Ctrl-C: SIGINT to the script, which stops everything it started; resolves with its exit code. */
const interrupt = (child: ChildProcess) => {
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  process.kill(child.pid as number, 'SIGINT');
  return exited;
};

describe('npm start (scripts/start.ts)', () => {
  const ports = { http: 0, lambda: 0, dynamo: 0 };
  let child: ChildProcess | undefined;
  afterAll(() => stopGroupAndWait(child));

  it('serves with the given ports, and Ctrl-C (SIGINT to the script) stops DynamoDB Local and serverless-offline', async () => {
    [ports.http, ports.lambda, ports.dynamo] = [await freePort(), await freePort(), await freePort()];
    const seedFile = join(scratchDir(), 'seed.json');
    const stack = await startStack({
      PORT: String(ports.http),
      LAMBDA_PORT: String(ports.lambda),
      DYNAMODB_PORT: String(ports.dynamo),
      SEED_FILE: seedFile,
      DYNAMODB_IN_MEMORY: 'true',
      ESBUILD_WORK_FOLDER: '.esbuild-e2e-start',
    });
    child = stack.child;
    expect(stack.output()).toContain(`Strategy service is running: http://localhost:${ports.http}/api`);
    expect(stack.output()).toContain('(in memory)');
    expect(stack.output()).toMatch(/admin@acme\.example\s+ADMIN/);
    expect(JSON.parse(readFileSync(seedFile, 'utf8')).baseUrl).toBe(`http://localhost:${ports.http}/api`);
    expect(await listening(ports.http)).toBe(true);
    expect(await listening(ports.dynamo)).toBe(true);

    expect(await interrupt(child)).toBe(0);
    expect(await listening(ports.http)).toBe(false);
    expect(await listening(ports.lambda)).toBe(false);
    expect(await listening(ports.dynamo)).toBe(false);
  }, 300_000);

  it.each(['PORT', 'LAMBDA_PORT', 'DYNAMODB_PORT'] as const)(
    'refuses to start when %s is taken, naming the port and what to set, and starts nothing',
    async (taken) => {
      const blocker = createServer();
      const blocked = await new Promise<number>((done) =>
        blocker.listen(0, '127.0.0.1', () => done((blocker.address() as AddressInfo).port)),
      );
      const others = [await freePort(), await freePort(), await freePort()];
      const env = {
        PORT: String(others[0]),
        LAMBDA_PORT: String(others[1]),
        DYNAMODB_PORT: String(others[2]),
        [taken]: String(blocked),
      };
      try {
        const refused = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
          cwd: root,
          detached: true,
          stdio: ['ignore', 'pipe', 'pipe'],
          env: {
            ...process.env,
            ...env,
            LOCAL_DATA_DIR: scratchDir(),
          },
        });
        let stdout = '';
        let stderr = '';
        refused.stdout?.on('data', (chunk) => {
          stdout += chunk;
        });
        refused.stderr?.on('data', (chunk) => {
          stderr += chunk;
        });
        const code = await new Promise<number | null>((done) =>
          refused.once('exit', (exitCode) => done(exitCode)),
        );
        expect(code).toBe(1);
        expect(stderr).toContain(`Port ${blocked} (${taken}, for `);
        expect(stderr).toMatch(new RegExp(`is already in use.*e\\.g\\. ${taken}=\\d+ npm start`));
        // Nothing was started: no DynamoDB Local, no serverless-offline.
        expect(stdout).not.toContain('Starting');
        for (const port of Object.values(env)
          .map(Number)
          .filter((port) => port !== blocked)) {
          expect(await listening(port)).toBe(false);
        }
      } finally {
        await new Promise((done) => blocker.close(done));
      }
    },
    60_000,
  );

  it('refuses two variables with the same port, and a value that is not a port', async () => {
    const port = String(await freePort());
    const attempt = (env: Record<string, string>) =>
      new Promise<{ code: number | null; stderr: string }>((done) => {
        const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
          cwd: root,
          stdio: ['ignore', 'ignore', 'pipe'],
          env: { ...process.env, LOCAL_DATA_DIR: scratchDir(), ...env },
        });
        let stderr = '';
        child.stderr?.on('data', (chunk) => {
          stderr += chunk;
        });
        child.once('exit', (code) => done({ code, stderr }));
      });
    const same = await attempt({ PORT: port, LAMBDA_PORT: port, DYNAMODB_PORT: String(await freePort()) });
    expect(same.code).toBe(1);
    expect(same.stderr).toContain(`PORT and LAMBDA_PORT are both ${port}: give each its own port.`);
    const word = await attempt({ PORT: port, LAMBDA_PORT: String(await freePort()), DYNAMODB_PORT: 'eight' });
    expect(word.code).toBe(1);
    expect(word.stderr).toContain('DYNAMODB_PORT=eight is not a port number (1 to 65535).');
  }, 60_000);
});

const leftovers = (dir: string) =>
  readdirSync(dir).filter((name) => !name.startsWith('tsx-') && name !== 'node-compile-cache');

/** The README's quick start: its commands, in order, from the sh blocks of its "Quick start" section. */
const quickStart = () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(
    readme.indexOf('\n## Quick start\n'),
    readme.indexOf('\n## ', readme.indexOf('\n## Quick start\n') + 1),
  );
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1]!);
  const commands = blocks.flatMap((block) =>
    block
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter((line) => line !== '' && !line.startsWith('#')),
  );
  return { section, commands };
};

describe('the README quick start, run as written, twice: the data survives a restart', () => {
  const env: Record<string, string> = {};
  let child: ChildProcess | undefined;
  const browsers: Browser[] = [];
  afterAll(async () => {
    for (const browser of browsers) await browser.close();
    await stopGroupAndWait(child);
  });

  it('has at most 5 commands and nothing to fill in', () => {
    const { section, commands } = quickStart();
    expect(commands).toEqual(['npm install', 'npm start', 'npm run demo:push']);
    expect(section).not.toMatch(/<[a-z_ -]+>|…|\.\.\.|YOUR_|xxx/i);
    // What to open and how to sign in, as npm start and demo:push print them.
    expect(section).toContain('http://localhost:3000/platform/kpis');
    expect(section).toContain('admin@acme.example');
    expect(section).toContain('demo-password-1');
  });

  it('npm start, npm run demo:push: the value shows on /platform/kpis; stopped and started again, everything is still there', async () => {
    const { commands } = quickStart();
    // `npm install` is what made this checkout's node_modules.
    expect(existsSync(join(root, 'node_modules', '.package-lock.json'))).toBe(true);
    const tmp = scratchDir();
    const data = scratchDir();
    const [http, lambda, dynamo] = [await freePort(), await freePort(), await freePort()];
    Object.assign(env, {
      PORT: String(http),
      LAMBDA_PORT: String(lambda),
      DYNAMODB_PORT: String(dynamo),
      LOCAL_DATA_DIR: data,
      // A temp folder of its own: whatever the stack leaves there is left behind by it.
      TMPDIR: tmp,
      ESBUILD_WORK_FOLDER: '.esbuild-e2e-start',
    });
    const run = async (command: string) =>
      promisify(execFile)('bash', ['-e', '-o', 'pipefail', '-c', command], {
        cwd: root,
        env: { ...process.env, ...env },
      });

    // First run: an empty data folder is seeded.
    expect(commands[1]).toBe('npm start');
    const first = await startStack(env, 'npm start');
    child = first.child;
    expect(first.output()).toContain('Demo data: seeded now');
    expect(first.output()).toMatch(/admin@acme\.example\s+ADMIN/);
    const seed = JSON.parse(readFileSync(join(data, 'seed.json'), 'utf8')) as SeedFile;
    const base = seed.baseUrl;
    expect(base).toBe(`http://localhost:${http}/api`);

    const pushed = await run(commands[2]!);
    expect(pushed.stdout).toMatch(
      /^Pushed [\d,]+ \(target [\d,]+\) to "Monthly recurring revenue" of Acme Corporation.*: created \(201\)\./m,
    );
    const acme = seed.tenants[0]!;
    const admin = acme.users.find((user) => user.role === 'ADMIN')!;
    const revenue = acme.kpis.find((kpi) => kpi.type === 'BSC_KPI')!;
    const value = /^Pushed ([\d,]+)/m.exec(pushed.stdout)![1]!;

    // What a person sees: the KPI page, signed in as the quick start says. The tab stays open over
    // the restart below.
    const browser = await launchBrowser();
    browsers.push(browser);
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
    await page.goto(`http://localhost:${http}/platform/kpis`);
    await signIn(page, admin);
    const row = page.locator(`#kpi-body tr[data-kpi-id="${revenue.id}"]`);
    await row.waitFor();
    await expect(row.innerText()).resolves.toContain(value);

    // A token, a key and the state of the first run.
    const login = await fetch(`${base}/auth/login`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: admin.email, password: admin.password }),
    });
    const { token } = (await login.json()) as { token: string };
    const auth = { Authorization: `Bearer ${token}` };
    const newKey = await fetch(`${base}/api-keys`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Made before the restart' }),
    });
    expect(newKey.status).toBe(201);
    const read = async (path: string) =>
      (await (await fetch(`${base}${path}`, { headers: auth })).json()) as any;
    const before = { kpi: await read(`/kpis/${revenue.id}`), keys: await read('/api-keys') };
    expect(before.kpi.measurements.length).toBeGreaterThan(10);

    expect(await interrupt(child)).toBe(0);
    // Nothing of the run is left in the temp folder but the compile caches of tsx and Node, which
    // every run shares and reuses.
    expect(leftovers(tmp)).toEqual([]);

    // Second run, same data folder: nothing is seeded, everything is there, the old token works.
    const second = await startStack(env, 'npm start');
    child = second.child;
    expect(second.output()).toContain('Demo data: kept from the last run');
    expect(second.output()).toMatch(/admin@acme\.example\s+ADMIN/);
    expect(JSON.parse(readFileSync(join(data, 'seed.json'), 'utf8'))).toEqual(seed);
    expect(await read(`/kpis/${revenue.id}`)).toEqual(before.kpi);
    expect(await read('/api-keys')).toEqual(before.keys);
    const again = await run(commands[2]!);
    expect(again.stdout).toContain(': updated (200).');
    // As the README says: the signed-in tab stays signed in (reloaded, it shows the KPIs without asking),
    // and a new tab asks to sign in (the pages keep their tokens in the tab's sessionStorage).
    await page.reload();
    await row.waitFor();
    expect(await page.locator('#email').isVisible()).toBe(false);
    const newTab = await context.newPage();
    await newTab.goto(`http://localhost:${http}/platform/kpis`);
    await newTab.locator('#email').waitFor();
    expect(await newTab.locator(`#kpi-body tr[data-kpi-id="${revenue.id}"]`).count()).toBe(0);
    await browser.close();
    expect(await interrupt(child)).toBe(0);
    expect(leftovers(tmp)).toEqual([]);

    // `npm run reset -- --yes`: new demo data, new ids, a new signing key.
    const secret = readFileSync(join(data, 'jwt-secret'), 'utf8');
    await run('npm run -s reset -- --yes');
    const reseeded = JSON.parse(readFileSync(join(data, 'seed.json'), 'utf8')) as SeedFile;
    expect(reseeded.tenants[0]!.id).not.toBe(acme.id);
    expect(readFileSync(join(data, 'jwt-secret'), 'utf8')).not.toBe(secret);
  }, 900_000);
});

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { type AddressInfo, connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, stopGroupAndWait } from '../../scripts/processes';

const root = resolve(__dirname, '..', '..');

const listening = (port: number) =>
  new Promise<boolean>((done) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });

describe('npm start (scripts/start.ts)', () => {
  const ports = { http: 0, lambda: 0, dynamo: 0 };
  let child: ReturnType<typeof spawn> | undefined;
  afterAll(() => stopGroupAndWait(child));

  it('serves with the given ports, and Ctrl-C (SIGINT to the script) stops DynamoDB Local and serverless-offline', async () => {
    [ports.http, ports.lambda, ports.dynamo] = [await freePort(), await freePort(), await freePort()];
    const seedFile = join(mkdtempSync(join(tmpdir(), 'strategy-start-')), 'seed.json');
    child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
      cwd: root,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        PORT: String(ports.http),
        LAMBDA_PORT: String(ports.lambda),
        DYNAMODB_PORT: String(ports.dynamo),
        SEED_FILE: seedFile,
        OFFLINE_LOG: 'quiet',
        ESBUILD_WORK_FOLDER: '.esbuild-e2e-start',
      },
    });
    let output = '';
    child.stdout?.on('data', (chunk) => {
      output += chunk;
    });
    const deadline = Date.now() + 150_000;
    while (!output.includes('Press Ctrl-C to stop.') && Date.now() < deadline && child.exitCode === null) {
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(output).toContain(`Strategy service is running: http://localhost:${ports.http}/api`);
    expect(output).toMatch(/admin@acme\.example\s+ADMIN/);
    expect(JSON.parse(readFileSync(seedFile, 'utf8')).baseUrl).toBe(`http://localhost:${ports.http}/api`);
    expect(await listening(ports.http)).toBe(true);
    expect(await listening(ports.dynamo)).toBe(true);

    const exited = new Promise<number | null>((done) => child?.once('exit', (code) => done(code)));
    process.kill(child.pid as number, 'SIGINT');
    expect(await exited).toBe(0);
    expect(await listening(ports.http)).toBe(false);
    expect(await listening(ports.lambda)).toBe(false);
    expect(await listening(ports.dynamo)).toBe(false);
  }, 180_000);

  it.each(['PORT', 'LAMBDA_PORT', 'DYNAMODB_PORT'] as const)(
    'refuses to start when %s is taken, naming the port and what to set, and starts nothing (issue 13)',
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
            SEED_FILE: join(mkdtempSync(join(tmpdir(), 'strategy-start-')), 'seed.json'),
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
          env: { ...process.env, ...env },
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

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';
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
});

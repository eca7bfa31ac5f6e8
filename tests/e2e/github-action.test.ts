import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFaultProxy } from '../support/fault-proxy';
import { baseUrl, createPushTenant, type PushTenant, storedMeasurements } from '../support/http';

/**
 * The GitHub Action end to end: its built entry point (dist/index.cjs, what the runner executes) run
 * as the runner runs it, with the inputs as `INPUT_<NAME>` environment variables (upper case, hyphens
 * kept) and the outputs written to the file in GITHUB_OUTPUT, against the local stack. The tests push
 * to a tenant of their own, each to periods of its own year.
 */
const root = resolve(__dirname, '..', '..');
const ENTRY = join(root, 'integrations', 'github-action', 'dist', 'index.cjs');
const dir = mkdtempSync(join(tmpdir(), 'github-action-e2e-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let tenant: PushTenant;
beforeAll(async () => {
  tenant = await createPushTenant(
    [
      { type: 'BSC_KPI', name: 'Test coverage' },
      { type: 'OKR_KEY_RESULT', name: 'Deploys' },
    ],
    'GitHub Action e2e',
  );
});

interface ActionResult {
  code: number | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
}

/** The `name<<delimiter … delimiter` records that @actions/core appends to GITHUB_OUTPUT. */
const readOutputs = (text: string) => {
  const outputs: Record<string, string> = {};
  for (const match of text.matchAll(/^([\w-]+)<<(\S+)\n([\s\S]*?)\n\2$/gm)) outputs[match[1]!] = match[3]!;
  return outputs;
};

let runs = 0;
const runAction = (inputs: Record<string, string>) =>
  new Promise<ActionResult>((done) => {
    const outputFile = join(dir, `output-${++runs}`);
    writeFileSync(outputFile, '');
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(
        ([name]) => !name.startsWith('INPUT_') && !name.startsWith('GITHUB_'),
      ),
    );
    const env = {
      ...inherited,
      // What the runner sets for inputs with a default in action.yml, given or not.
      'INPUT_DRY-RUN': 'false',
      ...Object.fromEntries(
        Object.entries(inputs).map(([name, value]) => [
          `INPUT_${name.replace(/ /g, '_').toUpperCase()}`,
          value,
        ]),
      ),
      GITHUB_OUTPUT: outputFile,
    };
    const child = spawn(process.execPath, [ENTRY], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('close', (code) =>
      done({ code, stdout, stderr, outputs: readOutputs(readFileSync(outputFile, 'utf8')) }),
    );
  });

/** The raw key appears once, in the command that masks it, and in no other line and no output. */
const expectKeyMasked = (result: ActionResult, key: string) => {
  const lines = `${result.stdout}\n${result.stderr}`.split('\n');
  expect(lines.filter((line) => line.includes(key.slice(4)))).toEqual([`::add-mask::${key}`]);
  expect(lines[0]).toBe(`::add-mask::${key}`);
  expect(JSON.stringify(result.outputs)).not.toContain(key.slice(4));
};

const inputsFor = (kpiIndex: number, overrides: Record<string, string> = {}) => {
  const kpi = tenant.kpis[kpiIndex]!;
  return {
    'base-url': baseUrl(),
    'api-key': tenant.key,
    'kpi-id': kpi.id,
    'kpi-type': kpi.type,
    ...overrides,
  };
};

describe('the GitHub Action', () => {
  it('pushes a value (with its target) that the API then returns; a second run replaces it', async () => {
    const coverage = tenant.kpis[0]!;
    const period = { 'period-start': '2051-03-01', 'period-end': '2051-03-31' };
    const first = await runAction(inputsFor(0, { value: '87.5', target: '90', ...period }));
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(
      'kpi-push: 1 rows: 1 created, 0 updated, 0 rejected, 0 not sent; 0 retries.\n',
    );
    expect(first.outputs).toEqual({ count: '1', created: '1', updated: '0', 'exit-code': '0' });
    expectKeyMasked(first, tenant.key);
    expect(await storedMeasurements(tenant, coverage.id, 2051)).toEqual([
      expect.objectContaining({
        periodStart: '2051-03-01',
        periodEnd: '2051-03-31',
        actual: 87.5,
        target: 90,
      }),
    ]);

    const second = await runAction(inputsFor(0, { value: '91', ...period }));
    expect(second.code).toBe(0);
    expect(second.outputs).toEqual({ count: '1', created: '0', updated: '1', 'exit-code': '0' });
    const stored = await storedMeasurements(tenant, coverage.id, 2051);
    expect(stored).toHaveLength(1);
    expect(stored[0]!.actual).toBe(91);
  });

  it('dry-run: the service checks the value and stores nothing; the outputs say what would happen', async () => {
    const result = await runAction(
      inputsFor(0, { value: '75', 'period-start': '2052-01-01', 'dry-run': 'true' }),
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(
      "kpi-push: 1 rows: 1 passed the service's checks (dry run: nothing stored; would create 1, update 0)",
    );
    expect(result.outputs).toEqual({ count: '1', created: '1', updated: '0', 'exit-code': '0' });
    expectKeyMasked(result, tenant.key);
    expect(await storedMeasurements(tenant, tenant.kpis[0]!.id, 2052)).toEqual([]);
  });

  it('a wrong key fails the step with the API’s problem (exit 4), stores nothing and is never shown', async () => {
    const wrongKey = `${tenant.key.slice(0, -1)}${tenant.key.endsWith('A') ? 'B' : 'A'}`;
    const result = await runAction(
      inputsFor(0, { 'api-key': wrongKey, value: '60', 'period-start': '2053-01-01' }),
    );
    expect(result.code).toBe(4);
    expect(result.stdout).toMatch(
      /^::error::the service refused 1 measurement: 401 The API key is missing or invalid \(invalid-api-key\).* \(request id [\w-]+\)$/m,
    );
    expect(result.outputs['exit-code']).toBe('4');
    expectKeyMasked(result, wrongKey);
    expect(await storedMeasurements(tenant, tenant.kpis[0]!.id, 2053)).toEqual([]);
  });

  it('an unknown KPI: the service’s 404 names the input (kpi-id), exit 4', async () => {
    const result = await runAction(
      inputsFor(0, { 'kpi-id': randomUUID(), value: '60', 'period-start': '2056-01-01' }),
    );
    expect(result.code).toBe(4);
    // One error command; its message lines are %0A-encoded by the runner's command syntax.
    expect(result.stdout).toMatch(
      /^::error::the service refused 1 measurement: 404 .*\(not-found\).*%0Akpi-id: not a KPI of this organization with this kpiType$/m,
    );
    expectKeyMasked(result, tenant.key);
  });

  it('a service that keeps answering 429: retried, then the step fails with exit 5 and says a rerun is safe', async () => {
    // Retry-After: 0, so the six tries take no time; the push itself never reaches the stack.
    const proxy = await startFaultProxy(new URL(baseUrl()).origin, (request) =>
      request.method === 'POST'
        ? {
            status: 429,
            headers: { 'Retry-After': '0', 'Content-Type': 'application/problem+json' },
            body: '{}',
          }
        : 'forward',
    );
    try {
      const result = await runAction(
        inputsFor(0, { 'base-url': `${proxy.origin}/api`, value: '60', 'period-start': '2057-01-01' }),
      );
      expect(result.code).toBe(5);
      expect(result.stdout).toContain(
        '::error::gave up on 1 measurement: 429 after 6 tries. Running the job again later is safe',
      );
      expect(result.outputs).toEqual({ count: '0', created: '0', updated: '0', 'exit-code': '5' });
      expect(proxy.requests.filter((request) => request.method === 'POST')).toHaveLength(6);
      expectKeyMasked(result, tenant.key);
    } finally {
      await proxy.close();
    }
  });

  it('a file of measurements: pushed as kpi-push pushes it; a bad row is an annotation on its line, and nothing is sent', async () => {
    const [coverage, deploys] = tenant.kpis as [PushTenant['kpis'][number], PushTenant['kpis'][number]];
    const csv = [
      'kpiId,kpiType,actual,periodStart',
      `${coverage.id},${coverage.type},80,2054-01-01`,
      `${deploys.id},${deploys.type},12,2054-01-01`,
    ];
    writeFileSync(join(dir, 'kpis.csv'), `${csv.join('\n')}\n`);
    const pushed = await runAction({ 'base-url': baseUrl(), 'api-key': tenant.key, file: 'kpis.csv' });
    expect(pushed.code).toBe(0);
    expect(pushed.outputs).toEqual({ count: '2', created: '2', updated: '0', 'exit-code': '0' });
    expect(await storedMeasurements(tenant, deploys.id, 2054)).toEqual([
      expect.objectContaining({ actual: 12 }),
    ]);

    writeFileSync(join(dir, 'bad.csv'), `${csv[0]}\n${coverage.id},${coverage.type},n/a,2055-01-01\n`);
    const refused = await runAction({ 'base-url': baseUrl(), 'api-key': tenant.key, file: 'bad.csv' });
    expect(refused.code).toBe(3);
    expect(refused.stdout).toContain(
      '::error file=bad.csv,line=2::bad.csv:2: actual: must be a finite number\n',
    );
    expect(refused.stdout).toContain('::error::1 problem in bad.csv; nothing was sent\n');
    expect(refused.outputs['exit-code']).toBe('3');
    expect(await storedMeasurements(tenant, coverage.id, 2055)).toEqual([]);
  });

  it('wrong inputs fail before anything is sent, with the input named (exit 2)', async () => {
    const withoutApi = await runAction(
      inputsFor(0, { 'base-url': baseUrl().replace(/\/api$/, ''), value: '1' }),
    );
    expect(withoutApi.code).toBe(2);
    expect(withoutApi.stdout).toContain(`::error::base-url must end in /api, e.g. ${baseUrl()}\n`);
    expectKeyMasked(withoutApi, tenant.key);

    const noKpi = await runAction({ 'base-url': baseUrl(), 'api-key': tenant.key, value: '1' });
    expect(noKpi.code).toBe(2);
    expect(noKpi.stdout).toContain('::error::kpi-id is required when value is given\n');
    expect(noKpi.outputs).toEqual({ 'exit-code': '2' });
  });
});

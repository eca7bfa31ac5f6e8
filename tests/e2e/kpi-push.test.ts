import { execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { type Decision, type ProxiedRequest, startFaultProxy } from '../support/fault-proxy';
import {
  baseUrl,
  createPushTenant,
  loginAs,
  type PushTenant,
  request,
  seed,
  storedMeasurements,
} from '../support/http';
import { committedDocument } from '../support/openapi';

/**
 * `kpi-push` end to end: the real CLI (bin/kpi-push.cjs, as `npx kpi-push` runs it) against
 * the local stack, through a fault proxy that injects 429, 503 and dropped connections. The tests push
 * to a tenant of their own (the seeded tenants' KPIs are other tests' fixtures), and each test uses
 * periods of its own year, so created/updated counts do not depend on other tests.
 */
const root = resolve(__dirname, '..', '..');
const BIN = join(root, 'bin', 'kpi-push.cjs');
const dir = mkdtempSync(join(tmpdir(), 'kpi-push-e2e-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

const runCli = (
  command: string[],
  { env = {}, input = '' }: { env?: Record<string, string>; input?: string } = {},
) =>
  new Promise<CliResult>((done) => {
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !name.startsWith('KPI_PUSH_')),
    );
    const [file, ...args] = command;
    const child = spawn(file!, args, {
      cwd: root,
      env: { ...inherited, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.on('close', (code) => done({ code, stdout, stderr }));
    child.stdin.end(input);
  });
const kpiPush = (args: string[], options?: { env?: Record<string, string>; input?: string }) =>
  runCli([process.execPath, BIN, ...args], options);

/** A business-plan tenant with push, three KPIs, an ADMIN and an active key, made for these tests. */
let tenant: PushTenant;
beforeAll(async () => {
  tenant = await createPushTenant(
    [
      // Daily KPIs: the files push one day of each.
      { type: 'BSC_KPI', name: 'Revenue', period: 'day' },
      { type: 'OKR_KEY_RESULT', name: 'Deploys', period: 'day' },
      { type: 'SWOT_KPI', name: 'Churn', period: 'day' },
    ],
    'kpi-push e2e',
  );
});
const activeKey = () => tenant.key;

/** `count` rows over the tenant's KPIs, one day each of `year` (distinct KPI and period). */
const rowsFor = (year: number, count: number) =>
  Array.from({ length: count }, (_, i) => {
    const kpi = tenant.kpis[i % tenant.kpis.length]!;
    const day = new Date(Date.UTC(year, 0, 1 + i)).toISOString().slice(0, 10);
    return { kpiId: kpi.id, kpiType: kpi.type, actual: i, periodStart: day, periodEnd: day };
  });
const toCsv = (rows: Record<string, unknown>[]) =>
  [
    'kpiId,kpiType,actual,periodStart,periodEnd',
    ...rows.map((r) => [r.kpiId, r.kpiType, r.actual, r.periodStart, r.periodEnd].join(',')),
  ].join('\n');
const writeInput = (name: string, text: string) => {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
};

const storedIn = (kpiId: string, year: number) => storedMeasurements(tenant, kpiId, year);

const posts = (requests: ProxiedRequest[]) => requests.filter((r) => r.method === 'POST');
const unavailable: Decision = {
  status: 503,
  headers: { 'Content-Type': 'application/problem+json' },
  body: JSON.stringify({
    type: 'https://strategy-service.example.com/problems/service-unavailable',
    status: 503,
  }),
};

let proxies: Awaited<ReturnType<typeof startFaultProxy>>[] = [];
const proxy = async (plan: (request: ProxiedRequest) => Decision = () => 'forward') => {
  const started = await startFaultProxy(new URL(baseUrl()).origin, plan);
  proxies.push(started);
  return { ...started, env: { KPI_PUSH_URL: `${started.origin}/api`, KPI_PUSH_API_KEY: activeKey() } };
};
afterEach(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  proxies = [];
});

describe('kpi-push', () => {
  it('runs as `npx kpi-push` from the checkout; --help explains reruns and exit codes', async () => {
    const help = await runCli(['npx', '--no-install', 'kpi-push', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: kpi-push');
    expect(help.stdout).toContain('Reruns are safe');
    for (const code of ['0', '2', '3', '4', '5'])
      expect(help.stdout).toMatch(new RegExp(`^ {2}${code} {2}`, 'm'));
  });

  it('pushes a CSV in batches of 50 through a 429, a 503 and a dropped connection; a rerun updates', async () => {
    const year = 2031;
    const rows = rowsFor(year, 120);
    const file = writeInput('month.csv', toCsv(rows));
    // By position among the POSTs (the run starts with GET /api/health).
    const faults: Record<number, Decision> = {
      1: 'drop', // batch 1, first try: network error
      3: {
        status: 429,
        headers: { 'Retry-After': '1', 'Content-Type': 'application/problem+json' },
        body: '{}',
      },
      5: unavailable, // batch 3, first try
    };
    let postCount = 0;
    const wire = await proxy((r) => (r.method === 'POST' ? (faults[++postCount] ?? 'forward') : 'forward'));
    const result = await kpiPush([file], { env: wire.env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      'kpi-push: 120 rows: 120 created, 0 updated, 0 rejected, 0 not sent; 3 retries.\n',
    );
    const sent = posts(wire.requests);
    expect(sent).toHaveLength(6);
    expect(sent.map((r) => JSON.parse(r.body).measurements.length)).toEqual([50, 50, 50, 50, 20, 20]);
    // A retry sends the same batch again (idempotent per KPI and period).
    expect(sent[1]!.body).toBe(sent[0]!.body);
    expect(sent[3]!.body).toBe(sent[2]!.body);
    expect(sent[5]!.body).toBe(sent[4]!.body);
    const kpi = tenant.kpis[0]!;
    expect(await storedIn(kpi.id, year)).toHaveLength(rows.filter((r) => r.kpiId === kpi.id).length);

    const again = await kpiPush([file], { env: (await proxy()).env });
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(
      'kpi-push: 120 rows: 0 created, 120 updated, 0 rejected, 0 not sent; 0 retries.\n',
    );
  });

  it('--json reads NDJSON from stdin and reports in JSON; the key is never printed, not even with --verbose', async () => {
    const rows = rowsFor(2032, 3);
    const wire = await proxy();
    const result = await kpiPush(['--json', '--verbose', '-'], {
      env: wire.env,
      input: rows.map((row) => JSON.stringify(row)).join('\n'),
    });
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({
      outcome: 'stored',
      exitCode: 0,
      rows: 3,
      created: 3,
      updated: 0,
      retries: 0,
    });
    expect(report.batches).toEqual([
      { firstLine: 1, lastLine: 3, rows: 3, outcome: 'stored', status: 200, attempts: 1 },
    ]);
    expect(result.stderr).toMatch(
      /POST http:\/\/127\.0\.0\.1:\d+\/api\/integrations\/push\/measurements\/batch \(3 rows\), attempt 1: 200/,
    );
    expect(`${result.stdout}${result.stderr}`).not.toContain(activeKey());
    expect(`${result.stdout}${result.stderr}`).not.toContain(activeKey().slice(8));
  });

  it('a file with bad rows: every problem by line, nothing sent, exit 3', async () => {
    const [good, other] = rowsFor(2033, 2);
    const file = writeInput(
      'bad.json',
      `[\n${[
        JSON.stringify(good),
        JSON.stringify({ ...other, actual: 'n/a' }),
        JSON.stringify({ kpiId: 'KPI-7', kpiType: 'BSC_KPI', actual: 1, colour: 'red' }),
        JSON.stringify({ ...other, periodStart: '2033-02-30' }),
      ].join(',\n')}\n]\n`,
    );
    const wire = await proxy();
    const result = await kpiPush([file], { env: wire.env });
    expect(result.code).toBe(3);
    expect(result.stderr.split('\n')).toEqual([
      `${file}:3: actual: must be a finite number`,
      `${file}:4: kpiId: must be the UUID of a KPI`,
      `${file}:4: colour: Unknown field`,
      `${file}:5: periodStart: must be a calendar date YYYY-MM-DD, e.g. 2026-02-28`,
      `kpi-push: 4 problem(s) on 3 line(s) of ${file}; nothing was sent.`,
      '',
    ]);
    expect(result.stdout).toBe('');
    expect(wire.requests).toEqual([]);
  });

  it('gives up after --max-tries when the service stays unavailable: exit 5, later batches not sent', async () => {
    const year = 2034;
    const file = writeInput('down.csv', toCsv(rowsFor(year, 60)));
    const wire = await proxy((r) => (r.method === 'POST' ? unavailable : 'forward'));
    const result = await kpiPush(['--max-tries', '2', file], { env: wire.env });
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(
      /gave up on the rows on lines 2-51: 503 after 2 tries\. Running the same command again later is safe\./,
    );
    expect(result.stdout).toBe(
      'kpi-push: 60 rows: 0 created, 0 updated, 0 rejected, 60 not sent; 1 retry.\n',
    );
    expect(posts(wire.requests)).toHaveLength(2);
    expect(await storedIn(tenant.kpis[0]!.id, year)).toEqual([]);
  });

  it('never retries a 404: the batch with an unknown KPI is rejected (its line named), the others are stored', async () => {
    const year = 2035;
    const rows = rowsFor(year, 4);
    rows[2] = { ...rows[2]!, kpiId: randomUUID() };
    const file = writeInput('unknown-kpi.csv', toCsv(rows));
    const wire = await proxy();
    const result = await kpiPush(['--batch-size', '2', file], { env: wire.env });
    expect(result.code).toBe(4);
    expect(posts(wire.requests)).toHaveLength(2);
    expect(result.stderr).toContain('kpi-push: the service refused line 4: 404 not-found');
    expect(result.stderr).toContain(`${file}:4: kpiId: not a KPI of this organization with this kpiType`);
    expect(result.stderr).toContain(
      '  line 5 was not stored only because a batch is all-or-nothing; --skip-invalid sends it again without the refused rows',
    );
    expect(result.stdout).toBe(
      'kpi-push: 4 rows: 2 created, 0 updated, 2 rejected, 0 not sent; 0 retries.\n',
    );
  });

  it('--skip-invalid sends the refused batch again without the rows the service named, and still exits 4', async () => {
    const year = 2045;
    const rows = rowsFor(year, 4);
    rows[2] = { ...rows[2]!, kpiId: randomUUID() };
    const file = writeInput('skip-invalid.csv', toCsv(rows));
    const wire = await proxy();
    const result = await kpiPush(['--batch-size', '2', '--skip-invalid', file], { env: wire.env });
    expect(result.code).toBe(4);
    expect(posts(wire.requests)).toHaveLength(3);
    expect(result.stderr).toContain('kpi-push: the service refused line 4: 404 not-found');
    expect(result.stderr).toContain('  line 5 sent again without the refused rows (--skip-invalid): stored');
    expect(result.stdout).toBe(
      'kpi-push: 4 rows: 3 created, 0 updated, 1 rejected, 0 not sent; 0 retries.\n',
    );
    let stored = 0;
    for (const kpi of tenant.kpis) stored += (await storedIn(kpi.id, year)).length;
    expect(stored).toBe(3);
  });

  it('a bad key is rejected once (401, no retry, no further batches) and never shown', async () => {
    const file = writeInput('bad-key.csv', toCsv(rowsFor(2036, 4)));
    const wire = await proxy();
    const badKey = `${activeKey().slice(0, -1)}${activeKey().endsWith('A') ? 'B' : 'A'}`;
    const result = await kpiPush(['--batch-size', '2', '--verbose', file], {
      env: { ...wire.env, KPI_PUSH_API_KEY: badKey },
    });
    expect(result.code).toBe(4);
    expect(posts(wire.requests)).toHaveLength(1);
    expect(result.stderr).toContain('were not stored: 401 invalid-api-key');
    expect(result.stdout).toBe(
      'kpi-push: 4 rows: 0 created, 0 updated, 2 rejected, 2 not sent; 0 retries.\n',
    );
    expect(`${result.stdout}${result.stderr}`).not.toContain(badKey.slice(8));
  });

  it('shows progress on a terminal (rows sent of total)', async () => {
    const file = writeInput('tty.csv', toCsv(rowsFor(2037, 60)));
    const wire = await proxy();
    const command = [process.execPath, BIN, file].map((part) => `'${part}'`).join(' ');
    // util-linux `script` runs the CLI on a pseudo-terminal, as in an interactive shell.
    const result = await runCli(['script', '-q', '-e', '-c', command, '/dev/null'], { env: wire.env });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('kpi-push: 0 of 60 rows sent');
    expect(result.stdout).toContain('kpi-push: 50 of 60 rows sent');
    expect(result.stdout).toContain('kpi-push: 60 rows: 60 created');
  });

  it('--dry-run: the service checks every row and stores nothing; counts say what would be created or updated', async () => {
    const year = 2038;
    const rows = rowsFor(year, 60);
    const file = writeInput('dry.csv', toCsv(rows));
    // One row already stored, so the dry run must tell `update` from `create`.
    const stored = await kpiPush([writeInput('dry-first.csv', toCsv(rows.slice(0, 1)))], {
      env: (await proxy()).env,
    });
    expect(stored.code).toBe(0);
    const kpi = tenant.kpis[0]!;
    const before = await storedIn(kpi.id, year);
    expect(before).toHaveLength(1);

    const wire = await proxy();
    const result = await kpiPush(['--dry-run', file], { env: wire.env });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(
      "kpi-push: 60 rows: 60 passed the service's checks (dry run: nothing stored; would create 59, update 1), 0 rejected, 0 not sent; 0 retries.\n",
    );
    // It read the service's document (dryRun is declared there), then sent both batches with ?dryRun=true.
    expect(wire.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET /api/health',
      'GET /api/openapi.json',
      'POST /api/integrations/push/measurements/batch?dryRun=true',
      'POST /api/integrations/push/measurements/batch?dryRun=true',
    ]);
    // Nothing was written: the first KPI still has only the measurement pushed before, unchanged.
    expect(await storedIn(kpi.id, year)).toEqual(before);
    for (const other of tenant.kpis.slice(1)) expect(await storedIn(other.id, year)).toEqual([]);
  });

  it('--dry-run rejected by the service: exit 4, the line named, nothing stored', async () => {
    const year = 2039;
    const rows = rowsFor(year, 3);
    rows[1] = { ...rows[1]!, kpiId: randomUUID() };
    const wire = await proxy();
    const result = await kpiPush(['--dry-run', '--json', writeInput('dry-bad.csv', toCsv(rows))], {
      env: wire.env,
    });
    expect(result.code).toBe(4);
    const report = JSON.parse(result.stdout);
    expect(report).toMatchObject({ outcome: 'rejected', exitCode: 4, rows: 3, rejected: 3, created: 0 });
    expect(report.problems).toEqual([
      expect.objectContaining({
        line: 3,
        field: 'kpiId',
        message: 'not a KPI of this organization with this kpiType',
      }),
    ]);
    expect(posts(wire.requests).map((r) => r.url)).toEqual([
      '/api/integrations/push/measurements/batch?dryRun=true',
    ]);
    for (const kpi of tenant.kpis) expect(await storedIn(kpi.id, year)).toEqual([]);
  });

  it('--dry-run is refused, with nothing sent, by a service whose document does not offer it', async () => {
    const file = writeInput('dry-old.csv', toCsv(rowsFor(2040, 2)));
    // A service deployed before dry run: its openapi.json has the push endpoints but no dryRun parameter.
    const document = committedDocument();
    const older = structuredClone(document);
    for (const path of ['/integrations/push/measurement', '/integrations/push/measurements/batch']) {
      delete older.paths[path].post.parameters;
    }
    const wire = await proxy((r) =>
      r.url === '/api/openapi.json'
        ? { status: 200, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(older) }
        : 'forward',
    );
    const result = await kpiPush(['--dry-run', file], { env: wire.env });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'kpi-push: this service does not offer dry run yet (its openapi.json has no dryRun parameter); nothing was sent.\n',
    );
    expect(wire.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET /api/health',
      'GET /api/openapi.json',
    ]);
    // The real document declares it, which is what the dry runs above rely on.
    expect(document.paths['/integrations/push/measurements/batch'].post.parameters).toEqual([
      expect.objectContaining({ name: 'dryRun', in: 'query' }),
    ]);
  });

  it('checks its base URL first: a URL without /api is a configuration error (exit 2), with or without --dry-run, and nothing is sent', async () => {
    const file = writeInput('wrong-url.csv', toCsv(rowsFor(2041, 2)));
    const wire = await proxy();
    for (const flags of [[], ['--dry-run']]) {
      wire.requests.splice(0);
      const result = await kpiPush([...flags, file], {
        env: { ...wire.env, KPI_PUSH_URL: wire.origin },
      });
      expect(result.code, flags.join(' ')).toBe(2);
      expect(result.stderr).toBe(
        `kpi-push: ${wire.origin}/ is not the strategy service's API: GET ${wire.origin}/health answered 404 (the base URL ends with /api, e.g. ${wire.origin}/api); nothing was sent.\n`,
      );
      expect(wire.requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /health']);
    }
  });

  it('a service that is down for a moment is no configuration error: the push goes on and its retries decide (exit 5)', async () => {
    const file = writeInput('down-health.csv', toCsv(rowsFor(2042, 2)));
    const wire = await proxy(() => unavailable);
    const result = await kpiPush(['--max-tries', '1', file], { env: wire.env });
    expect(result.code).toBe(5);
    expect(wire.requests.map((r) => `${r.method} ${r.url}`)).toEqual([
      'GET /api/health',
      'POST /api/integrations/push/measurements/batch',
    ]);
  });

  it("the integration guide's local recipe runs as written: no file left in the checkout, no demo target or status changed", async () => {
    const guide = readFileSync(join(root, 'docs', 'integration.md'), 'utf8');
    const section = guide.slice(guide.indexOf('\n## Try it locally\n'));
    const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const expected = /^# → (.+)$/m.exec(block)?.[1];
    // This stack's record and port instead of npm start's defaults; nothing else changed.
    const script = block
      .replaceAll('./.local/seed.json', inject('seedFile'))
      .replaceAll('http://localhost:3000/api', baseUrl());
    const acme = seed().tenants[0]!;
    const admin = acme.users.find((user) => user.role === 'ADMIN')!;
    const auth = { Authorization: `Bearer ${(await loginAs(admin.email, admin.password)).token}` };
    const detail = async (type: string) =>
      (await request('GET', `/kpis/${acme.kpis.find((kpi) => kpi.type === type)!.id}`, { headers: auth }))
        .body as {
        status: unknown;
        measurements: { periodStart: string; actual: number; target: number | null }[];
      };
    // Files git would offer to add: neither tracked nor ignored.
    const files = () =>
      execFileSync('git', ['ls-files', '--others', '--exclude-standard'], {
        cwd: root,
        encoding: 'utf8',
      });
    const pushed = ['KPI_DEFINITION', 'ASIS_KPI'];
    const before = { files: files(), details: await Promise.all(pushed.map(detail)) };

    const result = await runCli(['bash', '-e', '-o', 'pipefail', '-c', script]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe(expected);
    expect(files()).toBe(before.files);
    // The recipe pushes this month of two KPIs that have no target: nothing to erase, no status to move.
    const month = `${new Date().toISOString().slice(0, 7)}-01`;
    for (const [index, type] of pushed.entries()) {
      const after = await detail(type);
      expect(after.status, type).toEqual(before.details[index]!.status);
      expect(
        after.measurements.filter((m) => m.target !== null),
        type,
      ).toEqual([]);
      expect(after.measurements.find((m) => m.periodStart === month)?.actual, type).toBe(
        type === 'KPI_DEFINITION' ? 98.7 : 212,
      );
    }
    // Not the revenue, which demo:push sends with its target.
    const revenue = await detail('BSC_KPI');
    expect(revenue.measurements.filter((m) => m.actual === 98.7 || m.actual === 212)).toEqual([]);
  });
});

import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { hashPassword } from '../../lib/auth/passwords';
import { createKpi } from '../../lib/db/kpis';
import { createTenant } from '../../lib/db/tenants';
import { createUser } from '../../lib/db/users';
import type { Kpi } from '../../lib/domain/kpi';
import {
  BROWSER_TEST_TIMEOUT_MS,
  expectAccessible,
  platformUrl,
  shot,
  signIn,
  signInIfAsked,
  useBrowser,
} from '../support/browser';
import { loginAs, request, seed, stackDatabase } from '../support/http';
import { type PullSource, startPullSource } from '../support/pull-source';

/**
 * Pull integrations end to end: the local stack over HTTP and in Chromium, a source of KPI values
 * started by the test on this machine, and `npm run pull:run`, another process, doing what the
 * scheduler and its worker do on AWS. An ADMIN creates an integration on the page, previews it (the
 * extracted value beside its binding), the run stores it, and the KPI page shows it, pulled by the
 * integration. Screenshots go to tests/e2e/screenshots/.
 */
const root = resolve(__dirname, '..', '..');

const pullRun = async () => {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', 'scripts/pull-run.ts', '--json'],
    {
      cwd: root,
      env: {
        ...process.env,
        DYNAMODB_ENDPOINT: inject('stackDynamodbEndpoint'),
        TABLE_NAME: 'strategy-service-local',
        SECRETS_KEY: inject('stackSecretsKey'),
        JWT_SECRET: inject('stackJwtSecret'),
      },
    },
  );
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as {
    scheduler: { due: number; claimed: number };
    runs: { integrationId?: string; outcome?: string; stored?: number }[];
  };
};

interface PullTenant {
  admin: { email: string; password: string };
  viewer: { email: string; password: string };
  kpi: Kpi;
}

/** A tenant with kpi_api_integration, one KPI, an ADMIN and a VIEWER, in the running stack's table. */
const createPullTenant = async (): Promise<PullTenant> => {
  const db = stackDatabase();
  const tenant = await createTenant(db, {
    name: `Pull ${Date.now()}`,
    plan: 'business',
    features: ['kpi_push_measurement', 'kpi_api_integration'],
    active: true,
  });
  // Daily, as the integration made on the page reads it.
  const kpi = await createKpi(db, tenant.id, {
    type: 'ASIS_KPI',
    name: 'Support ticket backlog',
    period: 'day',
  });
  const users = [];
  for (const role of ['ADMIN', 'VIEWER'] as const) {
    const password = `pw-${role}-${tenant.id}`;
    const email = `${role.toLowerCase()}-${tenant.id}@e2e.example`;
    await createUser(db, { tenantId: tenant.id, email, role, passwordHash: await hashPassword(password) });
    users.push({ email, password });
  }
  return { admin: users[0]!, viewer: users[1]!, kpi };
};

const browser = useBrowser();
let source: PullSource;
let tenant: PullTenant;

beforeAll(async () => {
  [source, tenant] = await Promise.all([startPullSource(), createPullTenant()]);
  source.answers['/support/stats'] = { json: { backlog: { open: 87, goal: 60 }, asOf: '2026-11-27' } };
});
afterAll(async () => {
  await source?.close();
});

const openPage = (page: string) => browser.openPage(platformUrl(page));

describe('GET /platform/integrations', () => {
  it('is one HTML document with a CSP that allows exactly its inline script', async () => {
    const response = await fetch(platformUrl('integrations'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect((await response.text()).match(/<script>/g)).toHaveLength(1);
  });
});

describe('a pull integration end to end', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('ADMIN creates it on the page, previews the value beside its binding; npm run pull:run stores it; the KPI page shows it pulled by the integration', async () => {
    const { page, errors } = await openPage('integrations');
    await signIn(page, tenant.admin);
    await page.locator('#integrations:not([aria-busy]) #empty').waitFor();
    // Linked from the navigation of every page.
    expect(await page.locator('#nav a[href="integrations"]').getAttribute('aria-current')).toBe('page');
    await expectAccessible(page, 'empty list');
    await shot(page, 'integrations-01-empty');

    await page.locator('#create-open').click();
    await page.locator('#pull-name').fill('Support desk backlog');
    await page.locator('#pull-url').fill(source.url('/support/stats'));
    await page.locator('#pull-auth').selectOption('bearer');
    await page.locator('#auth-token').fill('desk-token-7f3a9b');
    await page.locator('#pull-every').selectOption('day');
    await page.locator('#pull-at').fill('07:15');
    await page.locator('#pull-period').selectOption('day');
    await page.locator('#kpi-0').selectOption(tenant.kpi.id);
    // A path that matches nothing: the preview of the unsaved definition says so under Actual.
    await page.locator('#actual-0').fill('backlog.closed');
    await page.locator('#form-preview').click();
    await page.locator('#answer-json').waitFor();
    expect(await page.locator('#actual-0-error').textContent()).toContain('the path matched nothing');
    expect(await page.locator('#answer-json').textContent()).not.toContain('desk-token-7f3a9b');
    await expectAccessible(page, 'form with the source’s answer');
    // Clicking a value fills in its path into the path field focused last.
    await page.locator('#actual-0').focus();
    await page.locator('#answer-json button[data-path="backlog.open"]').click();
    expect(await page.locator('#actual-0').inputValue()).toBe('backlog.open');
    await page.locator('#target-0').focus();
    await page.locator('#answer-json button[data-path="backlog.goal"]').click();
    expect(await page.locator('#target-0').inputValue()).toBe('backlog.goal');
    await page.locator('#form-preview').click();
    await page.locator('#binding-preview-0').waitFor();
    expect(await page.locator('#binding-preview-0').textContent()).toBe('Preview: actual 87, target 60');
    await expectAccessible(page, 'form');
    await shot(page, 'integrations-02-form');
    await page.locator('#form-submit').click();
    const row = page.locator('#integrations-body tr[data-integration-id]', {
      hasText: 'Support desk backlog',
    });
    await row.waitFor();
    expect(await row.locator('[data-label="Status"]').textContent()).toContain('active');
    expect(await row.locator('[data-label="Last run"]').textContent()).toContain('Not run yet');
    // Due at once: the page says what runs it, locally too.
    expect(await row.locator('[data-label="Next run"]').textContent()).toContain('npm run pull:run');
    // The token is write-only: not on the page, not in the list's answer.
    expect(await page.content()).not.toContain('desk-token-7f3a9b');

    await row.getByRole('button', { name: 'Runs of Support desk backlog' }).click();
    await page.locator('#runs-empty').waitFor();
    await page.locator('#preview-button').click();
    const previewed = page.locator('#preview-table tbody tr');
    await previewed.first().waitFor();
    expect(await previewed.locator('[data-label="KPI"]').textContent()).toBe('Support ticket backlog');
    expect(await previewed.locator('[data-label="Actual"]').textContent()).toBe('87');
    expect(await previewed.locator('[data-label="Target"]').textContent()).toBe('60');
    expect(await previewed.locator('[data-label="Problem"]').textContent()).toBe('None');
    await expectAccessible(page, 'preview');
    await shot(page, 'integrations-03-preview');
    expect(source.requestsTo('/support/stats').at(-1)?.headers.authorization).toBe(
      'Bearer desk-token-7f3a9b',
    );

    // What the scheduler and its worker do on AWS: it is due at once, so this pass runs it.
    const result = await pullRun();
    const ran = result.runs.filter((r) => r.outcome);
    expect(ran).toContainEqual(expect.objectContaining({ outcome: 'stored', stored: 1 }));

    await page.reload();
    await signInIfAsked(page, tenant.admin);
    const storedRow = page.locator('#integrations-body tr[data-integration-id]', {
      hasText: 'Support desk backlog',
    });
    await storedRow.locator('[data-label="Last run"]', { hasText: 'stored' }).waitFor();
    await storedRow.getByRole('button', { name: 'Runs of Support desk backlog' }).click();
    await page.locator('#runs-table tbody tr[data-outcome="stored"]').waitFor();
    await expectAccessible(page, 'run log');
    await shot(page, 'integrations-04-runs');
    // The preview's period reads as everywhere else; a run clears the preview it made stale.
    await page.locator('#preview-button').click();
    await page.locator('#preview-table tbody tr').first().waitFor();
    const period = await page.locator('#preview-table [data-label="Period"]').first().textContent();
    expect(period).not.toMatch(/\d{4}-\d{2}-\d{2}/);
    expect(period).toMatch(/20\d\d/);
    await page.locator('#run-button').click();
    await page.locator('#runs-table tbody tr[data-run-id]').nth(1).waitFor();
    expect(await page.locator('#preview-table').count()).toBe(0);

    // The KPI page: the value, pulled by the integration.
    await page.goto(`${platformUrl('kpis')}?kpi=${tenant.kpi.id}`);
    await signInIfAsked(page, tenant.admin);
    const measurement = page.locator('#detail:not([aria-busy]) #measurement-body tr').first();
    await measurement.waitFor();
    expect(await measurement.textContent()).toContain('87');
    expect(await measurement.locator('[data-label="Pushed with key"]').textContent()).toBe(
      'pulled by Support desk backlog',
    );
    await expectAccessible(page, 'KPI detail with a pulled value');
    await shot(page, 'integrations-05-kpi');
    expect(errors).toEqual([]);
  });

  it('a failed run looks like a failure: its badge, and the integration failing rather than a green active', async () => {
    const { token } = await loginAs(tenant.admin.email, tenant.admin.password);
    const headers = { Authorization: `Bearer ${token}` };
    const created = await request('POST', '/integrations/pull', {
      headers,
      body: {
        name: 'Broken source',
        url: source.url('/no/such/path'),
        schedule: { every: 'hour' },
        period: 'day',
        bindings: [{ kpiId: tenant.kpi.id, kpiType: 'ASIS_KPI', actual: 'backlog.open' }],
      },
    });
    expect(created.status).toBe(201);
    const ran = await request('POST', `/integrations/pull/${created.body.id}/run`, { headers });
    expect(ran.body.outcome).toBe('failed');
    const { page, errors } = await openPage('integrations');
    await signIn(page, tenant.admin);
    const row = page.locator(`#integration-${created.body.id}`);
    await row.waitFor();
    expect(await row.locator('[data-label="Status"]').textContent()).toBe('failing');
    const color = (selector: string) =>
      page
        .locator(selector)
        .first()
        .evaluate((element) => getComputedStyle(element).color);
    const failed = await color(`#integration-${created.body.id} [data-label="Last run"] .badge.failed`);
    expect(failed).not.toBe(await color('[data-label="Last run"] .badge.stored'));
    expect(await color(`#integration-${created.body.id} [data-label="Status"] .badge`)).not.toBe(
      await color('[data-label="Status"] .badge.active'),
    );
    await expectAccessible(page, 'a failing integration');
    expect(errors).toEqual([]);
    await request('DELETE', `/integrations/pull/${created.body.id}`, { headers });
  });

  it('VIEWER reads the list and the runs, and may not change anything', async () => {
    const { page, errors } = await openPage('integrations');
    await signIn(page, tenant.viewer);
    await page.locator('#integrations-body tr[data-integration-id]').first().waitFor();
    expect(await page.locator('#create-open').count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Edit / }).count()).toBe(0);
    await page.locator('#role-notice:not([hidden])').waitFor();
    await page
      .getByRole('button', { name: /^Runs of / })
      .first()
      .click();
    await page.locator('#runs-table').waitFor();
    expect(await page.locator('#preview-button').count()).toBe(0);
    await expectAccessible(page, 'viewer');
    await shot(page, 'integrations-06-viewer');
    expect(errors).toEqual([]);
  });

  it('a tenant without kpi_api_integration is told so; the API answers 403 feature-not-enabled', async () => {
    const globex = seed().tenants.find((t) => !t.features.includes('kpi_api_integration'))!;
    const admin = globex.users.find((u) => u.role === 'ADMIN')!;
    const { page } = await openPage('integrations');
    await signIn(page, admin);
    await page.locator('#feature-notice:not([hidden])').waitFor();
    expect(await page.locator('#create-open').count()).toBe(0);
    await expectAccessible(page, 'feature off');
    const { token } = await loginAs(admin.email, admin.password);
    const refused = await request('GET', '/integrations/pull', {
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      type: expect.stringMatching(/\/feature-not-enabled$/),
      feature: 'kpi_api_integration',
    });
  });
});

describe('the pull routes over HTTP', () => {
  it('create, read, preview, run, runs, change and delete answer as the OpenAPI document says', async () => {
    const { token } = await loginAs(tenant.admin.email, tenant.admin.password);
    const headers = { Authorization: `Bearer ${token}` };
    const created = await request('POST', '/integrations/pull', {
      headers,
      body: {
        name: 'Over HTTP',
        url: source.url('/support/stats'),
        auth: { type: 'header', name: 'X-Desk-Key', value: 'hdr-secret-1' },
        schedule: { every: '15m' },
        period: 'day',
        bindings: [{ kpiId: tenant.kpi.id, kpiType: 'ASIS_KPI', actual: 'backlog.open' }],
      },
    });
    expect(created.status).toBe(201);
    const { id } = created.body;
    expect((await request('GET', '/integrations/pull', { headers })).status).toBe(200);
    expect((await request('GET', `/integrations/pull/${id}`, { headers })).body.auth).toEqual({
      type: 'header',
      name: 'X-Desk-Key',
      value: { set: true },
    });
    expect(
      (await request('POST', `/integrations/pull/${id}/preview`, { headers })).body.bindings[0].actual,
    ).toBe(87);
    expect((await request('POST', `/integrations/pull/${id}/run`, { headers })).body.outcome).toBe('stored');
    expect((await request('GET', `/integrations/pull/${id}/runs`, { headers })).body.items).toHaveLength(1);
    expect(
      (await request('PATCH', `/integrations/pull/${id}`, { headers, body: { name: 'Renamed' } })).body.name,
    ).toBe('Renamed');
    expect((await request('DELETE', `/integrations/pull/${id}`, { headers })).status).toBe(204);
  });
});

import { describe, expect, it } from 'vitest';
import { hashPassword } from '../../lib/auth/passwords';
import { createKpi } from '../../lib/db/kpis';
import { createTenant } from '../../lib/db/tenants';
import { createUser } from '../../lib/db/users';
import {
  BROWSER_TEST_TIMEOUT_MS,
  expectAccessible,
  platformUrl,
  shot,
  signIn,
  useBrowser,
} from '../support/browser';
import { loginAs, request, stackDatabase } from '../support/http';

/**
 * The audit page in Chromium against the local stack: an ADMIN sees the tenant's events newest first,
 * filters them by type, follows a key and a KPI to their pages; the navigation shows the page to ADMINs
 * only, and a VIEWER who opens it is told it is for ADMINs. axe-core finds no violation in any state.
 */
const createAuditTenant = async () => {
  const db = stackDatabase();
  const tenant = await createTenant(db, {
    name: `Audit ${Date.now()}`,
    plan: 'enterprise',
    features: ['kpi_push_measurement'],
    active: true,
  });
  const kpi = await createKpi(db, tenant.id, { type: 'ASIS_KPI', name: 'Audited backlog' });
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

describe('GET /platform/audit', () => {
  it('is one HTML document with a CSP that allows exactly its inline script', async () => {
    const response = await fetch(platformUrl('audit'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
  });
});

describe('the audit page', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('lists the events for an ADMIN, filters them by type and links keys and KPIs to their pages', async () => {
    const tenant = await createAuditTenant();
    const { token } = await loginAs(tenant.admin.email, tenant.admin.password);
    const auth = { Authorization: `Bearer ${token}` };
    const key = await request('POST', '/api-keys', { headers: auth, body: { name: 'Audited cron' } });
    expect(key.status).toBe(201);
    expect(
      (await request('PATCH', `/kpis/${tenant.kpi.id}`, { headers: auth, body: { tolerance: 0.1 } })).status,
    ).toBe(200);

    const { page, errors } = await browser.openPage(platformUrl('audit'));
    await signIn(page, tenant.admin);
    const rows = page.locator('#audit-table tbody tr');
    await rows.first().waitFor();
    expect(await page.locator('#nav a[href="audit"]').getAttribute('aria-current')).toBe('page');
    // Newest first: the sign-in on this page, the KPI change, the key, the API's login, and the KPI
    // the operator's code made for the tenant.
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-type')))).toEqual([
      'login.succeeded',
      'kpi.updated',
      'api_key.created',
      'login.succeeded',
      'kpi.created',
    ]);
    const created = page.locator('#audit-table tr[data-type="api_key.created"]');
    expect(await created.locator('[data-label="Actor"]').textContent()).toContain(tenant.admin.email);
    expect(await created.locator('[data-label="Source"]').textContent()).toContain('127.0.0.1');
    expect(await created.locator(`a[href="api-keys#key-${key.body.id}"]`).count()).toBe(1);
    expect(
      await page
        .locator(`#audit-table tr[data-type="kpi.updated"] a[href="kpis?kpi=${tenant.kpi.id}"]`)
        .count(),
    ).toBe(1);
    expect(await page.content()).not.toContain(key.body.key);
    await expectAccessible(page, 'list');
    await shot(page, 'audit-01-list');

    await page.locator('#filter-type').selectOption(['api_key.created', 'kpi.updated']);
    await page.locator('#apply-filters').click();
    await page.waitForFunction(() => document.querySelectorAll('#audit-table tbody tr').length === 2);
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-type')))).toEqual([
      'kpi.updated',
      'api_key.created',
    ]);
    await page.locator('#filter-target').fill('no-such-target');
    await page.locator('#apply-filters').click();
    await page.locator('#audit-empty').waitFor();
    await expectAccessible(page, 'filtered to nothing');

    await page.locator('#clear-filters').click();
    await page.locator(`#audit-table a[href="api-keys#key-${key.body.id}"]`).click();
    await page.waitForURL(/\/platform\/api-keys#key-/);
    expect(errors).toEqual([]);
  });

  it('is in the navigation for ADMINs only; a VIEWER who opens it is told it is for ADMINs', async () => {
    const tenant = await createAuditTenant();
    const { page, errors } = await browser.openPage(platformUrl('kpis'));
    await signIn(page, tenant.viewer);
    expect(await page.locator('#nav a[href="audit"]').count()).toBe(0);
    await page.goto(platformUrl('audit'));
    await page.locator('#audit-forbidden').waitFor();
    await expectAccessible(page, 'viewer');
    expect(errors).toEqual([]);
  });
});

import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { currentPeriod } from '../../lib/domain/calendar';
import {
  BROWSER_TEST_TIMEOUT_MS,
  expectAccessible,
  platformUrl,
  shot,
  signIn,
  useBrowser,
} from '../support/browser';
import { createStackTenant, loginAs, request } from '../support/http';

/**
 * What a new tenant does, end to end against the real local stack: its ADMIN signs in on the strategy
 * page, creates a cycle and a weekly KPI in it with a target for this week (pasted as a spreadsheet
 * row), makes a key scoped to that KPI (through the API: the key page's create form has no KPI scope),
 * pushes without a period over HTTP, and sees the point in this week with its status against that
 * target on the KPI page. No operator CLI, no seeded KPI.
 */
const browser = useBrowser();

/** A paste into the focused control, as a spreadsheet's copy gives it (text/plain with tabs). */
const paste = (page: Page, selector: string, text: string) =>
  page.locator(selector).evaluate((element, pasted) => {
    const data = new DataTransfer();
    data.setData('text/plain', pasted);
    element.dispatchEvent(
      new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }),
    );
  }, text);

describe('a new tenant runs its own strategy', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('cycle, weekly KPI and target on the page; a scoped key; a push without a period lands in this week, on track', async () => {
    const { email, password } = await createStackTenant();
    const { page, errors } = await browser.openPage(platformUrl('strategy'));
    await signIn(page, { email, password }, { keyboard: true });
    await page.locator('#cycles:not([aria-busy]) #cycles-empty').waitFor();

    // A cycle for this year.
    const year = new Date().getUTCFullYear();
    await page.locator('#cycle-new').click();
    await page.locator('#cycle-name').fill('Strategy this year');
    await page.locator('#cycle-start').fill(`${year}-01-01`);
    await page.locator('#cycle-end').fill(`${year}-12-31`);
    await expectAccessible(page, 'cycle form');
    await page.locator('#cycle-submit').click();
    const cycle = page.locator('article.cycle', { hasText: 'Strategy this year' });
    await cycle.waitFor();

    // A weekly KPI in it.
    await page.locator('#kpi-new').click();
    await page.locator('#kpi-name').fill('Weekly sign-ups');
    await page.locator('#kpi-type').selectOption('OKR_KEY_RESULT');
    await page.locator('#kpi-period').selectOption('week');
    await page.locator('#kpi-cycle').selectOption({ label: 'Strategy this year' });
    await expectAccessible(page, 'KPI form');
    await page.locator('#kpi-submit').click();
    const row = cycle.locator('li.kpi', { hasText: 'Weekly sign-ups' });
    await row.waitFor();
    const kpiId = (await row.getAttribute('data-kpi-id'))!;
    expect(await row.locator('code').textContent()).toBe(kpiId);

    // Its target for this week, pasted from a spreadsheet: the row of this week is filled.
    const week = currentPeriod('week', Date.now());
    await row.getByRole('button', { name: 'Targets of Weekly sign-ups' }).click();
    await page.locator('#targets-body tr').first().waitFor();
    await paste(page, '#targets-paste', `Week\tTarget\n${week.periodStart}\t100\n`);
    await expect.poll(() => page.locator(`#target-${week.periodStart}`).inputValue()).toBe('100');
    await expectAccessible(page, 'targets dialog');
    await shot(page, 'new-tenant-01-targets');
    await page.locator('#targets-submit').click();
    await page.locator('#targets-dialog').waitFor({ state: 'hidden' });

    // A key for that KPI only, through the API.
    const { token } = await loginAs(email, password);
    const key = await request('POST', '/api-keys', {
      headers: { Authorization: `Bearer ${token}` },
      body: { name: 'Sign-up counter', kpiIds: [kpiId] },
    });
    expect(key.status, JSON.stringify(key.body)).toBe(201);

    // A push without a period, over HTTP: it lands in this ISO week.
    const pushed = await request('POST', '/integrations/push/measurement', {
      headers: { 'x-api-key': key.body.key },
      body: { kpiId, kpiType: 'OKR_KEY_RESULT', actual: 120 },
    });
    expect(pushed.status, JSON.stringify(pushed.body)).toBe(201);
    expect({ periodStart: pushed.body.periodStart, periodEnd: pushed.body.periodEnd }).toEqual(week);

    // The KPI page shows the point in this week, on track against the KPI's target.
    await page.goto(`${platformUrl('kpis')}?kpi=${kpiId}`);
    await page.locator('#detail:not([aria-busy]) #measurement-body tr').first().waitFor();
    const point = page.locator(`#measurement-body tr[data-period="${week.periodStart}/${week.periodEnd}"]`);
    expect(await point.locator('[data-label="Actual"]').textContent()).toBe('120');
    expect(await point.locator('[data-label="Target"]').getAttribute('data-target-source')).toBe('kpi');
    expect(await point.locator('[data-label="Target"]').textContent()).toBe('100the KPI’s target');
    expect(await page.locator('#detail-meta .badge.status').textContent()).toBe('On track');
    await expectAccessible(page, 'the new KPI with its first point');
    await shot(page, 'new-tenant-02-first-point');
    expect(errors).toEqual([]);
  });
});

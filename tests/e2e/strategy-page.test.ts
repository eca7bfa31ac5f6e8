import { describe, expect, it } from 'vitest';
import {
  BROWSER_TEST_TIMEOUT_MS,
  expectAccessible,
  platformUrl,
  shot,
  signIn,
  useBrowser,
} from '../support/browser';
import { createStackTenant, seed } from '../support/http';

/**
 * The strategy page (/platform/strategy) in headless Chromium against the real local stack: the
 * problems of the API on the fields they name, a KPI's direction and tolerance changed, archive and
 * restore, a cycle with KPIs refused deletion with the API's 409 message, and a VIEWER without write
 * controls; axe-core finds nothing in each state.
 */
const browser = useBrowser();

const open = async (user: { email: string; password: string }, handles: number[] = []) => {
  const opened = await browser.openPage(platformUrl('strategy'), { handles });
  await signIn(opened.page, user, { keyboard: true });
  await opened.page.locator('#cycles:not([aria-busy])').waitFor();
  return opened;
};

describe('the strategy page in Chromium', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('shows the API’s problems on their fields; edits direction and tolerance; archives, restores; a cycle with KPIs stays', async () => {
    const user = await createStackTenant();
    const { page, errors } = await open(user, [400, 409]);

    // A start after the end: the API's problem under the field it names.
    await page.locator('#cycle-new').click();
    await page.locator('#cycle-name').fill('Backwards');
    await page.locator('#cycle-start').fill('2026-12-31');
    await page.locator('#cycle-end').fill('2026-01-01');
    await page.locator('#cycle-submit').click();
    await page.locator('#cycle-form-error:not([hidden])').waitFor();
    const fieldProblems = await page.locator('#cycle-dialog .field .error:not([hidden])').count();
    expect(fieldProblems).toBeGreaterThan(0);
    await expectAccessible(page, 'cycle form with a problem');
    await page.locator('#cycle-end').fill('2026-12-31');
    await page.locator('#cycle-start').fill('2026-01-01');
    await page.locator('#cycle-submit').click();
    const cycle = page.locator('article.cycle', { hasText: 'Backwards' });
    await cycle.waitFor();

    // An empty name and a tolerance over 100 %: each problem on its field.
    await page.locator('#kpi-new').click();
    await page.locator('#kpi-tolerance').fill('150');
    await page.locator('#kpi-submit').click();
    await page.locator('#kpi-name-error:not([hidden])').waitFor();
    expect(await page.locator('#kpi-name').getAttribute('aria-invalid')).toBe('true');
    await expect.poll(() => page.locator('#kpi-tolerance').getAttribute('aria-invalid')).toBe('true');
    await expectAccessible(page, 'KPI form with problems');
    await shot(page, 'strategy-01-kpi-problems');
    await page.locator('#kpi-name').fill('Support backlog');
    await page.locator('#kpi-tolerance').fill('10');
    await page.locator('#kpi-cycle').selectOption({ label: 'Backwards' });
    await page.locator('#kpi-submit').click();
    const row = cycle.locator('li.kpi', { hasText: 'Support backlog' });
    await row.waitFor();

    // Lower is better, 5 % tolerance: the form shows them when it opens again.
    await row.getByRole('button', { name: 'Edit Support backlog' }).click();
    await page.locator('#kpi-direction').selectOption('lower_is_better');
    await page.locator('#kpi-tolerance').fill('5');
    await page.locator('#kpi-submit').click();
    await page.locator('#kpi-dialog').waitFor({ state: 'hidden' });
    await row.getByRole('button', { name: 'Edit Support backlog' }).click();
    expect(await page.locator('#kpi-direction').inputValue()).toBe('lower_is_better');
    expect(await page.locator('#kpi-tolerance').inputValue()).toBe('5');
    await page.locator('#kpi-cancel').click();

    // The cycle holds a KPI: its delete is refused with the API's message, in the dialog.
    await cycle.getByRole('button', { name: 'Delete Backwards' }).click();
    await page.locator('#delete-cycle-confirm').click();
    await page.locator('#delete-cycle-error:not([hidden])').waitFor();
    expect(await page.locator('#delete-cycle-error').textContent()).toMatch(/1 KPI/);
    await expectAccessible(page, 'cycle delete refused');
    await shot(page, 'strategy-02-delete-refused');
    await page.locator('#delete-cycle-cancel').click();

    // Archived: gone from the list, back with "Show archived", and restored.
    await row.getByRole('button', { name: 'Archive Support backlog' }).click();
    await page.locator('#archive-confirm').click();
    await expect.poll(() => row.count()).toBe(0);
    await page.locator('#archived-filter').check();
    await row.locator('.badge.archived').waitFor();
    await row.getByRole('button', { name: 'Restore Support backlog' }).click();
    await expect.poll(() => row.locator('.badge.archived').count()).toBe(0);
    await expectAccessible(page, 'strategy page');
    await shot(page, 'strategy-03-cycles');
    expect(errors).toEqual([]);
  });

  it('offers an EDITOR every active user of the tenant as a KPI’s owner', async () => {
    const acme = seed().tenants[0]!;
    const editor = acme.users.find((user) => user.role === 'EDITOR')!;
    const admin = acme.users.find((user) => user.role === 'ADMIN')!;
    const { page, errors } = await open(editor);
    await page.locator('#kpi-new').click();
    const owners = await page.locator('#kpi-owner option').allTextContents();
    expect(owners[0]).toBe('No owner');
    expect(owners.some((owner) => owner.includes(admin.email))).toBe(true);
    expect(owners.filter((owner) => owner.startsWith('You (') && owner.includes(editor.email))).toHaveLength(
      1,
    );
    await expectAccessible(page, 'KPI form with the owners');
    await page.locator('#kpi-cancel').click();
    expect(errors).toEqual([]);
  });

  it('a VIEWER reads the cycles and their counts, without a write control', async () => {
    const acme = seed().tenants[0]!;
    const viewer = acme.users.find((user) => user.role === 'VIEWER')!;
    const { page, errors } = await open(viewer);
    await page.locator('article.cycle').first().waitFor();
    expect(await page.locator('article.cycle .counts li').count()).toBeGreaterThanOrEqual(4);
    expect(await page.locator('#role-notice').isVisible()).toBe(true);
    expect(await page.locator('#cycles button').count()).toBe(0);
    await expectAccessible(page, 'strategy page as VIEWER');
    // The KPI page offers a VIEWER neither New KPI nor a KPI's Edit, Targets or Archive.
    await page.goto(platformUrl('kpis'));
    await page.locator('#list:not([aria-busy]) #kpi-body tr').first().waitFor();
    expect(await page.locator('#kpi-new').count()).toBe(0);
    await page.locator('#kpi-body a.kpi-name').first().click();
    await page.locator('#detail:not([aria-busy]) #detail-settings').waitFor();
    expect(await page.locator('#detail-actions').count()).toBe(0);
    expect(errors).toEqual([]);
  });
});

import type { BrowserContextOptions, Page } from 'playwright-core';
import { describe, expect, inject, it } from 'vitest';
import { createKpi } from '../../lib/db/kpis';
import {
  BROWSER_TEST_TIMEOUT_MS,
  BROWSER_TIMEOUT_MS,
  expectAccessible,
  failNext,
  platformUrl,
  shot,
  signIn as signInAs,
  useBrowser,
} from '../support/browser';
import { signedHeaders } from '../support/github-keys';
import { baseUrl, createStackTenant, loginAs, request, seed, stackDatabase } from '../support/http';

/**
 * The API key management page (/platform/api-keys) in headless Chromium against the real local stack.
 * One screenshot per state goes to tests/e2e/screenshots/ (the docs' pictures: `npm run screenshots`).
 */

const pageUrl = () => platformUrl('api-keys');

/** How often a text is visible on the page: each message is said once. */
const timesShown = (page: Page, text: string) =>
  page.evaluate((t) => document.body.innerText.split(t).length - 1, text);

const browser = useBrowser();

/** The key page; the 4xx answers it handles (401 before a refresh, 409 at the plan maximum) are no errors. */
const openPage = (context: BrowserContextOptions = {}) =>
  browser.openPage(pageUrl(), {
    context: { viewport: { width: 1100, height: 760 }, ...context },
    handles: [401, 409],
  });

/** The list is shown and loaded. */
const keysShown = async (page: Page) => {
  await page.getByRole('heading', { name: 'Keys of your organization' }).waitFor();
  await page.locator('#keys:not([aria-busy])').waitFor();
};

/** Signs in with the keyboard alone: Tab into the form, type, Enter. */
const signIn = async (page: Page, email: string, password = 'demo-password-1') => {
  await signInAs(page, { email, password }, { keyboard: true });
  await keysShown(page);
};

/** Signs in again from the form a sign-out left focused (the message above it stays as it is). */
const signInAgain = async (page: Page, email: string, password = 'demo-password-1') => {
  await signInAs(page, { email, password });
  await keysShown(page);
};

const rowOf = (page: Page, name: string) => page.locator('#keys-body tr', { hasText: name });
const cell = (page: Page, name: string, label: string) =>
  rowOf(page, name).locator(`[data-label="${label}"]`);

const push = (key: string, kpiId: string) =>
  request('POST', '/integrations/push/measurement', {
    headers: { 'x-api-key': key },
    body: { kpiId, kpiType: 'BSC_KPI', actual: 42 },
  });

describe('GET /platform/api-keys', () => {
  it('is one small HTML document with a CSP that allows exactly its inline script', async () => {
    const response = await fetch(pageUrl());
    const html = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*'(;|$)/);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(Buffer.byteLength(html)).toBeLessThan(100 * 1024);
    expect(html).not.toMatch(/<script[^>]+src=/);
    expect(html.match(/<script>/g)).toHaveLength(1);
  });
});

describe('the API key page in Chromium', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('ADMIN: create (key shown once), push with it, last used after reload, revoke with confirmation, push is refused', async () => {
    const acme = seed().tenants[0]!;
    const admin = acme.users.find((user) => user.role === 'ADMIN')!;
    const kpi = acme.kpis.find((k) => k.type === 'BSC_KPI')!;
    const { page, errors } = await openPage({ permissions: ['clipboard-read', 'clipboard-write'] });
    await shot(page, '01-sign-in');
    await expectAccessible(page, 'sign-in form');
    await signIn(page, admin.email);
    expect(await page.locator('#who').textContent()).toContain('ADMIN');
    await shot(page, '02-admin-list');
    await expectAccessible(page, 'admin list');

    // Create, with the keyboard: Tab from the focused heading to the button, Enter opens the dialog.
    const name = 'Nightly CI pipeline';
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('create-open');
    await page.keyboard.press('Enter');
    const createDialog = page.locator('#create-dialog');
    await createDialog.waitFor();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('key-name');
    // Validation: an empty name is refused before any request.
    await page.keyboard.press('Enter');
    expect(await page.locator('#key-name-error').textContent()).toBe('Enter a name.');
    await page.keyboard.type(name);
    const nextYear = new Date().getFullYear() + 1;
    await page.getByLabel('Expiration date').fill(`${nextYear}-06-30`);
    await shot(page, '03-create-dialog');
    await expectAccessible(page, 'create dialog');
    await page.getByLabel('Name').press('Enter');

    // The raw key, once, in a read-only field with a Copy button and a warning.
    const reveal = page.locator('#reveal-dialog');
    await reveal.getByRole('heading', { name: 'Your new API key' }).waitFor();
    const field = reveal.getByLabel(`API key “${name}”`);
    const key = await field.inputValue();
    expect(key.length).toBeGreaterThan(20);
    expect(await field.getAttribute('readonly')).not.toBeNull();
    await expectAccessible(page, 'key shown once');
    expect(await reveal.textContent()).toContain('cannot be shown again');
    await reveal.getByRole('button', { name: 'Copy' }).click();
    await reveal.getByText('Copied to the clipboard.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    await shot(page, '04-key-shown-once');
    await page.keyboard.press('Escape');
    await reveal.waitFor({ state: 'hidden' });
    // The dialog's `close` event (a queued task) removes the key; a key left in the DOM times out here.
    await page.locator('#new-key').waitFor({ state: 'detached' });
    expect(await page.locator('#new-key').count()).toBe(0);
    expect(await page.content()).not.toContain(key);

    await rowOf(page, name).waitFor();
    expect(await cell(page, name, 'Prefix').textContent()).toBe(key.slice(0, 8));
    expect(await cell(page, name, 'Status').textContent()).toBe('active');
    expect(await cell(page, name, 'Expires').textContent()).toContain(String(nextYear));
    expect(await cell(page, name, 'Last used').textContent()).toBe('Never');

    // Tokens are in sessionStorage (this tab), never in localStorage.
    expect(await page.evaluate(() => localStorage.length)).toBe(0);
    expect(await page.evaluate(() => Object.keys(sessionStorage))).toHaveLength(1);

    // The shown key works; after a reload (still signed in) the row says when it was last used.
    const pushed = await push(key, kpi.id);
    expect(pushed.status, JSON.stringify(pushed.body)).toBeOneOf([200, 201]);
    await expect
      .poll(
        async () => {
          await page.reload();
          await page.locator('#keys:not([aria-busy])').waitFor();
          return cell(page, name, 'Last used').locator('time').count();
        },
        { timeout: BROWSER_TIMEOUT_MS, interval: 500 },
      )
      .toBe(1);
    await shot(page, '05-last-used-after-push');

    // Revoke with the keyboard: the confirmation names the key and starts on Cancel.
    await page.getByRole('button', { name: `Revoke ${name}` }).focus();
    await page.keyboard.press('Enter');
    const confirm = page.locator('#revoke-dialog');
    await confirm.waitFor();
    expect(await confirm.getByRole('heading').textContent()).toBe(`Revoke API key “${name}”?`);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('revoke-cancel');
    await shot(page, '06-revoke-confirmation');
    await expectAccessible(page, 'revoke confirmation');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await confirm.waitFor({ state: 'hidden' });
    // Revoked keys leave the list for "Show inactive (N)", with the date and who revoked them.
    const revokedRow = page.locator('#inactive-body tr[data-status="revoked"]', { hasText: name });
    await revokedRow.waitFor({ state: 'attached' });
    expect(await rowOf(page, name).count()).toBe(0);
    expect(await revokedRow.isVisible()).toBe(false);
    const summary = page.locator('#inactive-summary');
    expect(await summary.textContent()).toMatch(/^Show inactive \(\d+\)$/);
    await summary.click();
    expect(await revokedRow.isVisible()).toBe(true);
    const ended = revokedRow.locator('[data-label="Ended"]');
    expect(await ended.textContent()).toMatch(/^Revoked .*\d{4}.* by admin@acme\.example$/);
    expect(await ended.locator('time').getAttribute('datetime')).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    // An ended key can only be looked at: its Usage, no Roll or Revoke.
    expect(await revokedRow.getByRole('button').allTextContents()).toEqual(['Usage']);
    await shot(page, '07-revoked');
    await expectAccessible(page, 'inactive keys shown');

    const refused = await push(key, kpi.id);
    expect(refused.status).toBe(403);

    // Seeded revoked and expired keys are inactive too, without buttons; the active list has neither.
    for (const status of ['revoked', 'expired']) {
      expect(await page.locator(`#inactive-body tr[data-status="${status}"]`).count()).toBeGreaterThan(0);
      expect(await page.locator(`#keys-body tr[data-status="${status}"]`).count()).toBe(0);
    }
    expect(await page.locator('#inactive-body button:not(.usage-toggle)').count()).toBe(0);
    expect(errors).toEqual([]);
  });

  it('a key revoked by GitHub secret scanning says so, with where it was found', async () => {
    const { email, password } = await createStackTenant();
    const auth = { Authorization: `Bearer ${(await loginAs(email, password)).token}` };
    const name = 'Leaked in a public repo';
    const created = await request('POST', '/api-keys', { headers: auth, body: { name } });
    const url = 'https://github.com/octocat/Hello-World/blob/main/.env';
    const report = JSON.stringify([{ token: created.body.key, type: 'strategy_service_api_key', url }]);
    const reported = await request('POST', '/secret-scanning/github', {
      body: report,
      headers: signedHeaders(report, inject('secretScanningKey')),
    });
    expect(reported.body[0].label).toBe('true_positive');
    const { page, errors } = await openPage();
    await signIn(page, email, password);
    await page.locator('#inactive-summary').click();
    const ended = page
      .locator('#inactive-body tr[data-status="revoked"]', { hasText: name })
      .locator('[data-label="Ended"]');
    expect(await ended.textContent()).toMatch(
      new RegExp(`^Revoked .*\\d{4}.* by GitHub secret scanning, found at ${url.replace(/[.]/g, '\\.')}$`),
    );
    await expectAccessible(page, 'a key revoked by secret scanning');
    expect(errors).toEqual([]);
  });

  it('refreshes an invalid access token once, then asks to sign in again', async () => {
    const acme = seed().tenants[0]!;
    const admin = acme.users.find((user) => user.role === 'ADMIN')!;
    const { page, errors } = await openPage();
    await signIn(page, admin.email);
    const storageKey = await page.evaluate(() => sessionStorage.key(0));
    const setToken = (token: string, refreshToken?: string) =>
      page.evaluate(
        ([k, t, r]) => {
          const stored = JSON.parse(sessionStorage.getItem(k!)!);
          sessionStorage.setItem(k!, JSON.stringify({ token: t, refreshToken: r ?? stored.refreshToken }));
        },
        [storageKey, token, refreshToken] as const,
      );

    await setToken('not-a-valid-token');
    await page.reload();
    await page.locator('#keys:not([aria-busy])').waitFor();
    expect(await page.locator('#keys-body tr').count()).toBeGreaterThan(0);
    expect(await page.evaluate((k) => JSON.parse(sessionStorage.getItem(k!)!).token, storageKey)).not.toBe(
      'not-a-valid-token',
    );

    await setToken('not-a-valid-token', 'not-a-valid-refresh-token');
    await page.reload();
    await page.locator('#sign-in-message', { hasText: 'Your session has expired. Sign in again.' }).waitFor();
    expect(await page.locator('#sign-in').isVisible()).toBe(true);
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    // Said once, and gone after signing in again.
    expect(await timesShown(page, 'Your session has expired')).toBe(1);
    await expectAccessible(page, 'session expired');
    await signInAgain(page, admin.email);
    expect(await timesShown(page, 'Your session has expired')).toBe(0);
    expect(await page.locator('#status').textContent()).toBe('');
    expect(errors).toEqual([]);
  });

  it('VIEWER: sees the list without create and revoke controls, and why (375 px wide)', async () => {
    const acme = seed().tenants[0]!;
    const viewer = acme.users.find((user) => user.role === 'VIEWER')!;
    const { page, errors } = await openPage({ viewport: { width: 375, height: 740 }, isMobile: true });
    await signIn(page, viewer.email);
    expect(await page.locator('#keys-body tr').count()).toBeGreaterThan(0);
    expect(await page.getByRole('button', { name: 'Create API key' }).count()).toBe(0);
    // Only the Usage buttons, which change nothing.
    expect(await page.locator('#keys-body button:not(.usage-toggle)').count()).toBe(0);
    expect(await page.locator('#keys-body .usage-toggle').count()).toBe(
      await page.locator('#keys-body tr[data-key-id]').count(),
    );
    expect(await page.locator('#role-notice').textContent()).toMatch(
      /VIEWER role\. Only administrators \(ADMIN\) can create or revoke API keys/,
    );
    // Where keys were used from is for administrators: the seeded keys have recent requests, shown
    // without their address and User-Agent (null in the list for this role).
    expect(await page.locator('#keys-body [data-label="Last request"] time').count()).toBeGreaterThan(0);
    expect(await page.locator('#keys-body .source').count()).toBe(0);
    // Readable at 375 px: nothing scrolls sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await shot(page, '08-viewer-375px');
    await expectAccessible(page, 'viewer at 375 px');
    expect(errors).toEqual([]);
  });

  it('ADMIN at 375 px: the list and the create dialog fit the screen', async () => {
    const acme = seed().tenants[0]!;
    const admin = acme.users.find((user) => user.role === 'ADMIN')!;
    const { page, errors } = await openPage({ viewport: { width: 375, height: 740 }, isMobile: true });
    await signIn(page, admin.email);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await shot(page, '09-admin-375px');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const box = await page.locator('#create-dialog').boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(375);
    await shot(page, '10-create-dialog-375px');
    await expectAccessible(page, 'create dialog at 375 px');
    // The one-time key is readable in full at 375 px, not cut off after about 21 characters.
    await page.getByLabel('Name').fill('Phone key');
    await page.getByRole('button', { name: 'Create key' }).click();
    const field = page.locator('#new-key');
    await field.waitFor();
    const key = await field.inputValue();
    expect(key).toMatch(/^skm_[0-9A-Za-z]{33}$/);
    const fits = await field.evaluate((node) => ({
      width: node.scrollWidth <= node.clientWidth,
      height: node.scrollHeight <= node.clientHeight,
      right: node.getBoundingClientRect().right,
    }));
    expect(fits).toEqual({ width: true, height: true, right: expect.any(Number) });
    expect(fits.right).toBeLessThanOrEqual(375);
    await shot(page, '10b-key-shown-375px');
    await expectAccessible(page, 'key shown at 375 px');
    // The new key's row, behind the dialog, is below the fold; closing the dialog scrolls it into view
    // and focuses it.
    const row = rowOf(page, 'Phone key');
    await row.waitFor({ state: 'attached' });
    const inView = () =>
      row.evaluate((node) => {
        const box = node.getBoundingClientRect();
        return box.top >= 0 && box.bottom <= window.innerHeight;
      });
    expect(await inView()).toBe(false);
    await page.getByRole('button', { name: 'Done' }).click();
    const rowId = await row.getAttribute('id');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe(rowId);
    expect(rowId).toMatch(/^key-/);
    expect(await inView()).toBe(true);
    await shot(page, '10c-new-key-in-view-375px');
    await expectAccessible(page, 'new key focused at 375 px');
    await page.getByRole('button', { name: 'Revoke Phone key' }).click();
    await page.locator('#revoke-confirm').click();
    await page.locator('#revoke-dialog').waitFor({ state: 'hidden' });
    expect(errors).toEqual([]);
  });

  it('shows an empty state when the tenant has no keys', async () => {
    // Every seeded tenant has keys, so this one is made for the test, in the stack's own table.
    const { email, password } = await createStackTenant();
    const { page, errors } = await openPage();
    await signIn(page, email, password);
    expect(await page.locator('#empty').textContent()).toMatch(/no active API keys yet/);
    expect(await page.locator('#keys-table').isVisible()).toBe(false);
    expect(await page.locator('#inactive').isVisible()).toBe(false);
    expect(await page.locator('#plan-usage').textContent()).toBe('0 of 5 keys used on the business plan');
    await shot(page, '11-empty');
    await expectAccessible(page, 'empty');
    expect(errors).toEqual([]);
  });

  it('Free plan maximum: "3 of 3 keys used", and Create is disabled and explained before anything is typed', async () => {
    const globex = seed().tenants[1]!;
    const admin = globex.users.find((user) => user.role === 'ADMIN')!;
    // Fill the plan through the API until the service answers 409, whatever the seed holds.
    const { token } = await loginAs(admin.email, admin.password);
    const auth = { Authorization: `Bearer ${token}` };
    const created: string[] = [];
    let limit: { status: number; body: any } | undefined;
    for (let i = 0; i < 10 && !limit; i++) {
      const result = await request('POST', '/api-keys', { headers: auth, body: { name: `Filler ${i}` } });
      if (result.status === 201) created.push(result.body.id);
      else limit = result;
    }
    expect(limit?.status).toBe(409);

    try {
      const { page, errors } = await openPage();
      await signIn(page, admin.email);
      expect(await page.locator('#plan-usage').textContent()).toBe('3 of 3 keys used on the free plan');
      const button = page.getByRole('button', { name: 'Create API key' });
      expect(await button.isDisabled()).toBe(true);
      expect(await button.getAttribute('aria-describedby')).toBe('limit-notice');
      expect(await page.locator('#limit-notice').textContent()).toMatch(
        /^All 3 keys of the free plan are in use\. Revoke a key, or upgrade the plan/,
      );
      // A roll needs no free slot: the Roll buttons stay.
      expect(await page.locator('#keys-body button', { hasText: 'Roll' }).count()).toBeGreaterThan(0);
      await shot(page, '12-plan-maximum');
      await expectAccessible(page, 'plan maximum');

      // Revoking one frees a slot: the button comes back and the count follows.
      await page.getByRole('button', { name: 'Revoke Filler 0' }).click();
      await page.locator('#revoke-confirm').click();
      await page.locator('#revoke-dialog').waitFor({ state: 'hidden' });
      await page.locator('#plan-usage', { hasText: '2 of 3 keys used' }).waitFor();
      expect(await button.isEnabled()).toBe(true);
      expect(await page.locator('#limit-notice').isVisible()).toBe(false);

      // Someone else takes the last slot meanwhile: the 409 is shown in the dialog, the name typed stays.
      await button.click();
      await page.getByLabel('Name').fill('Typed with care');
      const raced = await request('POST', '/api-keys', { headers: auth, body: { name: 'Raced' } });
      created.push(raced.body.id);
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.locator('#create-error', { hasText: 'The free plan allows 3 active API keys' }).waitFor();
      expect(await page.getByLabel('Name').inputValue()).toBe('Typed with care');
      expect(await page.locator('#create-dialog').isVisible()).toBe(true);
      await expectAccessible(page, 'create refused at the maximum');
      expect(errors).toEqual([]);
    } finally {
      for (const id of created) await request('DELETE', `/api-keys/${id}`, { headers: auth });
    }
  });

  it('roll: the new key is shown once, the old one says which key replaced it and keeps working; scope and expiry are shown', async () => {
    const acme = seed().tenants[0]!;
    const admin = acme.users.find((user) => user.role === 'ADMIN')!;
    const bsc = acme.kpis.find((kpi) => kpi.type === 'BSC_KPI')!;
    const { token } = await loginAs(admin.email, admin.password);
    const auth = { Authorization: `Bearer ${token}` };
    const soon = new Date(Date.now() + 5 * 86_400_000).toISOString();
    const original = await request('POST', '/api-keys', {
      headers: auth,
      body: { name: 'Rotating job', kpiIds: [bsc.id], expiresAt: soon },
    });
    const later = await request('POST', '/api-keys', {
      headers: auth,
      body: { name: 'Quarterly job', expiresAt: new Date(Date.now() + 30 * 86_400_000).toISOString() },
    });
    const { page, errors } = await openPage({ permissions: ['clipboard-read', 'clipboard-write'] });
    try {
      await signIn(page, admin.email);
      // "expires in N days" within 14 days only; the scope by KPI name.
      expect(await cell(page, 'Rotating job', 'Expires').locator('.soon').textContent()).toBe(
        'expires in 5 days',
      );
      expect(await cell(page, 'Quarterly job', 'Expires').locator('.soon').count()).toBe(0);
      expect(await cell(page, 'Rotating job', 'KPIs').textContent()).toBe(bsc.name);
      expect(await cell(page, 'Quarterly job', 'KPIs').textContent()).toBe('All KPIs');

      await page.getByRole('button', { name: 'Roll Rotating job' }).click();
      const dialog = page.locator('#roll-dialog');
      await dialog.waitFor();
      expect(await dialog.getByRole('heading').textContent()).toBe('Roll API key “Rotating job”?');
      expect(await page.getByLabel('The old key keeps working for').inputValue()).toBe('24');
      await expectAccessible(page, 'roll dialog');
      await page.getByLabel('The old key keeps working for').selectOption('72');
      await page.getByRole('button', { name: 'Roll key' }).click();

      const reveal = page.locator('#reveal-dialog');
      await reveal.getByRole('heading', { name: 'Your new API key' }).waitFor();
      const newKey = await page.locator('#new-key').inputValue();
      expect(newKey).toMatch(/^skm_/);
      expect(await reveal.locator('#reveal-roll').textContent()).toMatch(
        new RegExp(
          `^The old key ${original.body.prefix}… keeps working until .+: deploy the new key before then\\.$`,
        ),
      );
      await expectAccessible(page, 'rolled key shown once');
      await page.getByRole('button', { name: 'Done' }).click();
      await page.locator('#new-key').waitFor({ state: 'detached' });

      const old = page.locator(`#keys-body tr[data-key-id="${original.body.id}"]`);
      await old.locator('.note', { hasText: 'replaced by' }).waitFor();
      expect(await old.getAttribute('data-rolled')).not.toBeNull();
      expect(await old.locator('[data-label="Status"]').textContent()).toBe(
        `active replaced by ${newKey.slice(0, 8)}`,
      );
      // A rolled key can still be revoked early or get its sources changed, but not be rolled again.
      expect(await old.locator('.row-actions button').allTextContents()).toEqual(['Sources', 'Revoke']);
      const replacement = page.locator('#keys-body tr:not([data-rolled])', { hasText: 'Rotating job' });
      expect(await replacement.locator('[data-label="KPIs"]').textContent()).toBe(bsc.name);
      await shot(page, '13-rolled');
      await expectAccessible(page, 'after a roll');

      // Both keys push during the grace period.
      expect((await push(newKey, bsc.id)).status).toBeOneOf([200, 201]);
      expect((await push(original.body.key, bsc.id)).status).toBeOneOf([200, 201]);

      // The count says why it is one less than the active rows, where it stands.
      expect(await page.locator('#plan-usage').textContent()).toMatch(
        /^\d+ of 5 keys used on the business plan; a rolled key and its replacement count as one until the old key stops working$/,
      );
      // The two rows share a name; their buttons do not share an accessible name.
      const newPrefix = newKey.slice(0, 8);
      expect(await replacement.locator('[data-label="Status"]').textContent()).toBe(
        `active replaces ${original.body.prefix}`,
      );
      for (const prefix of [original.body.prefix, newPrefix]) {
        for (const action of ['Revoke', 'Usage of']) {
          const name = `${action} Rotating job (${prefix})`;
          expect(await page.getByRole('button', { name, exact: true }).count(), name).toBe(1);
        }
      }
      expect(
        await page.getByRole('button', { name: `Roll Rotating job (${newPrefix})`, exact: true }).count(),
      ).toBe(1);

      // Revoking the new key: before confirming, the dialog says that the old key stops too.
      await page.getByRole('button', { name: `Revoke Rotating job (${newPrefix})`, exact: true }).click();
      const revoke = page.locator('#revoke-dialog');
      await revoke.waitFor();
      expect(await revoke.locator('#revoke-also').textContent()).toMatch(
        new RegExp(
          `^The old key ${original.body.prefix}… stops working too\\. This key replaced it in a roll, and it works until .+ only while its replacement does: revoking this key ends its grace period now\\. To keep this key and stop the old one, revoke ${original.body.prefix}… instead\\.$`,
        ),
      );
      expect(await revoke.getAttribute('aria-describedby')).toBe('revoke-text revoke-also');
      await shot(page, '14-revoke-rolled-replacement');
      await expectAccessible(page, 'revoking a replacement');
      await page.locator('#revoke-confirm').click();
      await revoke.waitFor({ state: 'hidden' });
      await page
        .locator('#status', {
          hasText: `API key “Rotating job” revoked; the old key ${original.body.prefix}… stopped working too.`,
        })
        .waitFor({ state: 'attached' });
      expect((await push(newKey, bsc.id)).body.type).toMatch(/\/api-key-revoked$/);
      expect((await push(original.body.key, bsc.id)).body.type).toMatch(/\/api-key-expired$/);
      expect(await page.locator('#keys-body tr', { hasText: 'Rotating job' }).count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      const listed = await request('GET', '/api-keys', { headers: auth });
      for (const key of listed.body.items.filter((k: any) =>
        ['Rotating job', 'Quarterly job'].includes(k.name),
      )) {
        await request('DELETE', `/api-keys/${key.id}`, { headers: auth });
      }
      expect(later.status).toBe(201);
    }
  });

  it("usage: each key's 30 days as a chart, its refusal share and last source; its Usage panel, by keyboard, lists refusals by reason", async () => {
    // A tenant of its own: the counts are this test's alone.
    const { tenant, email, password } = await createStackTenant();
    const db = stackDatabase();
    const revenue = await createKpi(db, tenant.id, { type: 'BSC_KPI', name: 'Revenue' });
    const churn = await createKpi(db, tenant.id, { type: 'BSC_KPI', name: 'Churn' });
    const { token } = await loginAs(email, password);
    const auth = { Authorization: `Bearer ${token}` };
    const used = await request('POST', '/api-keys', {
      headers: auth,
      body: { name: 'Revenue job', kpiIds: [revenue.id] },
    });
    const idle = await request('POST', '/api-keys', { headers: auth, body: { name: 'Idle job' } });
    expect([used.status, idle.status]).toEqual([201, 201]);
    const userAgent = 'revenue-job/2.1 (e2e)';
    const send = (kpiId: string, kpiType = 'BSC_KPI') =>
      fetch(`${baseUrl()}/integrations/push/measurement`, {
        method: 'POST',
        headers: { 'x-api-key': used.body.key, 'Content-Type': 'application/json', 'User-Agent': userAgent },
        body: JSON.stringify({ kpiId, kpiType, actual: 42 }),
      }).then((response) => response.status);
    // Three accepted, one outside the key's scope, one with a KPI type that is not the KPI's.
    const statuses = [
      await send(revenue.id),
      await send(revenue.id),
      await send(revenue.id),
      await send(churn.id),
      await send(revenue.id, 'THEME_KPI'),
    ];
    expect(statuses.slice(0, 3).every((status) => status === 200 || status === 201)).toBe(true);
    expect(statuses.slice(3)).toEqual([403, 404]);
    // What the page is drawn from: the list's usage of the key, the source as API Gateway saw it.
    const listed = await request('GET', '/api-keys', { headers: auth });
    const usage = listed.body.items.find((key: { id: string }) => key.id === used.body.id).usage;
    expect(usage).toMatchObject({ requests: 5, refused: 2, lastUserAgent: userAgent });
    expect(usage.days).toHaveLength(30);

    const { page, errors } = await openPage();
    await signIn(page, email, password);
    const row = page.locator(`#key-${used.body.id}`);
    const lastDays = row.locator('[data-label="Last 30 days"]');
    const chart = lastDays.locator('.usage-chart');
    expect(await chart.getAttribute('role')).toBe('img');
    expect(await chart.getAttribute('aria-label')).toBe('5 requests in the last 30 days, 2 refused');
    expect(await lastDays.locator('.requests').textContent()).toBe('5 requests');
    expect(await lastDays.locator('.refusal-share').textContent()).toBe('40% refused');
    // uPlot's bars: one slot per day, today's (the last) drawn up to the top, the first day's empty.
    await chart.locator('canvas').waitFor();
    const painted = await chart.locator('canvas').evaluate((canvas: HTMLCanvasElement) => {
      const context = canvas.getContext('2d')!;
      const slot = canvas.width / 30;
      const alpha = (x: number, y: number) =>
        context.getImageData(Math.round(x), Math.round(y), 1, 1).data[3];
      return {
        today: alpha(29.5 * slot, canvas.height * 0.25),
        firstDay: alpha(0.5 * slot, canvas.height - 2),
      };
    });
    expect(painted).toEqual({ today: 255, firstDay: 0 });
    const last = row.locator('[data-label="Last request"]');
    expect(await last.locator('time').getAttribute('datetime')).toBe(usage.lastRequestAt);
    expect(await last.locator('.source-agent').textContent()).toBe(userAgent);
    expect(await last.locator('.source-ip').textContent()).toBe(usage.lastSourceIp);
    expect(usage.lastSourceIp).toMatch(/\S/);

    // A key without requests says so, in words and without a share.
    const idleRow = page.locator(`#key-${idle.body.id}`);
    expect(await idleRow.locator('.usage-chart').getAttribute('aria-label')).toBe(
      'No requests in the last 30 days',
    );
    expect(await idleRow.locator('.refusal-share').textContent()).toBe('—');
    expect(await idleRow.locator('[data-label="Last request"]').textContent()).toBe('None in 30 days');
    await expectAccessible(page, 'usage in the list');

    // The Usage button is a disclosure: Enter opens the key's panel below its row, the focus stays.
    const toggle = page.getByRole('button', { name: 'Usage of Revenue job' });
    await toggle.focus();
    await page.keyboard.press('Enter');
    const panel = page.locator(`#usage-${used.body.id}`);
    await panel.locator('.refusals').waitFor();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    expect(await toggle.getAttribute('aria-controls')).toBe(`usage-${used.body.id}`);
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
      `Usage of Revenue job (${used.body.prefix})`,
    );
    const figure = (id: string) => panel.locator(`[data-figure="${id}"] dd`).textContent();
    expect([await figure('requests'), await figure('accepted'), await figure('refused')]).toEqual([
      '5',
      '3',
      '2',
    ]);
    const refusals = await panel
      .locator('.refusals > div')
      .evaluateAll((rows) =>
        rows.map((reason) => [
          (reason as HTMLElement).dataset.reason,
          reason.querySelector('dd')?.textContent,
        ]),
      );
    expect(refusals).toEqual([
      ['authentication', '0'],
      ['source', '0'],
      ['scope', '1'],
      ['rateLimit', '0'],
      ['validation', '1'],
      ['featureOff', '0'],
    ]);
    expect(await panel.locator('.usage-last').textContent()).toContain(userAgent);
    await shot(page, '16-key-usage');
    await expectAccessible(page, 'usage panel open');
    // Tab leaves the button for the row's next control; Space on the button closes the panel.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe(
      `Sources of Revenue job (${used.body.prefix})`,
    );
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Space');
    await panel.waitFor({ state: 'detached' });
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(errors).toEqual([]);
  });

  it('sources: ADMIN limits a key to its last source in one step, a refused push shows in its usage, a bad line is named, and empty is any address', async () => {
    const { tenant, email, password } = await createStackTenant();
    const kpi = await createKpi(stackDatabase(), tenant.id, { type: 'BSC_KPI', name: 'Nightly revenue' });
    const auth = { Authorization: `Bearer ${(await loginAs(email, password)).token}` };
    const created = await request('POST', '/api-keys', { headers: auth, body: { name: 'Cron host' } });
    const sendFrom = (from: string) =>
      request('POST', '/integrations/push/measurement', {
        headers: { 'x-api-key': created.body.key },
        body: {
          kpiId: kpi.id,
          kpiType: 'BSC_KPI',
          actual: 7,
          periodStart: '2026-03-01',
          periodEnd: '2026-03-31',
        },
        from,
      });
    expect((await sendFrom('127.0.0.2')).status).toBe(201);

    // The 400 for the unreadable line is an answer the page handles.
    const { page, errors } = await browser.openPage(pageUrl(), {
      context: { viewport: { width: 1100, height: 760 } },
      handles: [400, 401, 409],
    });
    await signIn(page, email, password);
    const label = `Cron host (${created.body.prefix})`;
    const sources = cell(page, 'Cron host', 'Sources');
    expect(await sources.textContent()).toBe('Any');
    await page.getByRole('button', { name: `Sources of ${label}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Allowed sources of “Cron host”' });
    await dialog.waitFor();
    const list = dialog.getByLabel('One address or CIDR block per line; empty: any address');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('sources-list');
    expect(await list.inputValue()).toBe('');
    await expectAccessible(page, 'sources dialog');
    // A line the service cannot read is named in the dialog, which stays open with what was typed.
    await list.fill('127.0.0.2\n10.0.0.1/33');
    await dialog.getByRole('button', { name: 'Save' }).click();
    const alert = dialog.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('"10.0.0.1/33"');
    expect(await list.inputValue()).toBe('127.0.0.2\n10.0.0.1/33');
    await shot(page, '17-key-sources');
    await expectAccessible(page, 'sources dialog with an error');
    // One step: only the address the key was last used from.
    await dialog.getByRole('button', { name: 'Only 127.0.0.2, its last source' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.waitForFunction(
      (id) => document.querySelector(`#key-${id} [data-label="Sources"]`)?.textContent === '127.0.0.2/32',
      created.body.id,
    );
    expect(await timesShown(page, 'Sources of “Cron host” saved.')).toBe(1);
    const listed = await request('GET', '/api-keys', { headers: auth });
    expect(
      listed.body.items.find((key: { id: string }) => key.id === created.body.id).allowedSources,
    ).toEqual(['127.0.0.2/32']);

    // A push from elsewhere is refused, and the Usage panel names the address.
    expect((await sendFrom('127.0.0.3')).status).toBe(403);
    expect((await sendFrom('127.0.0.2')).status).toBe(200);
    await page.getByRole('button', { name: `Usage of ${label}` }).click();
    const panel = page.locator(`#usage-${created.body.id}`);
    await panel.locator('.refusals').waitFor();
    expect(await panel.locator('[data-reason="source"] dd').textContent()).toBe('1');
    expect(await panel.locator('#usage-refused-source').textContent()).toBe('Last refused source: 127.0.0.3');
    await expectAccessible(page, 'usage panel with a refused source');

    // Empty: any address again.
    await page.getByRole('button', { name: `Sources of ${label}` }).click();
    await dialog.waitFor();
    expect(await list.inputValue()).toBe('127.0.0.2/32');
    await list.fill('');
    await dialog.getByRole('button', { name: 'Save' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.waitForFunction(
      (id) => document.querySelector(`#key-${id} [data-label="Sources"]`)?.textContent === 'Any',
      created.body.id,
    );
    expect((await sendFrom('127.0.0.3')).status).toBe(200);
    expect(errors).toEqual([]);
  });

  it('messages are cleared: "Signed out." is shown once, and is gone after signing in', async () => {
    const acme = seed().tenants[0]!;
    const viewer = acme.users.find((user) => user.role === 'VIEWER')!;
    const { page, errors } = await openPage();
    await signIn(page, viewer.email);
    const { refreshToken } = await page.evaluate(() =>
      JSON.parse(sessionStorage.getItem(sessionStorage.key(0)!)!),
    );
    const loggedOut = page.waitForResponse((response) => response.url().endsWith('/auth/logout'));
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.locator('#sign-in-message', { hasText: 'Signed out.' }).waitFor();
    expect(await timesShown(page, 'Signed out.')).toBe(1);
    // Signing out ends the session on the server: its refresh token no longer works anywhere.
    expect((await loggedOut).status()).toBe(204);
    expect((await request('POST', '/auth/refresh-token', { body: { refreshToken } })).status).toBe(401);
    await expectAccessible(page, 'signed out');
    await signInAgain(page, viewer.email);
    expect(await timesShown(page, 'Signed out.')).toBe(0);
    expect(await page.locator('#status').textContent()).toBe('');
    expect(errors).toEqual([]);
  });

  it('warns when the plan does not include push', async () => {
    const initech = seed().tenants[2]!;
    const admin = initech.users.find((user) => user.role === 'ADMIN')!;
    const { page, errors } = await openPage();
    await signIn(page, admin.email);
    const warning = page.locator('#push-warning');
    expect(await warning.isVisible()).toBe(true);
    expect(await warning.textContent()).toMatch(
      /free plan does not include pushing measurements \(kpi_push_measurement\)\. Keys can be created, but every push with them is refused/,
    );
    await shot(page, '14-push-not-in-plan');
    await expectAccessible(page, 'push not in plan');
    const acme = seed().tenants[0]!;
    const other = await openPage();
    await signIn(other.page, acme.users.find((user) => user.role === 'VIEWER')!.email);
    expect(await other.page.locator('#push-warning').isVisible()).toBe(false);
    expect(errors).toEqual([]);
  });

  it('shows that the keys are loading, and a failed load with its detail and a way to retry', async () => {
    const acme = seed().tenants[0]!;
    const viewer = acme.users.find((user) => user.role === 'VIEWER')!;
    const { page, errors } = await openPage();
    const list = await failNext(page, /\/api\/api-keys\?/, 'The key store is resting.');
    await page.keyboard.press('Tab');
    await page.keyboard.type(viewer.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type('demo-password-1');
    await page.keyboard.press('Enter');
    await list.requested;
    await page.locator('#keys-loading', { hasText: 'Loading the keys…' }).waitFor();
    expect(await page.locator('#keys').getAttribute('aria-busy')).toBe('true');
    await expectAccessible(page, 'loading');
    list.fail();
    await page.locator('#list-error').waitFor();
    expect(await page.locator('#list-error').textContent()).toBe(
      'The keys could not be loaded: The key store is resting.',
    );
    expect(await page.locator('#keys-loading').count()).toBe(0);
    expect(await page.locator('#keys-table').count()).toBe(0);
    await shot(page, '15-load-failed');
    await expectAccessible(page, 'load failed');
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.locator('#keys:not([aria-busy]) #keys-body tr').first().waitFor();
    expect(await page.locator('#list-error').count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('keys-title');
    expect(errors.filter((error) => !/status of 503/.test(error))).toEqual([]);
  });
});

import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BROWSER_TIMEOUT_MS, launchBrowser, screenshotPath } from '../support/browser';
import { baseUrl, createStackTenant, loginAs, request, seed } from '../support/http';

/**
 * The API key management page (/platform/api-keys) in headless Chromium against the real local stack.
 * One screenshot per state goes to tests/e2e/screenshots/; UPDATE_DOCS_SCREENSHOT=1 also refreshes
 * docs/api-keys-page.png (the README's picture).
 */

const pageUrl = () => baseUrl().replace(/\/api$/, '/platform/api-keys');
const DOCS_SCREENSHOT = resolve(__dirname, '..', '..', 'docs', 'api-keys-page.png');

let browser: Browser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
});

interface OpenedPage {
  page: Page;
  /** Uncaught errors, console errors and CSP violations seen by the page. */
  errors: string[];
}

const openPage = async (options: BrowserContextOptions = {}): Promise<OpenedPage> => {
  const context = await browser.newContext({ viewport: { width: 1100, height: 760 }, ...options });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    // 4xx answers the page handles (401 before a refresh, 409 at the plan maximum) are logged by Chromium.
    if (message.type() === 'error' && !/status of (401|409)/.test(message.text()))
      errors.push(message.text());
  });
  await page.goto(pageUrl());
  return { page, errors };
};

/** Signs in with the keyboard alone: Tab into the form, type, Enter. */
const signIn = async (page: Page, email: string, password = 'demo-password-1') => {
  await page.keyboard.press('Tab');
  expect(await page.evaluate(() => document.activeElement?.id)).toBe('email');
  await page.keyboard.type(email);
  await page.keyboard.press('Tab');
  await page.keyboard.type(password);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'Keys of your organization' }).waitFor();
  await page.locator('#keys:not([aria-busy])').waitFor();
};

const shot = async (page: Page, name: string) => {
  await page.screenshot({ path: screenshotPath(name), fullPage: true });
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

describe('the API key page in Chromium', () => {
  afterAll(async () => {
    for (const context of contexts) await context.close();
  });

  it('ADMIN: create (key shown once), push with it, last used after reload, revoke with confirmation, push is refused', async () => {
    const acme = seed().tenants[0]!;
    const admin = acme.users.find((user) => user.role === 'ADMIN')!;
    const kpi = acme.kpis.find((k) => k.type === 'BSC_KPI')!;
    const { page, errors } = await openPage({ permissions: ['clipboard-read', 'clipboard-write'] });
    await shot(page, '01-sign-in');
    await signIn(page, admin.email);
    expect(await page.locator('#who').textContent()).toContain('ADMIN');
    await shot(page, '02-admin-list');

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
    await page.getByLabel('Name').press('Enter');

    // The raw key, once, in a read-only field with a Copy button and a warning.
    const reveal = page.locator('#reveal-dialog');
    await reveal.getByRole('heading', { name: 'Your new API key' }).waitFor();
    const field = reveal.getByLabel(`API key “${name}”`);
    const key = await field.inputValue();
    expect(key.length).toBeGreaterThan(20);
    expect(await field.getAttribute('readonly')).not.toBeNull();
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
    if (process.env.UPDATE_DOCS_SCREENSHOT === '1') {
      mkdirSync(dirname(DOCS_SCREENSHOT), { recursive: true });
      copyFileSync(screenshotPath('05-last-used-after-push'), DOCS_SCREENSHOT);
    }

    // Revoke with the keyboard: the confirmation names the key and starts on Cancel.
    await page.getByRole('button', { name: `Revoke ${name}` }).focus();
    await page.keyboard.press('Enter');
    const confirm = page.locator('#revoke-dialog');
    await confirm.waitFor();
    expect(await confirm.getByRole('heading').textContent()).toBe(`Revoke API key “${name}”?`);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('revoke-cancel');
    await shot(page, '06-revoke-confirmation');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await confirm.waitFor({ state: 'hidden' });
    await page.locator(`#keys-body tr[data-status="revoked"]`, { hasText: name }).waitFor();
    expect(await cell(page, name, 'Status').textContent()).toBe('revoked');
    expect(await rowOf(page, name).getByRole('button').count()).toBe(0);
    await shot(page, '07-revoked');

    const refused = await push(key, kpi.id);
    expect(refused.status).toBe(403);

    // Seeded revoked and expired keys have no button either.
    for (const status of ['revoked', 'expired']) {
      const rows = page.locator(`#keys-body tr[data-status="${status}"]`);
      expect(await rows.getByRole('button').count()).toBe(0);
    }
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
    expect(errors).toEqual([]);
  });

  it('VIEWER: sees the list without create and revoke controls, and why (375 px wide)', async () => {
    const acme = seed().tenants[0]!;
    const viewer = acme.users.find((user) => user.role === 'VIEWER')!;
    const { page, errors } = await openPage({ viewport: { width: 375, height: 740 }, isMobile: true });
    await signIn(page, viewer.email);
    expect(await page.locator('#keys-body tr').count()).toBeGreaterThan(0);
    expect(await page.getByRole('button', { name: 'Create API key' }).count()).toBe(0);
    expect(await page.locator('#keys-body button').count()).toBe(0);
    expect(await page.locator('#role-notice').textContent()).toMatch(
      /VIEWER role\. Only administrators \(ADMIN\) can create or revoke API keys/,
    );
    // Readable at 375 px: nothing scrolls sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(375);
    await shot(page, '08-viewer-375px');
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
    await page.getByRole('button', { name: 'Cancel' }).click();
    expect(errors).toEqual([]);
  });

  it('shows an empty state when the tenant has no keys', async () => {
    // Every seeded tenant has keys, so this one is made for the test, in the stack's own table.
    const { email, password } = await createStackTenant();
    const { page, errors } = await openPage();
    await signIn(page, email, password);
    expect(await page.locator('#empty').textContent()).toMatch(/no API keys yet/);
    expect(await page.locator('#keys-table').isVisible()).toBe(false);
    await shot(page, '11-empty');
    expect(errors).toEqual([]);
  });

  it('Free plan maximum: the problem detail is shown and the create button is disabled', async () => {
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
    expect(limit?.body.type).toMatch(/\/api-key-limit-reached$/);

    try {
      const { page, errors } = await openPage();
      await signIn(page, admin.email);
      const button = page.getByRole('button', { name: 'Create API key' });
      expect(await button.isEnabled()).toBe(true);
      await button.click();
      await page.getByLabel('Name').fill('One too many');
      await page.getByRole('button', { name: 'Create key' }).click();
      const notice = page.locator('#limit-notice');
      await notice.waitFor();
      expect(await notice.textContent()).toContain(limit!.body.detail);
      expect(await button.isDisabled()).toBe(true);
      expect(await button.getAttribute('aria-describedby')).toBe('limit-notice');
      expect(await page.locator('#create-dialog').isVisible()).toBe(false);
      await shot(page, '12-plan-maximum');
      expect(errors).toEqual([]);
    } finally {
      for (const id of created) await request('DELETE', `/api-keys/${id}`, { headers: auth });
    }
  });
});

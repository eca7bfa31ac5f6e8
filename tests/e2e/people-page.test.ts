import { describe, expect, it } from 'vitest';
import { MAX_SESSION_CACHE_SECONDS } from '../../lib/auth/session-guard';
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
 * The people pages in Chromium against the local stack: an ADMIN invites an EDITOR on
 * /platform/people and copies the link shown once; the link, opened in a fresh browser context, sets a
 * password on /platform/accept and lands signed in; the EDITOR creates a KPI; the ADMIN deactivates
 * them, and the EDITOR's open tab is refused at its next request once the session cache's bound has
 * passed. axe-core finds no violation in any state.
 */
const browser = useBrowser();

describe('GET /platform/people and /platform/accept', () => {
  it('are HTML documents with a CSP that allows exactly their inline script', async () => {
    for (const name of ['people', 'accept']) {
      const response = await fetch(platformUrl(name));
      expect(response.status, name).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).toMatch(/default-src 'none'/);
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    }
  });
});

describe('the people pages', { timeout: BROWSER_TEST_TIMEOUT_MS + MAX_SESSION_CACHE_SECONDS * 1000 }, () => {
  it('an ADMIN invites an EDITOR, who sets a password, creates a KPI and is refused once deactivated', async () => {
    const admin = await createStackTenant();
    const { page, errors } = await browser.openPage(platformUrl('people'), { handles: [400, 409] });
    await signIn(page, admin);
    await page.locator('#people-table tbody tr').first().waitFor();
    expect(await page.locator('#nav a[href="people"]').getAttribute('aria-current')).toBe('page');
    await expectAccessible(page, 'list');

    // Invite: the link is shown once, with the note that no e-mail is sent.
    const email = `editor-${admin.tenant.id}@e2e.example`;
    await page.locator('#invite-email').fill(email);
    await page.locator('#invite-role').selectOption('EDITOR');
    await page.locator('#invite-name').fill('Ana Lima');
    await page.locator('#invite-submit').click();
    await page.locator('#link-panel').waitFor();
    const url = await page.locator('#link-url').inputValue();
    expect(url).toMatch(/\/platform\/accept#token=/);
    expect(await page.locator('#link-panel').textContent()).toContain('sends no e-mail');
    const invited = page.locator('#people-table tr', { hasText: email });
    expect(await invited.getAttribute('data-status')).toBe('invited');
    expect(await invited.locator('[data-label="Invited by"]').textContent()).toContain(admin.email);
    await expectAccessible(page, 'link shown');
    await shot(page, 'people-01-invited');

    // The same address again: the service's 409 is on the page.
    await page.locator('#invite-email').fill(email);
    await page.locator('#invite-submit').click();
    await page.locator('#invite-error:not([hidden])').waitFor();
    expect(await page.locator('#invite-error').textContent()).toMatch(/already a user/);
    // The last ADMIN cannot deactivate themselves: 409 shown.
    await page.getByRole('button', { name: `Deactivate ${admin.email}` }).click();
    await page.locator('#action-error:not([hidden])').waitFor();
    expect(await page.locator('#action-error').textContent()).toContain(admin.email);
    await expectAccessible(page, 'problems shown');

    // A fresh context opens the link: a short password is refused before sending, then one is set.
    // The link names the origin the service was called at, http for the local stack: it opens as it is.
    expect(url.startsWith(`${platformUrl('accept')}#`)).toBe(true);
    const editor = await browser.openPage(url, {
      handles: [400, 401, 403],
    });
    await editor.page.locator('#new-password').waitFor();
    expect(editor.page.url()).not.toContain('token');
    await expectAccessible(editor.page, 'accept');
    await editor.page.locator('#new-password').fill('too short');
    await editor.page.locator('#accept-submit').click();
    await editor.page.locator('#accept-error:not([hidden])').waitFor();
    const password = `a long passphrase for ${admin.tenant.id}`;
    await editor.page.locator('#new-password').fill(password);
    await editor.page.locator('#accept-submit').click();
    await editor.page.waitForURL(/\/platform\/kpis$/);
    await editor.page.locator('#who', { hasText: `${email} · EDITOR` }).waitFor();

    // The EDITOR creates a KPI on the strategy page.
    await editor.page.goto(platformUrl('strategy'));
    await editor.page.locator('#kpi-new').click();
    await editor.page.locator('#kpi-name').fill('Onboarded backlog');
    await editor.page.locator('#kpi-submit').click();
    await editor.page.locator('#kpi-dialog').waitFor({ state: 'hidden' });
    const { token } = await loginAs(admin.email, admin.password);
    const kpis = await request('GET', '/kpis', { headers: { Authorization: `Bearer ${token}` } });
    expect(kpis.body.items.map((kpi: { name: string }) => kpi.name)).toContain('Onboarded backlog');

    // The ADMIN deactivates them; the link panel is dismissed first.
    await page.locator('#dismiss-link').click();
    await page.reload();
    const row = page.locator('#people-table tr', { hasText: email });
    await row.waitFor();
    expect(await row.getAttribute('data-status')).toBe('active');
    await page.getByRole('button', { name: `Deactivate ${email}` }).click();
    await page.locator(`#people-table tr[data-status="deactivated"]`, { hasText: email }).waitFor();
    await expectAccessible(page, 'deactivated');
    await shot(page, 'people-02-deactivated');

    // Past the session cache's bound, the EDITOR's next request is refused and the tab asks to sign in.
    await new Promise((done) => setTimeout(done, (MAX_SESSION_CACHE_SECONDS + 1) * 1000));
    await editor.page.locator('#kpi-new').click();
    await editor.page.locator('#kpi-name').fill('After deactivation');
    await editor.page.locator('#kpi-submit').click();
    await editor.page.locator('#sign-in-message', { hasText: 'session has expired' }).waitFor();
    const after = await request('GET', '/kpis', { headers: { Authorization: `Bearer ${token}` } });
    expect(after.body.items.map((kpi: { name: string }) => kpi.name)).not.toContain('After deactivation');
    expect(errors).toEqual([]);
    expect(editor.errors).toEqual([]);
  });

  it('tells a VIEWER that people are for ADMINs; the header changes a password', async () => {
    const admin = await createStackTenant();
    const { page, errors } = await browser.openPage(platformUrl('people'), { handles: [400] });
    await signIn(page, admin);
    await page.locator('#people-table').waitFor();
    await page.locator('#change-password').click();
    await page.locator('#pw-current').fill('wrong password');
    await page.locator('#pw-new').fill('a new and long passphrase');
    await page.locator('#pw-submit').click();
    await page.locator('#pw-error:not([hidden])').waitFor();
    await expectAccessible(page, 'change password refused');
    await page.locator('#pw-current').fill(admin.password);
    await page.locator('#pw-submit').click();
    await page.locator('#status', { hasText: 'Password changed' }).waitFor();
    expect((await loginAs(admin.email, 'a new and long passphrase')).token).toBeTruthy();

    const viewerEmail = `viewer-${admin.tenant.id}@e2e.example`;
    const { token } = await loginAs(admin.email, 'a new and long passphrase');
    const invited = await request('POST', '/users', {
      headers: { Authorization: `Bearer ${token}` },
      body: { email: viewerEmail, role: 'VIEWER' },
    });
    const viewerPassword = `viewer passphrase ${admin.tenant.id}`;
    await request('POST', '/auth/accept-invitation', {
      body: { token: invited.body.link.token, password: viewerPassword },
    });
    const viewer = await browser.openPage(platformUrl('people'));
    await signIn(viewer.page, { email: viewerEmail, password: viewerPassword });
    await viewer.page.locator('#people-forbidden').waitFor();
    expect(await viewer.page.locator('#nav a[href="people"]').count()).toBe(0);
    await expectAccessible(viewer.page, 'viewer');
    expect(errors).toEqual([]);
    expect(viewer.errors).toEqual([]);
  });
});

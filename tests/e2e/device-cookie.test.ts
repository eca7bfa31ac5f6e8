import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { platformUrl, signIn as signInAs, type User, useBrowser } from '../support/browser';
import { createStackTenant, request } from '../support/http';

/**
 * The device token as the local stack serves it: serverless-offline passes the login's `Set-Cookie` on
 * with its attributes (as API Gateway passes a proxy result's headers), and the pages, which call the
 * login under their own origin, keep the cookie and send it back without a line of their own.
 */
const COOKIE = '__Secure-device-token';

const browser = useBrowser();

const signIn = async (page: Page, user: User) => {
  await signInAs(page, user);
  await page.getByRole('heading', { name: 'Keys of your organization' }).waitFor();
};

describe('the device cookie on the local stack', () => {
  it('over HTTP: the login sets it with HttpOnly, Secure, SameSite=Strict and the login path, and takes it back', async () => {
    const { email, password } = await createStackTenant();
    const first = await request('POST', '/auth/login', { body: { email, password } });
    expect(first.status).toBe(200);
    const setCookie = first.headers.get('set-cookie') ?? '';
    const [pair, ...attributes] = setCookie.split(';').map((part) => part.trim());
    expect(pair).toBe(`${COOKIE}=${first.body.deviceToken}`);
    // serverless-offline (hapi) renders the cookie anew and adds an Expires matching its Max-Age.
    const expires = attributes.find((attribute) => /^expires=/i.test(attribute));
    const named = attributes.filter((attribute) => attribute !== expires);
    expect(named.map((attribute) => attribute.toLowerCase()).sort()).toEqual(
      ['httponly', 'max-age=7776000', 'path=/api/auth/login', 'samesite=strict', 'secure'].sort(),
    );
    if (expires) {
      const days = (Date.parse(expires.slice('expires='.length)) - Date.now()) / 86_400_000;
      expect(days).toBeGreaterThan(89);
    }
    const again = await request('POST', '/auth/login', {
      body: { email, password },
      headers: { Cookie: `${COOKIE}=${first.body.deviceToken}` },
    });
    expect(again.status).toBe(200);
    expect(again.body.deviceToken).not.toBe(first.body.deviceToken);
  });

  it('in the browser: the page’s sign-in stores it out of reach of scripts, and the next sign-in sends it', async () => {
    const user = await createStackTenant();
    const { page } = await browser.openPage(platformUrl('api-keys'));
    const context = page.context();
    const firstLogin = page.waitForResponse((response) => response.url().endsWith('/auth/login'));
    await signIn(page, user);
    const answer = (await (await firstLogin).json()) as { deviceToken: string };
    const [cookie, ...others] = (await context.cookies()).filter((c) => c.name === COOKIE);
    expect(others).toEqual([]);
    expect(cookie).toMatchObject({
      value: answer.deviceToken,
      path: '/api/auth/login',
      httpOnly: true,
      secure: true,
      sameSite: 'Strict',
    });
    expect(cookie!.expires - Date.now() / 1000).toBeGreaterThan(89 * 86_400);
    expect(await page.evaluate(() => document.cookie)).not.toContain(COOKIE);
    // Signed out and in again (a page reload and the sign-in form): the login request carries it.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.locator('#email').waitFor();
    const secondLogin = page.waitForRequest((sent) => sent.url().endsWith('/auth/login'));
    await signIn(page, user);
    expect(await (await secondLogin).headerValue('cookie')).toBe(`${COOKIE}=${answer.deviceToken}`);
  });
});

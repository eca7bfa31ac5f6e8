import { describe, expect, it } from 'vitest';
import { APP_PAGES } from '../../web/shared/pages';
import { expectAccessible, platformUrl, useBrowser } from '../support/browser';

/** An address under /platform/ that is no page: an HTML 404 page, not the API's JSON problem. */
describe('GET /platform/<no page>', () => {
  const browser = useBrowser();

  it('answers 404 with an HTML page, at any depth, while the pages themselves still answer', async () => {
    for (const address of ['nope', 'kpis/extra']) {
      const response = await fetch(platformUrl(address));
      expect(response.status, address).toBe(404);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
      await expect(response.text()).resolves.toContain('<h1>Page not found</h1>');
    }
    const kpis = await fetch(platformUrl('kpis'));
    expect(kpis.status).toBe(200);
    await expect(kpis.text()).resolves.not.toContain('Page not found');
  });

  it('names the address as text and lists the pages there are, axe-clean', async () => {
    const { page, errors } = await browser.openPage(platformUrl('nope<b>x</b>'));
    await expect(page.locator('#missing').innerText()).resolves.toMatch(
      /^There is no page at .*\/platform\/nope%3Cb%3Ex%3C\/b%3E\.$/,
    );
    await expect(page.locator('#missing b').count()).resolves.toBe(0);
    const links = page.locator('#pages a');
    await expect(links.allInnerTexts()).resolves.toEqual(APP_PAGES.map((p) => p.label));
    await expectAccessible(page, 'not found');
    await links.filter({ hasText: 'KPIs' }).click();
    await page.waitForURL(platformUrl('kpis'));
    // Chromium logs the page's own 404 answer as a console error; nothing else may appear.
    expect(errors.filter((error) => !/status of 404/.test(error))).toEqual([]);
  });
});

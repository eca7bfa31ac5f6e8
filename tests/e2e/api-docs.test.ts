import { describe, expect, it } from 'vitest';
import { errorCatalog, PROBLEM_TYPE_BASE } from '../../lib/errors';
import { expectAccessible, screenshotPath, useBrowser } from '../support/browser';
import { baseUrl, request } from '../support/http';
import { committedDocument } from '../support/openapi';

/** The document, the reference page rendered from it, and the health check, over HTTP. */

describe('GET /api/openapi.json', () => {
  it('serves the committed openapi.json without authentication', async () => {
    const response = await request('GET', '/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.body).toEqual(committedDocument());
  });
});

describe('GET /api/health', () => {
  it('answers 200 {"status":"ok"} without authentication, and nothing else', async () => {
    const response = await request('GET', '/health');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok' });
    expect(response.headers.get('cache-control')).toBe('no-store');
  });
});

describe('GET /api/docs (headless Chromium)', () => {
  const browser = useBrowser();

  it('renders the reference from the document, lists the push endpoints, and contacts no other host', async () => {
    const { page, errors } = await browser.newPage({ context: { viewport: { width: 1280, height: 900 } } });
    const requested: string[] = [];
    page.on('request', (req) => requested.push(req.url()));
    const docsUrl = `${baseUrl()}/docs`;
    const response = await page.goto(docsUrl);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");

    const operation = (path: string) =>
      page.locator('.opblock', { has: page.locator(`.opblock-summary-path[data-path="${path}"]`) });
    const batch = operation('/integrations/push/measurements/batch');
    await batch.waitFor();
    await expect(operation('/integrations/push/measurement').count()).resolves.toBe(1);
    await expect(page.locator('.opblock-tag[data-tag="Push"]').count()).resolves.toBe(1);
    // The operation opens with its documented answers, rendered from the document.
    await batch.locator('.opblock-summary').click();
    await page.locator('.responses-table').first().waitFor();
    await expect(batch.locator('.response-col_status', { hasText: '429' }).count()).resolves.toBe(1);
    await expect(page.locator('.info .title').innerText()).resolves.toContain('Strategy service API');
    await page.screenshot({ path: screenshotPath('api-docs'), fullPage: false });

    const origin = new URL(docsUrl).origin;
    expect(requested.length).toBeGreaterThanOrEqual(5); // page, 2 scripts, 2 stylesheets, openapi.json
    expect(requested.filter((url) => new URL(url).origin !== origin && !url.startsWith('data:'))).toEqual([]);
    expect(requested).toContain(`${baseUrl()}/openapi.json`);
    // CSP violations and failed loads are reported as console errors.
    expect(errors).toEqual([]);
  });

  it('serves its assets under content-hashed names, cached for good; an unknown one is a 404 problem', async () => {
    const html = await (await fetch(`${baseUrl()}/docs`)).text();
    const assets = [...html.matchAll(/(?:src|href)="(docs\/[^"]+)"/g)].map((match) => match[1]!);
    expect(assets).toHaveLength(4);
    for (const asset of assets) {
      expect(asset).toMatch(/^docs\/[a-z-]+\.[0-9a-f]{12}\.(js|css)$/);
      const response = await fetch(`${baseUrl()}/${asset}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(response.headers.get('content-type')).toMatch(
        asset.endsWith('.css') ? /^text\/css/ : /^text\/javascript/,
      );
    }
    const missing = await fetch(`${baseUrl()}/docs/nothing.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('"Try it out" goes to the host, port and stage that served the page, not to a fixed address', async () => {
    const { page } = await browser.openPage(`${baseUrl()}/docs`);
    // The stack runs on a free port, never 3000: the only server offered is the page's own base URL.
    const servers = page.locator('.servers select option');
    await servers.first().waitFor({ state: 'attached' });
    await expect(servers.allTextContents()).resolves.toEqual([expect.stringContaining(baseUrl())]);
    await expect(page.locator('.servers select').inputValue()).resolves.toBe(baseUrl());
  });

  it('links back to the app: the bar lists every page of the app, as their header does, then its own', async () => {
    const { page } = await browser.openPage(`${baseUrl()}/docs`);
    const platform = baseUrl().replace(/\/api$/, '/platform');
    const links = page.locator('#nav a');
    await expect(
      links.evaluateAll((anchors) => anchors.map((a) => (a as HTMLAnchorElement).href)),
    ).resolves.toEqual([
      `${platform}/api-keys`,
      `${platform}/kpis`,
      `${platform}/strategy`,
      `${platform}/integrations`,
      `${platform}/audit`,
      `${platform}/people`,
      `${baseUrl()}/docs`,
      `${baseUrl()}/problems`,
      `${baseUrl()}/openapi.json`,
    ]);
    await expect(page.locator('#nav a[aria-current="page"]').innerText()).resolves.toBe('API reference');
    await page.locator('#nav a', { hasText: 'KPIs' }).click();
    await page.waitForURL(`${platform}/kpis`);
    await page.locator('#email').waitFor();
  });

  it('a second visit loads everything from the browser cache: no request reaches the stack', async () => {
    // What "under a second after the first visit" rests on: the page, its assets and the document are
    // cached (5 minutes for the page and the document, for good for the content-hashed assets), so a
    // later visit only runs Swagger UI (measured in docs/performance.md).
    const url = `${baseUrl()}/docs`;
    const { page } = await browser.openPage(url);
    await page.locator('.opblock').first().waitFor();
    await page.goto(`${baseUrl()}/health`);
    await page.goto(url);
    await page.locator('.opblock').first().waitFor();
    const transferred = await page.evaluate(() =>
      [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')].map(
        (entry) => [entry.name, (entry as PerformanceResourceTiming).transferSize] as const,
      ),
    );
    expect(transferred.length).toBe(6); // the page, 2 scripts, 2 stylesheets, openapi.json
    expect(transferred.filter(([, bytes]) => bytes > 0)).toEqual([]);
  });
});

describe('GET /api/problems: a page for every problem type', () => {
  const browser = useBrowser();

  it('serves each type of lib/errors.ts with its status, title and when it is answered; an unknown one is a 404 problem', async () => {
    for (const { slug, status, title } of Object.values(errorCatalog)) {
      const response = await fetch(`${baseUrl()}/problems/${slug}`);
      expect(response.status, slug).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await response.text();
      expect(html).toContain(`<code>${PROBLEM_TYPE_BASE}${slug}</code>`);
      expect(html).toContain(`<dt>Status</dt><dd>${status}</dd>`);
      expect(html).toMatch(/<dt>When<\/dt><dd>.+<\/dd>/);
      expect(html).toContain(title.replace(/'/g, '&#39;'));
    }
    const missing = await fetch(`${baseUrl()}/problems/no-such-type`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });

  it('lists every type, each linked to its page, axe-clean, and a type page leads back to the app', async () => {
    const { page, errors } = await browser.openPage(`${baseUrl()}/problems`);
    const links = page.locator('main table a');
    await expect(links.count()).resolves.toBe(Object.keys(errorCatalog).length);
    await expectAccessible(page, 'problem types');
    await page.locator('main table a', { hasText: 'kpi-archived' }).click();
    await page.waitForURL(`${baseUrl()}/problems/kpi-archived`);
    await expect(page.locator('h1').innerText()).resolves.toBe(errorCatalog.KPI_ARCHIVED.title);
    await expectAccessible(page, 'a problem type');
    await page.locator('#nav a', { hasText: 'KPIs' }).click();
    await page.waitForURL(baseUrl().replace(/\/api$/, '/platform/kpis'));
    expect(errors).toEqual([]);
  });
});

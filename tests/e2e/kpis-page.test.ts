import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKpi, type Kpi } from '../../lib/db/kpis';
import { launchBrowser, screenshotPath } from '../support/browser';
import { baseUrl, createStackTenant, loginAs, request, seed, stackDatabase } from '../support/http';

/**
 * The KPI page (/platform/kpis, issue 15) in headless Chromium against the real local stack, with data
 * pushed through the push API first: the chart renders the pushed values, the table shows the key that
 * pushed them, a quiet KPI is marked, axe-core finds nothing, and it works by keyboard and at 375 px.
 * UPDATE_DOCS_SCREENSHOT=1 refreshes docs/kpis-page.png and docs/kpi-detail.png (the README's pictures).
 */

const pageUrl = () => baseUrl().replace(/\/api$/, '/platform/kpis');
const DOCS = resolve(__dirname, '..', '..', 'docs');
const AXE_SOURCE = readFileSync(
  resolve(__dirname, '..', '..', 'node_modules', 'axe-core', 'axe.min.js'),
  'utf8',
);

let browser: Browser;
const contexts: BrowserContext[] = [];

/** A tenant of its own in the stack: one KPI with six pushed months, one without data, a key. */
interface Fixture {
  email: string;
  password: string;
  pushed: Kpi;
  silent: Kpi;
  key: { id: string; name: string; prefix: string };
}

const MONTHS = [
  { periodStart: '2025-01-01', periodEnd: '2025-01-31', actual: 10, target: 50 },
  { periodStart: '2025-02-01', periodEnd: '2025-02-28', actual: 40, target: 50 },
  { periodStart: '2025-03-01', periodEnd: '2025-03-31', actual: 25, target: 50 },
  { periodStart: '2025-04-01', periodEnd: '2025-04-30', actual: 60, target: 50 },
  { periodStart: '2025-05-01', periodEnd: '2025-05-31', actual: 35, target: 55, forecast: 70 },
  { periodStart: '2025-06-01', periodEnd: '2025-06-30', actual: 80, target: 55, forecast: 90 },
];

let fixture: Fixture;

beforeAll(async () => {
  browser = await launchBrowser();
  const { tenant, email, password } = await createStackTenant();
  const db = stackDatabase();
  const pushed = await createKpi(db, tenant.id, { type: 'BSC_KPI', name: 'Net revenue' });
  const silent = await createKpi(db, tenant.id, { type: 'OKR_KEY_RESULT', name: 'Churn below 2 %' });
  const { token } = await loginAs(email, password);
  const created = await request('POST', '/api-keys', {
    headers: { Authorization: `Bearer ${token}` },
    body: { name: 'Nightly revenue job' },
  });
  expect(created.status).toBe(201);
  const result = await request('POST', '/integrations/push/measurements/batch', {
    headers: { 'x-api-key': created.body.key },
    body: { measurements: MONTHS.map((m) => ({ kpiId: pushed.id, kpiType: pushed.type, ...m })) },
  });
  expect(result.status, JSON.stringify(result.body)).toBe(200);
  fixture = {
    email,
    password,
    pushed,
    silent,
    key: { id: created.body.id, name: created.body.name, prefix: created.body.prefix },
  };
});

afterAll(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
});

interface OpenedPage {
  page: Page;
  /** Uncaught errors, console errors and CSP violations seen by the page. */
  errors: string[];
}

const openPage = async (options: BrowserContextOptions = {}, url = pageUrl()): Promise<OpenedPage> => {
  const context = await browser.newContext({
    viewport: { width: 1100, height: 800 },
    locale: 'en-US',
    ...options,
  });
  contexts.push(context);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  await page.goto(url);
  return { page, errors };
};

const activeId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');

/** Signs in with the keyboard alone: Tab into the form, type, Enter; the list arrives. */
const signIn = async (page: Page, email: string, password: string) => {
  await page.keyboard.press('Tab');
  expect(await activeId(page)).toBe('email');
  await page.keyboard.type(email);
  await page.keyboard.press('Tab');
  await page.keyboard.type(password);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: 'KPIs of your organization' }).waitFor();
  await page.locator('#list:not([aria-busy]) #kpi-body tr').first().waitFor();
};

const rowOf = (page: Page, name: string) => page.locator('#kpi-body tr', { hasText: name });
const cell = (page: Page, name: string, label: string) =>
  rowOf(page, name).locator(`[data-label="${label}"]`);

/** axe-core, injected through the DevTools protocol (the page's CSP allows no other script). */
const axeViolations = async (page: Page) => {
  await page.evaluate(AXE_SOURCE);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: any }).axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v: any) => `${v.id}: ${v.nodes.map((n: any) => n.target).join(' | ')}`);
  });
};

const noSideways = async (page: Page, width: number) =>
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);

const shot = async (page: Page, name: string, docsName?: string) => {
  await page.screenshot({ path: screenshotPath(name), fullPage: true });
  if (docsName && process.env.UPDATE_DOCS_SCREENSHOT === '1') {
    mkdirSync(DOCS, { recursive: true });
    copyFileSync(screenshotPath(name), resolve(DOCS, docsName));
  }
};

/**
 * The canvas pixel under the chart's cursor point of the "actual" series, after the keyboard moved
 * the cursor: uPlot places the point at the value it plotted, so that pixel is the series' color.
 */
const actualPixelAtCursor = (page: Page) =>
  page.evaluate(() => {
    const canvas = document.querySelector<HTMLCanvasElement>('#chart canvas');
    const point = document.querySelectorAll<HTMLElement>('#chart .u-cursor-pt')[0];
    if (!canvas || !point) return null;
    const box = point.getBoundingClientRect();
    const area = canvas.getBoundingClientRect();
    const scale = canvas.width / area.width;
    const x = Math.round((box.left + box.width / 2 - area.left) * scale);
    const y = Math.round((box.top + box.height / 2 - area.top) * scale);
    const [r, g, b] = canvas.getContext('2d')?.getImageData(x, y, 1, 1).data ?? [];
    return { r, g, b };
  });

describe('GET /platform/kpis', () => {
  it('is one HTML document under 100 KB with a CSP that allows exactly its inline script and style', async () => {
    const response = await fetch(pageUrl());
    const html = await response.text();
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*'(;|$)/);
    expect(csp).toMatch(/style-src 'sha256-[A-Za-z0-9+/]+=*'(;|$)/);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
    expect(Buffer.byteLength(html)).toBeLessThan(100 * 1024);
    expect(html.match(/<script>/g)).toHaveLength(1);
    // The shared header and sign-in form are included at build time, not left as directives.
    expect(html).not.toContain('<!-- include');
    expect(html).toContain('id="sign-in-form"');
    expect(html).toContain('href="api-keys"');
  });
});

describe('the KPI page in Chromium', () => {
  it('list: latest value, period, arrival, sparkline; the KPI without data is quiet; filter by type', async () => {
    const { page, errors } = await openPage();
    await signIn(page, fixture.email, fixture.password);
    expect(await activeId(page)).toBe('list-title');
    expect(await page.locator('#nav a[aria-current="page"]').textContent()).toBe('KPIs');

    const name = fixture.pushed.name;
    expect(await cell(page, name, 'Latest').textContent()).toBe('80target 55');
    expect(await cell(page, name, 'Period').textContent()).toBe('Jun 2025');
    expect(await cell(page, name, 'Received').locator('time').count()).toBe(1);
    expect(await cell(page, name, 'Trend').locator('svg polyline').count()).toBe(1);
    expect(await cell(page, name, 'Status').textContent()).toBe('Receiving');
    expect(await rowOf(page, name).getAttribute('data-quiet')).toBeNull();

    const quiet = fixture.silent.name;
    expect(await rowOf(page, quiet).getAttribute('data-quiet')).toBe('');
    expect(await cell(page, quiet, 'Status').textContent()).toBe('QuietNo data yet.');
    expect(await page.locator('#list-summary').textContent()).toBe('2 KPIs, 1 quiet.');
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'kpis-01-list');

    await page.locator('#type-filter').selectOption('OKR_KEY_RESULT');
    await page.locator('#list:not([aria-busy])').waitFor();
    await expect.poll(() => page.locator('#kpi-body tr').count()).toBe(1);
    expect(await rowOf(page, quiet).count()).toBe(1);
    expect(new URL(page.url()).searchParams.get('type')).toBe('OKR_KEY_RESULT');
    // The filter survives a reload.
    await page.reload();
    await page.locator('#list:not([aria-busy]) #kpi-body tr').first().waitFor();
    expect(await page.locator('#type-filter').inputValue()).toBe('OKR_KEY_RESULT');
    expect(await page.locator('#kpi-body tr').count()).toBe(1);
    expect(errors).toEqual([]);
  });

  it('detail by keyboard: the chart renders the pushed values, the table names the key and links to it', async () => {
    const { page, errors } = await openPage();
    await signIn(page, fixture.email, fixture.password);
    // Tab from the list heading: the type filter, then the first KPI's link.
    await page.keyboard.press('Tab');
    expect(await activeId(page)).toBe('type-filter');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(fixture.pushed.name);
    await page.keyboard.press('Enter');
    await page.locator('#detail:not([aria-busy]) #measurement-body tr').first().waitFor();
    expect(await activeId(page)).toBe('detail-title');
    expect(await page.locator('#detail-title').textContent()).toBe(fixture.pushed.name);
    expect(new URL(page.url()).searchParams.get('kpi')).toBe(fixture.pushed.id);

    // The chart, by keyboard: every pushed period's values are what uPlot plotted under its cursor,
    // and the canvas is painted in the series' color where the value lies.
    await page.keyboard.press('Tab');
    expect(await activeId(page)).toBe('chart');
    const readout = page.locator('#chart-readout');
    for (const [i, month] of MONTHS.entries()) {
      await page.keyboard.press(i === 0 ? 'Home' : 'ArrowRight');
      const label = new Date(`${month.periodStart}T00:00:00Z`).toLocaleString('en-US', {
        month: 'short',
        year: 'numeric',
        timeZone: 'UTC',
      });
      await expect
        .poll(() => readout.textContent())
        .toBe(`${label}: actual ${month.actual}, target ${month.target}, forecast ${month.forecast ?? '—'}`);
      expect(await page.locator('#chart').getAttribute('aria-valuetext')).toBe(await readout.textContent());
      expect(await actualPixelAtCursor(page)).toEqual({ r: 0x0b, g: 0x5c, b: 0xad });
    }
    await page.keyboard.press('Home');
    await expect.poll(() => readout.textContent()).toMatch(/^Jan 2025: actual 10,/);
    await page.keyboard.press('End');
    await expect.poll(() => readout.textContent()).toMatch(/^Jun 2025: actual 80,/);

    // The table: newest period first, with the key's prefix and name, linked to its row.
    const rows = page.locator('#measurement-body tr');
    expect(await rows.count()).toBe(MONTHS.length);
    const newest = rows.first();
    expect(await newest.locator('[data-label="Period"]').textContent()).toBe('Jun 2025');
    expect(await newest.locator('[data-label="Actual"]').textContent()).toBe('80');
    expect(await newest.locator('[data-label="Forecast"]').textContent()).toBe('90');
    expect(await rows.last().locator('[data-label="Forecast"]').textContent()).toBe('—');
    expect(await newest.locator('[data-label="Received"] time').count()).toBe(1);
    const keyCell = newest.locator('[data-label="Pushed with key"]');
    expect(await keyCell.locator('code').textContent()).toBe(fixture.key.prefix);
    expect(await keyCell.textContent()).toBe(`${fixture.key.prefix}${fixture.key.name}`);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'kpis-02-detail');

    // Back (the browser's) returns to the list, focus on the KPI we came from.
    await page.goBack();
    await page.locator('#list:not([hidden])').waitFor();
    await expect
      .poll(() => page.evaluate(() => document.activeElement?.textContent))
      .toBe(fixture.pushed.name);
    await page.goForward();
    await page.locator('#detail:not([aria-busy]) #measurement-body tr').first().waitFor();

    // The key link, by keyboard: the key page opens signed in (shared session) at the key's row.
    await keyCell.locator('a').first().focus();
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/platform\/api-keys#key-/);
    const row = page.locator(`#key-${fixture.key.id}`);
    await row.waitFor();
    await expect.poll(() => activeId(page)).toBe(`key-${fixture.key.id}`);
    expect(await row.getAttribute('data-linked')).toBe('');
    expect(await row.locator('[data-label="Prefix"]').textContent()).toBe(fixture.key.prefix);
    expect(await page.locator('#nav a[aria-current="page"]').textContent()).toBe('API keys');
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'kpis-03-linked-key');

    // And back to the KPIs through the navigation, still signed in.
    await page.locator('#nav a', { hasText: 'KPIs' }).click();
    await page.locator('#list:not([aria-busy]) #kpi-body tr').first().waitFor();
    expect(await page.locator('#sign-in').isHidden()).toBe(true);
    expect(errors).toEqual([]);
  });

  it('375 px: list and detail fit the screen, the chart included', async () => {
    const { page, errors } = await openPage({ viewport: { width: 375, height: 740 }, isMobile: true });
    await signIn(page, fixture.email, fixture.password);
    await noSideways(page, 375);
    await shot(page, 'kpis-04-list-375px');
    await rowOf(page, fixture.pushed.name).getByRole('link').click();
    await page.locator('#detail:not([aria-busy]) #measurement-body tr').first().waitFor();
    await noSideways(page, 375);
    const chart = await page.locator('#chart canvas').boundingBox();
    expect(chart!.x).toBeGreaterThanOrEqual(0);
    expect(chart!.x + chart!.width).toBeLessThanOrEqual(375);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'kpis-05-detail-375px');
    expect(errors).toEqual([]);
  });

  it('the demo data: months of history, and a KPI that stopped reporting is quiet (README screenshots)', async () => {
    const acme = seed().tenants[0]!;
    const viewer = acme.users.find((user) => user.role === 'VIEWER')!;
    const { page, errors } = await openPage({ viewport: { width: 1100, height: 900 } });
    await signIn(page, viewer.email, viewer.password);
    const stopped = acme.kpis.find((kpi) => kpi.type === 'PRODUCT_SCORECARD_KPI')!;
    expect(await cell(page, stopped.name, 'Status').textContent()).toMatch(
      /^QuietNothing received for \d+ days; usually every (28|29|30|31) days\.$/,
    );
    const bsc = acme.kpis.find((kpi) => kpi.type === 'BSC_KPI')!;
    expect(await cell(page, bsc.name, 'Status').textContent()).toBe('Receiving');
    await shot(page, 'kpis-06-demo-list', 'kpis-page.png');
    await rowOf(page, bsc.name).getByRole('link').click();
    await page.locator('#detail:not([aria-busy]) #measurement-body tr').first().waitFor();
    // The seeded history came through the seed's key (other tests may have pushed the current month
    // with keys of their own).
    const seededKey = acme.apiKeys.find((key) => key.status === 'active')!.prefix;
    const prefixes = await page.locator('#measurement-body code').allTextContents();
    expect(prefixes.filter((prefix) => prefix === seededKey).length).toBeGreaterThanOrEqual(12);
    await page.locator('#chart').focus();
    await page.keyboard.press('End');
    await shot(page, 'kpis-07-demo-detail', 'kpi-detail.png');
    expect(errors).toEqual([]);
  });

  it('an unknown KPI in the URL says so; a tenant without KPIs gets an empty state', async () => {
    const { email, password } = await createStackTenant();
    const { page, errors } = await openPage({}, `${pageUrl()}?kpi=01a20000-0000-7000-8000-000000000000`);
    await page.keyboard.press('Tab');
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(password);
    await page.keyboard.press('Enter');
    await page.locator('#detail-error').waitFor();
    expect(await page.locator('#detail-error').textContent()).toMatch(
      /could not be loaded: KPI .* not found/,
    );
    await page.locator('#back').click();
    await page.locator('#list-empty').waitFor();
    expect(await page.locator('#list-empty').textContent()).toBe('Your organization has no KPIs yet.');
    // Chromium logs the 404 answer of the detail request as a console error; nothing else may appear.
    expect(errors.filter((error) => !/status of 404/.test(error))).toEqual([]);
  });
});

import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { BrowserContextOptions, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../lib/db/keys';
import { createKpi } from '../../lib/db/kpis';
import type { Kpi } from '../../lib/domain/kpi';
import { periodOfHistory } from '../../lib/domain/period';
import {
  activeId,
  BROWSER_TEST_TIMEOUT_MS,
  expectAccessible,
  failNext,
  platformUrl,
  shot,
  signIn as signInAs,
  useBrowser,
} from '../support/browser';
import { createStackTenant, loginAs, request, seed, stackDatabase } from '../support/http';

/**
 * The KPI page (/platform/kpis) in headless Chromium against the real local stack, with data
 * pushed through the push API first: the chart renders the pushed values, the table shows the key that
 * pushed them, a quiet KPI is marked, axe-core finds nothing, and it works by keyboard and at 375 px.
 * One screenshot per state goes to tests/e2e/screenshots/ (the docs' pictures: `npm run screenshots`).
 */

const pageUrl = () => platformUrl('kpis');

const browser = useBrowser();

type Pushed = { periodStart: string; periodEnd: string; actual: number; target?: number; forecast?: number };

/**
 * A tenant of its own in the stack with the given KPIs, each with the measurements pushed through the
 * push API with one key of the tenant.
 */
const tenantWith = async (
  kpis: {
    type: Kpi['type'];
    name: string;
    measurements: Pushed[];
    qualitative?: boolean;
    cadence?: Kpi['cadence'];
    /** Moves the KPI's creation this many days back: a KPI without data is quiet only after a while. */
    createdDaysAgo?: number;
  }[],
) => {
  const { tenant, email, password } = await createStackTenant();
  const db = stackDatabase();
  const created: Kpi[] = [];
  for (const { type, name, qualitative, cadence, createdDaysAgo } of kpis) {
    // Each KPI's period is the one its measurements stand for (a month when they say nothing).
    const period = periodOfHistory(kpis.find((k) => k.name === name)!.measurements);
    const kpi = await createKpi(db, tenant.id, {
      type,
      name,
      ...(period ? { period } : {}),
      ...(qualitative ? { qualitative } : {}),
      ...(cadence ? { cadence } : {}),
    });
    if (createdDaysAgo !== undefined) {
      kpi.createdAt = new Date(Date.now() - createdDaysAgo * 86_400_000).toISOString();
      await db.client.send(
        new UpdateCommand({
          TableName: db.tableName,
          Key: keys.kpi(kpi.id),
          UpdateExpression: 'SET createdAt = :at',
          ExpressionAttributeValues: { ':at': kpi.createdAt },
        }),
      );
    }
    created.push(kpi);
  }
  const { token } = await loginAs(email, password);
  const key = await request('POST', '/api-keys', {
    headers: { Authorization: `Bearer ${token}` },
    body: { name: 'Nightly revenue job' },
  });
  expect(key.status).toBe(201);
  const measurements = kpis.flatMap(({ measurements }, i) =>
    measurements.map((m) => ({ kpiId: created[i]!.id, kpiType: created[i]!.type, ...m })),
  );
  if (measurements.length > 0) {
    const result = await request('POST', '/integrations/push/measurements/batch', {
      headers: { 'x-api-key': key.body.key },
      body: { measurements },
    });
    expect(result.status, JSON.stringify(result.body)).toBe(200);
  }
  return {
    email,
    password,
    kpis: created,
    key: { id: key.body.id as string, name: key.body.name as string, prefix: key.body.prefix as string },
  };
};

/**
 * The shared tenant: one KPI with six pushed months (expected monthly: receiving), one without data
 * that is expected daily and was created three days ago (quiet), a key.
 */
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
  const { kpis, ...rest } = await tenantWith([
    { type: 'BSC_KPI', name: 'Net revenue', measurements: MONTHS, cadence: 'monthly' },
    {
      type: 'OKR_KEY_RESULT',
      name: 'Churn below 2 %',
      measurements: [],
      cadence: 'daily',
      createdDaysAgo: 3,
    },
  ]);
  fixture = { ...rest, pushed: kpis[0]!, silent: kpis[1]! };
});

/** A new page, at the KPI list unless `url` says otherwise. */
const openPage = (context: BrowserContextOptions = {}, url = pageUrl()) => browser.openPage(url, { context });

/** Signs in with the keyboard alone: Tab into the form, type, Enter; the list arrives. */
const signIn = async (page: Page, email: string, password: string) => {
  await signInAs(page, { email, password }, { keyboard: true });
  await page.getByRole('heading', { name: 'KPIs of your organization' }).waitFor();
  await page.locator('#list:not([aria-busy]) #kpi-body tr').first().waitFor();
};

const rowOf = (page: Page, name: string) => page.locator('#kpi-body tr', { hasText: name });
const cell = (page: Page, name: string, label: string) =>
  rowOf(page, name).locator(`[data-label="${label}"]`);

const noSideways = async (page: Page, width: number) =>
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);

/** The series' colors (web/kpis/chart.ts), as the canvas holds them. */
const RGB = {
  actual: { r: 0x0b, g: 0x5c, b: 0xad },
  target: { r: 0x1a, g: 0x7f, b: 0x37 },
  forecast: { r: 0x82, g: 0x50, b: 0xdf },
};
const SERIES = ['actual', 'target', 'forecast'] as const;

/** How many of the chart canvas's pixels are the projection band's fill (web/kpis/chart.ts, BAND_FILL). */
const bandPixels = (page: Page) =>
  page.evaluate(() => {
    const canvas = document.querySelector<HTMLCanvasElement>('#chart canvas');
    const data = canvas?.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data ?? [];
    let count = 0;
    for (let i = 0; i < data.length; i += 4)
      if (data[i] === 0xfb && data[i + 1] === 0xe3 && data[i + 2] === 0xc8) count++;
    return count;
  });

/**
 * The canvas pixel under the chart's cursor point of a series, after the keyboard moved the cursor:
 * uPlot places the point at the value it plotted, so that pixel is the series' color where uPlot drew
 * the value, and background where it drew nothing.
 */
const pixelAtCursor = (page: Page, series: (typeof SERIES)[number] = 'actual') =>
  page.evaluate((index) => {
    const canvas = document.querySelector<HTMLCanvasElement>('#chart canvas');
    const point = document.querySelectorAll<HTMLElement>('#chart .u-cursor-pt')[index];
    if (!canvas || !point) return null;
    const box = point.getBoundingClientRect();
    const area = canvas.getBoundingClientRect();
    const scale = canvas.width / area.width;
    const x = Math.round((box.left + box.width / 2 - area.left) * scale);
    const y = Math.round((box.top + box.height / 2 - area.top) * scale);
    const [r, g, b] = canvas.getContext('2d')?.getImageData(x, y, 1, 1).data ?? [];
    return { r, g, b };
  }, SERIES.indexOf(series));

/**
 * Records every text drawn on a canvas (uPlot draws its axis labels there), from the page's first
 * script on; `drawnTexts` reads them. Injected through the DevTools protocol, like axe-core.
 */
const recordCanvasTexts = (page: Page) =>
  page.addInitScript(() => {
    const texts: string[] = [];
    (window as unknown as { drawnTexts: string[] }).drawnTexts = texts;
    const fillText = CanvasRenderingContext2D.prototype.fillText;
    CanvasRenderingContext2D.prototype.fillText = function (text, ...rest) {
      texts.push(String(text));
      return fillText.call(this, text, ...rest);
    };
  });
const drawnTexts = (page: Page) =>
  page.evaluate(() => [...(window as unknown as { drawnTexts: string[] }).drawnTexts]);

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
    expect(html).toContain('<nav id="nav"');
  });
});

describe('the KPI page in Chromium', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('list: latest value, period, arrival, sparkline; the KPI without data is quiet since a time, in words; filter by type', async () => {
    const { page, errors } = await openPage();
    await signIn(page, fixture.email, fixture.password);
    expect(await activeId(page)).toBe('list-title');
    expect(await page.locator('#nav a[aria-current="page"]').textContent()).toBe('KPIs');

    const name = fixture.pushed.name;
    expect(await cell(page, name, 'Latest').textContent()).toBe('80target 55');
    expect(await cell(page, name, 'Period').textContent()).toBe('Jun 2025');
    expect(await cell(page, name, 'Received').locator('time').count()).toBe(1);
    expect(await cell(page, name, 'Trend').locator('svg polyline').count()).toBe(1);
    expect(await cell(page, name, 'Freshness').textContent()).toBe('ReceivingExpected monthly (1 h grace).');
    expect(await rowOf(page, name).getAttribute('data-quiet')).toBeNull();

    const quiet = fixture.silent.name;
    expect(await rowOf(page, quiet).getAttribute('data-quiet')).toBe('');
    // The badge says it in words, with the moment in a <time>: quiet since a day and an hour after
    // the KPI's creation, as nothing ever arrived.
    expect(await cell(page, quiet, 'Freshness').textContent()).toMatch(
      /^Quiet since [A-Z][a-z]{2} \d{1,2}, \d{4}No data yet\. Expected daily \(1 h grace\)\.$/,
    );
    const since = Date.parse(fixture.silent.createdAt) + 25 * 3_600_000;
    expect(await cell(page, quiet, 'Freshness').locator('.badge.quiet time').getAttribute('datetime')).toBe(
      new Date(since).toISOString(),
    );
    expect(await page.locator('#list-summary').textContent()).toBe('2 KPIs, 1 quiet.');
    await expectAccessible(page, 'list');
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
    // The KPI's own view says it too, from GET /kpis/{kpiId}.
    await rowOf(page, quiet).locator('a.kpi-name').click();
    await page.locator('#detail:not([aria-busy]) #detail-meta').waitFor();
    expect(await page.locator('#detail-meta .badge.quiet').textContent()).toMatch(/^Quiet since /);
    await expectAccessible(page, 'quiet KPI detail');
    expect(errors).toEqual([]);
  });

  it('detail by keyboard: the chart renders the pushed values, the table names the key and links to it', async () => {
    const { page, errors } = await openPage();
    await signIn(page, fixture.email, fixture.password);
    // Tab from the list heading: New KPI (an ADMIN's), the type filter, the order, the cycle and owner
    // filters, the archived switch, then the first KPI's link.
    for (const id of ['kpi-new', 'type-filter', 'sort', 'cycle-filter', 'owner-filter', 'archived-filter']) {
      await page.keyboard.press('Tab');
      expect(await activeId(page)).toBe(id);
    }
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(fixture.pushed.name);
    await page.keyboard.press('Enter');
    await page.locator('#detail:not([aria-busy]) #measurement-body tr').first().waitFor();
    expect(await activeId(page)).toBe('detail-title');
    expect(await page.locator('#detail-title').textContent()).toBe(fixture.pushed.name);
    expect(new URL(page.url()).searchParams.get('kpi')).toBe(fixture.pushed.id);

    // The chart, by keyboard: every pushed period's values are what uPlot plotted under its cursor,
    // and the canvas is painted in the series' color where the value lies. An ADMIN's Edit, Targets
    // and Archive (links to the strategy page) come first.
    for (const id of ['kpi-edit', 'kpi-targets', 'kpi-archive', 'chart']) {
      await page.keyboard.press('Tab');
      expect(await activeId(page)).toBe(id);
    }
    expect(await page.locator('#kpi-targets').getAttribute('href')).toBe(
      `strategy?kpi=${fixture.pushed.id}&do=targets`,
    );
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
      expect(await pixelAtCursor(page)).toEqual(RGB.actual);
    }
    await page.keyboard.press('Home');
    await expect.poll(() => readout.textContent()).toMatch(/^Jan 2025: actual 10,/);
    // Past the newest period, the projection: to the end of the year, the band drawn, the chance said.
    await page.keyboard.press('End');
    await expect
      .poll(() => readout.textContent())
      .toMatch(
        /^Dec 2025 \(projected\): median [\d.,]+, 80 % between [\d.,-]+ and [\d.,]+, target 55, chance (about \d+ in \d+|less than 1 in 20|more than 19 in 20)$/,
      );
    expect(await bandPixels(page)).toBeGreaterThan(100);
    expect(await page.locator('#projection-chance').textContent()).toMatch(
      /^(about \d+ in \d+|less than 1 in 20|more than 19 in 20)$/,
    );
    expect(await page.locator('#projection-summary').textContent()).toMatch(
      /^By Dec 2025 the value is most likely about/,
    );
    expect(await page.locator('#projection-backtest').textContent()).toMatch(
      /^Method: .+ Its error one period ahead was/,
    );

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
    await expectAccessible(page, 'detail');
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
    expect(await row.getAttribute('data-highlighted')).toBe('');
    expect(await row.locator('[data-label="Prefix"]').textContent()).toBe(fixture.key.prefix);
    expect(await page.locator('#nav a[aria-current="page"]').textContent()).toBe('API keys');
    await expectAccessible(page, 'key page at the linked key');
    await shot(page, 'kpis-03-linked-key');

    // And back to the KPIs through the navigation, still signed in.
    await page.locator('#nav a', { hasText: 'KPIs' }).click();
    await page.locator('#list:not([aria-busy]) #kpi-body tr').first().waitFor();
    expect(await page.locator('#sign-in').isHidden()).toBe(true);
    expect(errors).toEqual([]);
  });

  it('status against the target: in words in a coloured badge, off track first, ordered by name by keyboard', async () => {
    const june = { periodStart: '2025-06-01', periodEnd: '2025-06-30' };
    const tenant = await tenantWith([
      { type: 'BSC_KPI', name: 'Alpha revenue', measurements: [{ ...june, actual: 100, target: 90 }] },
      { type: 'BSC_KPI', name: 'Bravo margin', measurements: [{ ...june, actual: 50, target: 100 }] },
      { type: 'BSC_KPI', name: 'Charlie orders', measurements: [{ ...june, actual: 95, target: 100 }] },
      { type: 'THEME_KPI', name: 'Delta engagement', measurements: [{ ...june, actual: 5 }] },
      { type: 'OKR_KEY_RESULT', name: 'Echo adoption', measurements: [] },
      {
        type: 'SWOT_KPI',
        name: 'Foxtrot position',
        measurements: [{ ...june, actual: 3 }],
        qualitative: true,
      },
    ]);
    const { page, errors } = await openPage();
    await signIn(page, tenant.email, tenant.password);
    const names = () => page.locator('#kpi-body a.kpi-name').allTextContents();
    const statuses = () =>
      page
        .locator('#kpi-body [data-label="Target"]')
        .evaluateAll((cells) =>
          cells.map((cell) => (cell as HTMLElement).innerText.replace(/\s+/g, ' ').trim()),
        );
    // By status by default: off track, at risk, on track, no target, no data, then the qualitative KPI.
    expect(await names()).toEqual([
      'Bravo margin',
      'Charlie orders',
      'Alpha revenue',
      'Delta engagement',
      'Echo adoption',
      'Foxtrot position',
    ]);
    expect(await statuses()).toEqual([
      'Off track',
      'At risk',
      'On track',
      'No target',
      'No data',
      '— qualitative, no status',
    ]);
    // The qualitative KPI's dash is explained to a screen reader and on hover.
    const none = cell(page, 'Foxtrot position', 'Target').locator('.status-none');
    expect(await none.textContent()).toBe('—qualitative, no status');
    expect(await none.getAttribute('title')).toBe('A qualitative KPI has no target to track');
    expect(await page.locator('#list-summary').textContent()).toMatch(/, 1 off track\.$/);
    // The words carry the status; the colours differ as well.
    const colour = (name: string) =>
      cell(page, name, 'Target')
        .locator('.badge')
        .evaluate((badge) => getComputedStyle(badge).backgroundColor);
    const colours = new Set([
      await colour('Bravo margin'),
      await colour('Charlie orders'),
      await colour('Alpha revenue'),
    ]);
    expect(colours.size).toBe(3);
    await expectAccessible(page, 'list by status');
    await shot(page, 'kpis-11-status');

    // The order by keyboard: Tab to the select, an arrow key picks "Name"; the focus stays on it.
    await page.locator('#type-filter').focus();
    await page.keyboard.press('Tab');
    expect(await activeId(page)).toBe('sort');
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => new URL(page.url()).searchParams.get('sort')).toBe('name');
    expect(await page.locator('#sort').inputValue()).toBe('name');
    expect(await activeId(page)).toBe('sort');
    await expect
      .poll(names)
      .toEqual([
        'Alpha revenue',
        'Bravo margin',
        'Charlie orders',
        'Delta engagement',
        'Echo adoption',
        'Foxtrot position',
      ]);
    expect(await page.locator('#kpi-table th[aria-sort]').allTextContents()).toEqual(['KPI']);
    await page.locator('#status', { hasText: 'Sorted by name.' }).waitFor({ state: 'attached' });
    // The order survives a reload, and a KPI's page leads back to the list in that order.
    await page.reload();
    await page.locator('#list:not([aria-busy]) #kpi-body tr').first().waitFor();
    expect(await page.locator('#sort').inputValue()).toBe('name');
    expect((await names())[0]).toBe('Alpha revenue');
    await rowOf(page, 'Bravo margin').locator('a.kpi-name').click();
    await page.locator('#detail:not([aria-busy]) #measurement-body tr').first().waitFor();
    expect(await page.locator('#detail-meta .badge').textContent()).toBe('Off track');
    await expectAccessible(page, 'detail from the list by name');
    await page.locator('#back').click();
    await page.locator('#list:not([hidden]) #kpi-body tr').first().waitFor();
    expect(new URL(page.url()).searchParams.get('sort')).toBe('name');
    await page.locator('#sort').focus();
    await page.keyboard.press('ArrowUp');
    await expect.poll(() => new URL(page.url()).searchParams.has('sort')).toBe(false);
    await expect.poll(async () => (await names())[0]).toBe('Bravo margin');
    expect(errors).toEqual([]);
  });

  it('period labels are short and the same in the list and the detail; a week fits one line at 1280 px', async () => {
    const week = { periodStart: '2025-11-17', periodEnd: '2025-11-23', actual: 12 };
    const quarter = { periodStart: '2025-07-01', periodEnd: '2025-09-30', actual: 41 };
    const span = { periodStart: '2025-12-29', periodEnd: '2026-01-04', actual: 7 };
    const tenant = await tenantWith([
      { type: 'OKR_KEY_RESULT', name: 'Weekly deploys', measurements: [week] },
      { type: 'THEME_KPI', name: 'Quarterly engagement', measurements: [quarter] },
      { type: 'ASIS_KPI', name: 'Week over the new year', measurements: [span] },
    ]);
    const { page, errors } = await openPage({ viewport: { width: 1280, height: 900 } });
    await signIn(page, tenant.email, tenant.password);
    // Intl puts thin or narrow spaces around the dash; the words are what counts.
    const text = async (locator: ReturnType<Page['locator']>) =>
      ((await locator.textContent()) ?? '').replace(/\s+/g, ' ');
    const expected = {
      'Weekly deploys': 'Nov 17 – 23, 2025',
      'Quarterly engagement': 'Jul – Sep 2025',
      'Week over the new year': 'Dec 29, 2025 – Jan 4, 2026',
    };
    for (const [name, label] of Object.entries(expected)) {
      expect(await text(cell(page, name, 'Period')), name).toBe(label);
    }
    // The text of the week's cell is laid out on one line: its line boxes share one top.
    const lines = await cell(page, 'Weekly deploys', 'Period').evaluate((element) => {
      const range = document.createRange();
      range.selectNodeContents(element);
      return new Set(Array.from(range.getClientRects(), (rect) => Math.round(rect.top))).size;
    });
    expect(lines).toBe(1);
    await noSideways(page, 1280);
    for (const [name, label] of Object.entries(expected)) {
      await rowOf(page, name).locator('a.kpi-name').click();
      await page.locator('#detail:not([aria-busy]) #measurement-body tr').first().waitFor();
      expect(await text(page.locator('#measurement-body th[data-label="Period"]')), name).toBe(label);
      await page.goBack();
      await page.locator('#list:not([aria-busy]) #kpi-body tr').first().waitFor();
    }
    expect(errors).toEqual([]);
  });

  it('375 px: list and detail fit the screen, the chart included', async () => {
    const { page, errors } = await openPage({ viewport: { width: 375, height: 740 }, isMobile: true });
    await signIn(page, fixture.email, fixture.password);
    await noSideways(page, 375);
    await shot(page, 'kpis-04-list-375px');
    await rowOf(page, fixture.pushed.name).locator('a.kpi-name').click();
    await page.locator('#detail:not([aria-busy]) #measurement-body tr').first().waitFor();
    await noSideways(page, 375);
    const chart = await page.locator('#chart canvas').boundingBox();
    expect(chart!.x).toBeGreaterThanOrEqual(0);
    expect(chart!.x + chart!.width).toBeLessThanOrEqual(375);
    await expectAccessible(page, 'detail at 375 px');
    await shot(page, 'kpis-05-detail-375px');
    expect(errors).toEqual([]);
  });

  it('the demo data: months of history, and a KPI that stopped reporting is quiet', async () => {
    const acme = seed().tenants[0]!;
    const viewer = acme.users.find((user) => user.role === 'VIEWER')!;
    const { page, errors } = await openPage({ viewport: { width: 1100, height: 900 } });
    await signIn(page, viewer.email, viewer.password);
    const stopped = acme.kpis.find((kpi) => kpi.type === 'PRODUCT_SCORECARD_KPI')!;
    expect(await cell(page, stopped.name, 'Freshness').textContent()).toMatch(
      /^Quiet since [A-Z][a-z]{2} \d{1,2}, \d{4}Last data [A-Z][a-z]{2} \d{1,2}, \d{4}\. Expected monthly \(72 h grace\)\.$/,
    );
    const bsc = acme.kpis.find((kpi) => kpi.type === 'BSC_KPI')!;
    expect(await cell(page, bsc.name, 'Freshness').textContent()).toBe(
      'ReceivingExpected monthly (24 h grace).',
    );
    const swot = acme.kpis.find((kpi) => kpi.type === 'SWOT_KPI')!;
    expect(await cell(page, swot.name, 'Freshness').textContent()).toBe('');
    await shot(page, 'kpis-06-demo-list');
    await rowOf(page, bsc.name).locator('a.kpi-name').click();
    await page.locator('#detail:not([aria-busy]) #measurement-body tr').first().waitFor();
    // The detail opens on the newest 12 periods; the seeded history is longer, so the earlier ones load
    // on request. It came through the seed's key (other tests may have pushed the current month with
    // keys of their own).
    const opened = await page.locator('#measurement-body tr').count();
    await page.locator('#periods-more').click();
    await page.waitForFunction(
      (before) => document.querySelectorAll('#measurement-body tr').length > before,
      opened,
    );
    const seededKey = acme.apiKeys.find((key) => key.status === 'active')!.prefix;
    const prefixes = await page.locator('#measurement-body code').allTextContents();
    expect(prefixes.filter((prefix) => prefix === seededKey).length).toBeGreaterThanOrEqual(12);
    await page.locator('#chart').focus();
    await page.keyboard.press('End');
    await shot(page, 'kpis-07-demo-detail');
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
    // A 404 stays one: the state offers the way back, not Try again.
    await expect(page.locator('.load-failed button', { hasText: 'Try again' }).count()).resolves.toBe(0);
    await page.locator('#back').click();
    await page.locator('#list-empty').waitFor();
    expect(await page.locator('#list-empty').textContent()).toBe('Your organization has no KPIs yet.');
    // Chromium logs the 404 answer of the detail request as a console error; nothing else may appear.
    expect(errors.filter((error) => !/status of 404/.test(error))).toEqual([]);
  });

  it('shows that the list and a KPI are loading, and a failed load with its detail and a way to retry', async () => {
    const { page, errors } = await openPage();
    const list = await failNext(page, /\/api\/kpis\?.*include=activity/, 'The KPI store is resting.');
    await page.keyboard.press('Tab');
    await page.keyboard.type(fixture.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(fixture.password);
    await page.keyboard.press('Enter');
    await list.requested;
    await page.locator('#list-loading', { hasText: 'Loading KPIs…' }).waitFor();
    expect(await page.locator('#list').getAttribute('aria-busy')).toBe('true');
    await expectAccessible(page, 'list loading');
    list.fail();
    await page.locator('#list-error').waitFor();
    expect(await page.locator('#list-error').textContent()).toBe(
      'The KPIs could not be loaded: The KPI store is resting.',
    );
    expect(await page.locator('#list-loading').count()).toBe(0);
    await expectAccessible(page, 'list load failed');
    await shot(page, 'kpis-08-list-failed');
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.locator('#list:not([aria-busy]) #kpi-body tr').first().waitFor();
    expect(await page.locator('#list-error').count()).toBe(0);
    expect(await activeId(page)).toBe('list-title');

    const detail = await failNext(
      page,
      new RegExp(`/api/kpis/${fixture.pushed.id}\\?`),
      'Measurements are being moved.',
    );
    await rowOf(page, fixture.pushed.name).locator('a.kpi-name').click();
    await detail.requested;
    await page.locator('#detail-loading', { hasText: 'Loading the KPI…' }).waitFor();
    expect(await page.locator('#detail').getAttribute('aria-busy')).toBe('true');
    detail.fail();
    await page.locator('#detail-error').waitFor();
    expect(await page.locator('#detail-error').textContent()).toBe(
      'The KPI could not be loaded: Measurements are being moved.',
    );
    expect(await page.locator('#chart').count()).toBe(0);
    await expectAccessible(page, 'detail load failed');
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.locator('#detail:not([aria-busy]) #measurement-body tr').first().waitFor();
    expect(await page.locator('#detail-error').count()).toBe(0);
    expect(await page.locator('#detail-title').textContent()).toBe(fixture.pushed.name);
    expect(errors.filter((error) => !/status of 503/.test(error))).toEqual([]);
  });

  it('charts at 375 px: a lone value is drawn, and date ticks say which month or day, and the year', async () => {
    const isoDate = (date: Date) => date.toISOString().slice(0, 10);
    // 14 months of actuals, one forecast: too many periods for uPlot to draw every point at 375 px.
    const months: Pushed[] = Array.from({ length: 14 }, (_, i) => ({
      periodStart: isoDate(new Date(Date.UTC(2024, i, 1))),
      periodEnd: isoDate(new Date(Date.UTC(2024, i + 1, 0))),
      actual: 10 + (i % 3),
    }));
    months[13]!.forecast = 40;
    const days = (dates: string[]): Pushed[] =>
      dates.map((date, i) => ({ periodStart: date, periodEnd: date, actual: 5 + i }));
    const tenant = await tenantWith([
      { type: 'BSC_KPI', name: 'Lone forecast', measurements: months },
      {
        type: 'BSC_KPI',
        name: 'One period',
        measurements: [
          { periodStart: '2025-09-01', periodEnd: '2025-09-30', actual: 20, target: 30, forecast: 25 },
        ],
      },
      {
        type: 'OKR_KEY_RESULT',
        name: 'Daily in September',
        measurements: days(['2025-09-24', '2025-09-25', '2025-09-26']),
      },
      {
        type: 'OKR_KEY_RESULT',
        name: 'Daily over the new year',
        measurements: days(['2025-12-30', '2025-12-31', '2026-01-01', '2026-01-02']),
      },
    ]);
    const [lone, single, september, newYear] = tenant.kpis;
    const { page, errors } = await openPage({ viewport: { width: 375, height: 740 }, isMobile: true });
    await recordCanvasTexts(page);
    await page.reload();
    await signIn(page, tenant.email, tenant.password);

    /** Opens a KPI (the session survives the navigation) and moves the chart's cursor to its last measured period. */
    const showChart = async (kpi: Kpi) => {
      await page.goto(`${pageUrl()}?kpi=${kpi.id}`);
      await page.locator('#detail:not([aria-busy]) #measurement-body tr').first().waitFor();
      await page.locator('#chart').focus();
      await page.keyboard.press('End');
      await expect.poll(() => page.locator('#chart-readout').textContent()).not.toBe('');
      // Back from the projected periods to the newest measured one, a period at a time.
      const readout = page.locator('#chart-readout');
      for (let i = 0; i < 24; i++) {
        const shown = await readout.textContent();
        if (!shown?.includes('(projected)')) break;
        await page.keyboard.press('ArrowLeft');
        await expect.poll(() => readout.textContent()).not.toBe(shown);
      }
    };
    /** The labels of the date axis: what uPlot drew that is not a value of the y axis. */
    const dateTicks = async () => [
      ...new Set((await drawnTexts(page)).filter((text) => !/^[-−]?[\d.,]+[KMBT]?$/.test(text))),
    ];

    await showChart(lone!);
    expect(await pixelAtCursor(page, 'forecast')).toEqual(RGB.forecast);
    expect(await pixelAtCursor(page, 'actual')).toEqual(RGB.actual);
    await shot(page, 'kpis-09-lone-forecast-375px');
    const monthTicks = await dateTicks();
    expect(monthTicks).toContain('Feb 2025');
    for (const tick of monthTicks) expect(tick).toMatch(/^[A-Z][a-z]{2} \d{4}$/);

    await showChart(single!);
    for (const series of SERIES) expect(await pixelAtCursor(page, series), series).toEqual(RGB[series]);
    expect(await dateTicks()).toEqual(['Sep 2025']);
    await shot(page, 'kpis-10-one-period-375px');

    await showChart(september!);
    const dayTicks = await dateTicks();
    expect(dayTicks).toContain('26 Sep');
    for (const tick of dayTicks) expect(tick).toMatch(/^\d{1,2} Sep$/);

    await showChart(newYear!);
    const yearTicks = await dateTicks();
    expect(yearTicks).toContain('2 Jan 2026');
    for (const tick of yearTicks) expect(tick).toMatch(/^\d{1,2} (Dec 2025|Jan 2026)$/);
    expect(errors).toEqual([]);
  });
});

describe('the KPI page for those who manage KPIs', { timeout: BROWSER_TEST_TIMEOUT_MS }, () => {
  it('opens a long history on its last 12 periods in a bounded number of requests, earlier ones on request; rows archive and restore in place', async () => {
    const isoDate = (date: Date) => date.toISOString().slice(0, 10);
    const months: Pushed[] = Array.from({ length: 48 }, (_, i) => ({
      periodStart: isoDate(new Date(Date.UTC(2021, i, 1))),
      periodEnd: isoDate(new Date(Date.UTC(2021, i + 1, 0))),
      actual: i,
    }));
    const tenant = await tenantWith([
      { type: 'BSC_KPI', name: 'Long history', measurements: months },
      { type: 'BSC_KPI', name: 'Short history', measurements: [] },
    ]);
    const [long, short] = tenant.kpis;
    const { page, errors } = await openPage();
    await signIn(page, tenant.email, tenant.password);
    const lead = await page.locator('main .lead').textContent();

    const requested: string[] = [];
    page.on('request', (req) => {
      if (req.url().includes('/api/')) requested.push(req.url());
    });
    await rowOf(page, 'Long history').getByRole('link', { name: 'Long history', exact: true }).click();
    await page.locator('#detail:not([aria-busy]) #measurement-body tr').first().waitFor();
    const rows = page.locator('#measurement-body tr');
    expect(await rows.count()).toBe(12);
    expect(await rows.first().locator('[data-label="Period"]').textContent()).toBe('Dec 2024');
    const detailRequests = requested.filter((url) => url.includes(`/kpis/${long!.id}`));
    expect(detailRequests.map((url) => new URL(url).search)).toEqual(
      expect.arrayContaining(['?order=newest&limit=12']),
    );
    // The detail, its projection and the key names: never a request per page of history.
    expect(requested.length).toBeLessThanOrEqual(4);
    expect(await page.locator('#detail-meta').textContent()).toMatch(/last 12 periods/);
    // The detail has its own lead, and no count of measurements in the status line.
    expect(await page.locator('main .lead').textContent()).not.toBe(lead);
    expect(await page.locator('#status').textContent()).not.toMatch(/measurement/);

    await page.locator('#periods-more').click();
    await expect.poll(() => rows.count()).toBe(24);
    await page.locator('#periods-more').click();
    await expect.poll(() => rows.count()).toBe(48);
    expect(await page.locator('#periods-more').count()).toBe(0);
    expect(await rows.last().locator('[data-label="Period"]').textContent()).toBe('Jan 2021');
    expect(requested.length).toBeLessThanOrEqual(6);
    await expectAccessible(page, 'detail with earlier periods');

    // Back in the list: Edit and Targets lead to the strategy page's forms; Archive and Restore act here.
    await page.locator('#back').click();
    await page.locator('#list:not([aria-busy]) #kpi-body tr').first().waitFor();
    const row = rowOf(page, 'Short history');
    expect(await row.getByRole('link', { name: 'Edit Short history' }).getAttribute('href')).toBe(
      `strategy?kpi=${short!.id}&do=edit`,
    );
    expect(await row.getByRole('link', { name: 'Targets Short history' }).getAttribute('href')).toBe(
      `strategy?kpi=${short!.id}&do=targets`,
    );
    expect(await page.locator('#kpi-new').getAttribute('href')).toBe('strategy?do=new');
    await expectAccessible(page, 'list with row actions');
    await row.getByRole('button', { name: 'Archive Short history' }).click();
    await expect.poll(() => row.count()).toBe(0);
    await page.locator('#archived-filter').check();
    await row.getByRole('button', { name: 'Restore Short history' }).click();
    await expect.poll(() => row.count()).toBe(0);
    await page.locator('#archived-filter').uncheck();
    await row.waitFor();
    expect(errors).toEqual([]);
  });
});

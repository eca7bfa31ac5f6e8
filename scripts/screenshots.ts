/**
 * `npm run screenshots`: the docs' pictures of the pages, from the current code. Starts the local
 * stack exactly as the end-to-end tests do (their global setup: scripts/start.ts on free ports, with
 * a database in memory and its own seed file), signs in as the demo admin in headless Chromium at
 * desktop width, and writes docs/api-keys-page.png (a key's Usage panel open), docs/kpis-page.png,
 * docs/kpi-detail.png, docs/strategy-page.png and docs/people-page.png, then docs/screenshots.json, the hash of what they show
 * (./screenshot-sources.ts). Everything it started is stopped by process group at the end, and on
 * Ctrl-C.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { setup as startStack } from '../tests/support/local-stack-global-setup';
import { launchBrowser } from './local/browser';
import { SCREENSHOT_RECORD, screenshotSources, screenshotSourcesHash } from './screenshot-sources';
import type { SeedFile } from './seed';

const docs = resolve(__dirname, '..', 'docs');
const VIEWPORT = { width: 1280, height: 800 };

const shoot = async (page: Page, file: string) => {
  await page.screenshot({ path: resolve(docs, file), fullPage: true });
  console.log(`docs/${file}`);
};

const main = async () => {
  // The global setup hands the stack's URL and seed file to the tests through `provide`.
  const provided = new Map<string, string>();
  const project = { provide: (key: string, value: string) => provided.set(key, value) };
  console.log('Starting the local stack ...');
  const stopStack = await startStack(project as unknown as TestProject);
  let stopping: Promise<void> | null = null;
  const stop = () => {
    stopping ??= stopStack();
    return stopping;
  };
  process.once('SIGINT', () => void stop().then(() => process.exit(130)));
  process.once('SIGTERM', () => void stop().then(() => process.exit(143)));
  try {
    const seed = JSON.parse(readFileSync(provided.get('seedFile') ?? '', 'utf8')) as SeedFile;
    const acme = seed.tenants[0];
    const admin = acme?.users.find((user) => user.role === 'ADMIN');
    const bsc = acme?.kpis.find((kpi) => kpi.type === 'BSC_KPI');
    if (!admin || !bsc) throw new Error('The seed has no demo admin or BSC KPI');
    const platform = (provided.get('baseUrl') ?? '').replace(/\/api$/, '/platform');

    const browser = await launchBrowser();
    try {
      const context = await browser.newContext({ viewport: VIEWPORT, locale: 'en-US' });
      const page = await context.newPage();
      page.setDefaultTimeout(60_000);
      await page.goto(`${platform}/api-keys`);
      await page.locator('#email').fill(admin.email);
      await page.locator('#password').fill(admin.password);
      await page.locator('#password').press('Enter');
      await page.locator('#keys:not([aria-busy]) #keys-body tr').first().waitFor();
      // The scoped cron's Usage panel open: its refusals by reason under its row.
      await page.getByRole('button', { name: 'Usage of Revenue cron' }).click();
      await page.locator('.usage-panel:not([aria-busy]) .refusals').waitFor();
      await shoot(page, 'api-keys-page.png');

      // The session is this tab's: the KPI page opens signed in.
      await page.goto(`${platform}/kpis`);
      await page.locator('#list:not([aria-busy]) #kpi-body tr').first().waitFor();
      await shoot(page, 'kpis-page.png');

      await page.locator('#kpi-body a', { hasText: bsc.name }).click();
      await page.locator('#detail:not([aria-busy]) #measurement-body tr').first().waitFor();
      // The newest period under the chart's cursor, its values read out in the caption.
      await page.locator('#chart').focus();
      await page.keyboard.press('End');
      await page.locator('#chart-readout', { hasText: ':' }).waitFor();
      await shoot(page, 'kpi-detail.png');

      // The strategy page: the demo's cycle with its KPIs and their status counts.
      await page.goto(`${platform}/strategy`);
      await page.locator('#cycles:not([aria-busy]) article.cycle').first().waitFor();
      await shoot(page, 'strategy-page.png');

      // The people page: the demo tenant's users with their roles, status and who invited them.
      await page.goto(`${platform}/people`);
      await page.locator('#people-table tbody tr').first().waitFor();
      await shoot(page, 'people-page.png');
    } finally {
      await browser.close();
    }
    const record = { sources: screenshotSources(), sha256: screenshotSourcesHash() };
    writeFileSync(SCREENSHOT_RECORD, `${JSON.stringify(record, null, 2)}\n`);
    console.log('docs/screenshots.json');
  } finally {
    await stop();
  }
};

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});

/**
 * `npm run bench:docs [-- URL]`: how fast /api/docs shows the reference after the first visit, in
 * headless Chromium against a running stack (default http://localhost:3000/api/docs, `npm start`).
 * Visits the page six times in one browser, leaving it in between; for each visit prints when the
 * first operation appeared (from the navigation's start, measured in the page) and how many bytes
 * came over the network. Exits 1 when a visit after the first fetched anything or the median of those
 * visits is a second or more: the page, its assets and the document must come from the browser's
 * cache, and Swagger UI must render within the second.
 */
import type { Page } from 'playwright-core';
import { launchBrowser } from '../scripts/local/browser';

const url = process.argv[2] ?? 'http://localhost:3000/api/docs';
const VISITS = 6;

declare global {
  interface Window {
    firstOperationAt?: number;
  }
}

const visit = async (page: Page) => {
  await page.goto(url);
  await page.locator('.opblock').first().waitFor({ timeout: 120_000 });
  return page.evaluate(() => ({
    shownMs: Math.round(window.firstOperationAt ?? Number.NaN),
    bytes: [
      ...performance.getEntriesByType('navigation'),
      ...performance.getEntriesByType('resource'),
    ].reduce((sum, entry) => sum + (entry as PerformanceResourceTiming).transferSize, 0),
  }));
};

const main = async () => {
  const browser = await launchBrowser();
  try {
    const context = await browser.newContext();
    await context.addInitScript(() => {
      new MutationObserver((_, observer) => {
        if (document.querySelector('.opblock')) {
          window.firstOperationAt = performance.now();
          observer.disconnect();
        }
      }).observe(document, { subtree: true, childList: true });
    });
    const page = await context.newPage();
    const results = [];
    for (let i = 1; i <= VISITS; i++) {
      const result = await visit(page);
      results.push(result);
      console.log(`visit ${i}: first operation after ${result.shownMs} ms, ${result.bytes} bytes fetched`);
      await page.goto('about:blank');
    }
    const later = results.slice(1);
    const median =
      later.map((r) => r.shownMs).sort((a, b) => a - b)[Math.floor(later.length / 2)] ?? Number.NaN;
    const fetched = later.filter((r) => r.bytes > 0).length;
    console.log(
      `after the first visit: median ${median} ms; ${fetched} of ${later.length} visits fetched anything`,
    );
    if (fetched > 0 || !(median < 1000)) process.exitCode = 1;
  } finally {
    await browser.close();
  }
};

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});

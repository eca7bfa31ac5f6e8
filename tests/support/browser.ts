/**
 * The browser tests' shared part: headless Chromium against the running local stack, the pages it
 * opens, signing in on them, axe-core's accessibility check, a held API answer, and screenshots. The
 * page tests (tests/e2e/*-page.test.ts, integrations, device-cookie, api-docs) use these instead of
 * copies of their own, so every browser test waits by the same rule.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { launchBrowser as launch } from '../../scripts/local/browser';
import { baseUrl } from './http';

/**
 * How long a browser test waits for anything on a page: Playwright's default timeout for every page
 * opened here, and the limit of polls on a page. Generous: a sign-in costs one scrypt and the first
 * request of a serverless-offline worker a cold start, which on the shared 2-core machine took more
 * than 10 s, and tests must not flake. A wait that succeeds lasts only as long as the page takes, so
 * the limit costs time only when a test fails. Nothing asserts time.
 */
export const BROWSER_TIMEOUT_MS = 60_000;

/**
 * How long one browser test may take: it signs in and waits for the stack several times, each wait up
 * to BROWSER_TIMEOUT_MS, and on a loaded machine a test takes minutes, not the 2 of vitest's default.
 */
export const BROWSER_TEST_TIMEOUT_MS = 300_000;

/** Where the browser tests save one screenshot per state, for review (git-ignored). */
export const SCREENSHOT_DIR = resolve(__dirname, '..', 'e2e', 'screenshots');

/** The local Chromium, with the screenshot folder ready. */
export const launchBrowser = async (): Promise<Browser> => {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return launch();
};

export const screenshotPath = (name: string) => resolve(SCREENSHOT_DIR, `${name}.png`);

/** One screenshot of the whole page, for review: tests/e2e/screenshots/<name>.png. */
export const shot = async (page: Page, name: string) => {
  await page.screenshot({ path: screenshotPath(name), fullPage: true });
};

/** A page under /platform/ of the running stack: `api-keys`, `kpis`, `integrations`. */
export const platformUrl = (page: string) => baseUrl().replace(/\/api$/, `/platform/${page}`);

export interface OpenedPage {
  page: Page;
  /** Uncaught errors, console errors and CSP violations seen by the page. */
  errors: string[];
}

export interface PageOptions {
  context?: BrowserContextOptions;
  /**
   * API answers the test expects the page to handle, by status: Chromium logs every answer of 400 or
   * more as a console error ("… the server responded with a status of 401"), which is then not one.
   */
  handles?: number[];
}

/**
 * The file's browser, launched before its tests and closed after them with every page they opened.
 * Each page gets a context of its own (its own cookies and sessionStorage), a desktop viewport and an
 * English locale (the tests read the page's words, numbers and dates), unless `context` says otherwise.
 */
export const useBrowser = () => {
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    for (const context of contexts) await context.close();
    await browser?.close();
  });

  /** A new page, not yet navigated: for a test that listens to it from its first request. */
  const newPage = async ({ context: options = {}, handles = [] }: PageOptions = {}): Promise<OpenedPage> => {
    if (!browser) throw new Error('useBrowser(): the browser starts in beforeAll');
    const context = await browser.newContext({
      viewport: { width: 1100, height: 800 },
      locale: 'en-US',
      ...options,
    });
    contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(BROWSER_TIMEOUT_MS);
    const errors: string[] = [];
    const handled = handles.length > 0 ? new RegExp(`status of (${handles.join('|')})\\b`) : null;
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && !handled?.test(message.text())) errors.push(message.text());
    });
    return { page, errors };
  };

  /** A new page at `url`. */
  const openPage = async (url: string, options: PageOptions = {}): Promise<OpenedPage> => {
    const opened = await newPage(options);
    await opened.page.goto(url);
    return opened;
  };

  return { newPage, openPage };
};

export interface User {
  email: string;
  password: string;
}

/** The id of the focused element ('' if none has one). */
export const activeId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');

/**
 * Signs in on the form a page shows, and waits until the page shows who is signed in. `keyboard`:
 * with the keyboard alone, from a page just opened (Tab into the form, type, Enter), which checks that
 * the form comes first in the tab order; else by filling the fields, as after a sign-out.
 */
export const signIn = async (page: Page, { email, password }: User, { keyboard = false } = {}) => {
  if (keyboard) {
    await page.keyboard.press('Tab');
    expect(await activeId(page)).toBe('email');
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(password);
    await page.keyboard.press('Enter');
  } else {
    await page.locator('#email').fill(email);
    await page.locator('#password').fill(password);
    await page.locator('#password').press('Enter');
  }
  await page.locator('#who').waitFor();
};

/** After a reload or a visit to another page the tab's session is restored; the form shows only when it was not. */
export const signInIfAsked = async (page: Page, user: User) => {
  await page.locator('#who, #email').first().waitFor();
  if ((await page.locator('#who').count()) === 0) await signIn(page, user);
};

/** axe-core from npm, evaluated in the page (DevTools evaluation is not subject to the page's CSP). */
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core finds no violation (WCAG 2.x A and AA, best practices) in the page's current state. */
export const expectAccessible = async (page: Page, state: string) => {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(`${AXE_SOURCE}\n;true`);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (context: Document, options: object) => Promise<any> } })
      .axe;
    const result = await axe.run(document, { resultTypes: ['violations'] });
    return result.violations.map((v: any) => ({
      id: v.id,
      help: v.help,
      nodes: v.nodes.map((n: any) => n.target.join(' ')),
    }));
  });
  expect(violations, state).toEqual([]);
};

/**
 * Holds the next request whose URL matches until the test answers it with `fail()` (a 503 problem);
 * later requests go through. `requested` resolves when the page sent it: the page is loading then.
 */
export const failNext = async (page: Page, url: RegExp, detail: string) => {
  let arrived = () => {};
  let answer = () => {};
  const requested = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const answered = new Promise<void>((resolve) => {
    answer = resolve;
  });
  await page.route(
    url,
    async (route) => {
      arrived();
      await answered;
      await route.fulfill({
        status: 503,
        contentType: 'application/problem+json',
        body: JSON.stringify({ type: 'about:blank', title: 'Service Unavailable', status: 503, detail }),
      });
    },
    { times: 1 },
  );
  return { requested, fail: answer };
};

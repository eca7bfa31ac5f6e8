import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { type Browser, chromium } from 'playwright-core';

/** Debian's `chromium` package (`apt-get install chromium`; .ci/run installs it when missing). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * How long a browser test waits for the page (Playwright's default timeout for its pages). Generous: a
 * sign-in costs one scrypt and the first request of a serverless-offline worker a cold start, which on
 * the shared 2-core machine took more than 10 s (issue 9: tests that do not flake). Nothing asserts time.
 */
export const BROWSER_TIMEOUT_MS = 60_000;

/** Where the browser tests save one screenshot per state, for review (git-ignored). */
export const SCREENSHOT_DIR = resolve(__dirname, '..', 'e2e', 'screenshots');

/** Headless Chromium driven by playwright-core: no browser download, no network beyond the local stack. */
export const launchBrowser = async (): Promise<Browser> => {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`${CHROMIUM_PATH} is missing: install Debian's chromium (apt-get install -y chromium)`);
  }
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
    ],
  });
};

export const screenshotPath = (name: string) => resolve(SCREENSHOT_DIR, `${name}.png`);

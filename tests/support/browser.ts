import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Browser } from 'playwright-core';
import { launchBrowser as launch } from '../../lib/local/browser';

/**
 * How long a browser test waits for the page (Playwright's default timeout for its pages). Generous: a
 * sign-in costs one scrypt and the first request of a serverless-offline worker a cold start, which on
 * the shared 2-core machine took more than 10 s, and tests must not flake. Nothing asserts time.
 */
export const BROWSER_TIMEOUT_MS = 60_000;

/** Where the browser tests save one screenshot per state, for review (git-ignored). */
export const SCREENSHOT_DIR = resolve(__dirname, '..', 'e2e', 'screenshots');

/** The local Chromium, with the screenshot folder ready. */
export const launchBrowser = async (): Promise<Browser> => {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  return launch();
};

export const screenshotPath = (name: string) => resolve(SCREENSHOT_DIR, `${name}.png`);

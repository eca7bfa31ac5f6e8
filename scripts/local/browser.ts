import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Debian's `chromium` package (`apt-get install chromium`; .ci/run installs it when missing). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Headless Chromium driven by playwright-core, for the browser tests, the screenshots and the
 * reference page's benchmark: no browser download, no network beyond the local stack.
 */
export const launchBrowser = async (): Promise<Browser> => {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`${CHROMIUM_PATH} is missing: install Debian's chromium (apt-get install -y chromium)`);
  }
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

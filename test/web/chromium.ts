/**
 * Headless Chromium for the browser tests (test/web, test/apps, test/docs): Debian's `chromium`,
 * which scripts/ci-toolchains.sh installs, or the binary named by `CHROMIUM_PATH`.
 */
import { existsSync } from 'node:fs';
import puppeteer, { type Browser } from 'puppeteer-core';

/** The Chromium binary the browser tests drive. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Throws, saying how to get one, when there is no Chromium: call it before any costly set-up. */
export function requireChromium(): void {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} not found: install Debian's chromium (scripts/ci-toolchains.sh) or set CHROMIUM_PATH`);
}

/** Starts headless Chromium; `timeoutMs` bounds its start (a loaded 2-core runner takes most of a minute). */
export function launchChromium(timeoutMs: number): Promise<Browser> {
  requireChromium();
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    timeout: timeoutMs,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
}

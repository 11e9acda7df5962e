import { existsSync } from 'node:fs';
import path from 'node:path';

export const E2E_PORT = Number(process.env.E2E_PORT ?? 3107);
export const E2E_BASE_URL = `http://127.0.0.1:${E2E_PORT}`;
export const E2E_DATA_DIR = path.resolve(path.dirname(new URL(import.meta.url).pathname), `.data-${E2E_PORT}`);
/** The shared e2e server's SQLite database. */
export const E2E_DB_FILE = path.join(E2E_DATA_DIR, 'parley.sqlite');

/** The full Chromium (CHROME_PATH, else Debian's): for what only it does (offering to install the app). */
export const CHROMIUM_FULL = process.env.CHROME_PATH ?? '/usr/bin/chromium';

/**
 * The browser the tests drive: Chromium's headless shell (Debian's chromium-headless-shell,
 * what Playwright itself runs headless), which renders the same pages for about half the CPU
 * of the full browser on this 2-core machine; the full one where the shell is missing, or
 * CHROME_HEADLESS_PATH.
 */
export const CHROMIUM_HEADLESS =
  process.env.CHROME_HEADLESS_PATH ??
  (existsSync('/usr/bin/chromium-headless-shell') && !process.env.CHROME_PATH
    ? '/usr/bin/chromium-headless-shell'
    : CHROMIUM_FULL);

/** `SCREENSHOTS=1` (npm run screenshots): the tests also save their pictures under e2e/screenshots. */
export const SHOOTING = process.env.SCREENSHOTS === '1';

/**
 * No screen breaks the Content-Security-Policy: every route of the app (signed out,
 * signed in, and /admin as the administrator) is loaded and must raise no
 * `securitypolicyviolation` event and log no CSP message. (zod's JIT probes
 * `new Function('')`; the web app turns it off with `z.config({ jitless: true })`,
 * or every page load reports an `eval` violation even though the probe's throw is caught.)
 */
import type { BrowserContext, Page } from '@playwright/test';
import { expect, test } from './admin-helpers.ts';
import { bubble, openChat, send } from './chat-helpers.ts';

/** Every route a signed-out visitor can open (the last one is the 404 screen). */
const SIGNED_OUT = [
  '/',
  '/welcome',
  '/signin',
  '/signup',
  '/forgot-password',
  '/reset-password',
  '/verify-email',
  '/terms',
  '/privacy',
  '/about',
  '/blocked',
  '/no-such-page',
];

/** Every signed-in route; ':peer' is replaced by the id of someone the user chats with. */
const SIGNED_IN = [
  '/home',
  '/chat/:peer',
  '/contacts',
  '/notifications',
  '/settings',
  '/account',
  '/profile',
  '/privacy-settings',
  '/archive',
  '/locked',
];

declare global {
  interface Window {
    __cspViolations?: string[];
  }
}

/** Records every CSP violation of each document of the context in `window.__cspViolations`. */
async function watchContext(context: BrowserContext): Promise<void> {
  await context.addInitScript(() => {
    window.__cspViolations = [];
    window.addEventListener(
      'securitypolicyviolation',
      (e) => {
        window.__cspViolations?.push(
          `${e.effectiveDirective} blocked ${e.blockedURI || '(inline)'} at ${e.sourceFile}:${e.lineNumber}`,
        );
      },
      true,
    );
  });
}

/** The CSP messages a page logs to its console. */
function watchConsole(page: Page): string[] {
  const messages: string[] = [];
  page.on('console', (msg) => {
    if (/Content[- ]Security[- ]Policy/i.test(msg.text())) messages.push(`${msg.type()}: ${msg.text()}`);
  });
  return messages;
}

/**
 * Opens each route in turn and returns what broke the policy on each (`route: problem`).
 * A route is given until the network is quiet (its chunks, its API calls and the
 * socket's first frames are in and parsed) before its document's events are read.
 */
async function visitAll(
  page: Page,
  routes: readonly string[],
  settle?: (route: string) => Promise<void>,
): Promise<string[]> {
  const problems: string[] = [];
  const logged = watchConsole(page);
  for (const route of routes) {
    logged.length = 0;
    await page.goto(route);
    await page.waitForLoadState('networkidle');
    await expect(page.locator('#root')).not.toBeEmpty();
    if (settle) {
      await settle(route);
      await page.waitForLoadState('networkidle');
    }
    // One more turn for events queued by the last scripts.
    await page.evaluate(() => new Promise((r) => setTimeout(r, 100)));
    const events = await page.evaluate(() => window.__cspViolations ?? null);
    expect(events, `the violation listener is installed on ${route}`).not.toBeNull();
    for (const e of events ?? []) problems.push(`${route} (${new URL(page.url()).pathname}): ${e}`);
    for (const m of logged) problems.push(`${route} (${new URL(page.url()).pathname}): console ${m}`);
  }
  return problems;
}

test.describe('Content-Security-Policy', () => {
  test('no signed-out screen reports a violation', async ({ browser, server }) => {
    const context = await browser.newContext({ baseURL: server.baseURL, viewport: { width: 1280, height: 800 } });
    try {
      await watchContext(context);
      const page = await context.newPage();
      expect(await visitAll(page, SIGNED_OUT)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('no signed-in screen reports a violation', async ({ world }) => {
    const [me, peer] = await Promise.all([world.person('csp'), world.person('peer')]);
    await watchContext(me.context);
    // A conversation with a message in it, so /chat parses messages too.
    await openChat(peer.page, me);
    await send(peer.page, 'Hello from the CSP test');
    await openChat(me.page, peer);
    await expect(bubble(me.page, 'Hello from the CSP test')).toBeVisible();
    const routes = SIGNED_IN.map((r) => r.replace(':peer', peer.id));
    expect(await visitAll(me.page, routes)).toEqual([]);
  });

  test('/admin and its tabs, as the administrator, report no violation', async ({ adminPerson }) => {
    const page = adminPerson.page;
    await watchContext(adminPerson.context);
    const problems = await visitAll(page, ['/admin'], async () => {
      await expect(page.getByRole('heading', { level: 1, name: 'Admin Dashboard' })).toBeVisible();
      // Each tab renders its own screen.
      for (const name of ['Notifications', 'Settings', 'Activity', 'Users']) {
        const tab = page.getByRole('tab', { name, exact: true });
        await tab.click();
        await expect(tab).toHaveAttribute('aria-selected', 'true');
      }
    });
    expect(problems).toEqual([]);
  });
});

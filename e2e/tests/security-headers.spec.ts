/**
 * What the browser receives: security headers on the app's documents, caching of the
 * built files, and a session cookie that page scripts cannot read.
 */
import type { APIResponse, Response } from '@playwright/test';
import { createUserViaApi, expect, makeUser, test } from './fixtures.ts';

function directives(csp: string): Map<string, string> {
  return new Map(
    csp
      .split(';')
      .map((d) => d.trim())
      .filter(Boolean)
      .map((d) => {
        const [name = '', ...values] = d.split(/\s+/);
        return [name, values.join(' ')] as const;
      }),
  );
}

function expectSecurityHeaders(res: Response | APIResponse | null) {
  expect(res, 'document response').not.toBeNull();
  const headers = (res as Response | APIResponse).headers();
  const csp = directives(headers['content-security-policy'] ?? '');
  expect(csp.get('script-src')).toBe("'self'");
  expect(csp.get('frame-ancestors')).toBe("'none'");
  expect(csp.get('object-src')).toBe("'none'");
  expect(csp.get('default-src')).toBe("'self'");
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('no-referrer');
}

test.describe('security headers', () => {
  for (const path of ['/', '/signin', '/a/b/c']) {
    test(`the document of ${path} carries the CSP and framing headers`, async ({ page }) => {
      const res = await page.goto(path);
      expect(res?.status()).toBe(200);
      expectSecurityHeaders(res);
    });
  }

  test('API answers carry them too', async ({ request }) => {
    const res = await request.get('/api/settings');
    expectSecurityHeaders(res);
  });
});

test.describe('caching', () => {
  test('index.html is no-cache and hashed assets are immutable', async ({ page, request }) => {
    const doc = await page.goto('/');
    expect(doc?.headers()['cache-control']).toBe('no-cache');
    const direct = await request.get('/index.html');
    expect(direct.headers()['cache-control']).toBe('no-cache');

    const assets = await page
      .locator('script[src], link[rel="stylesheet"][href], link[rel="modulepreload"][href]')
      .evaluateAll((els) => els.map((el) => el.getAttribute('src') ?? el.getAttribute('href') ?? ''));
    const hashed = assets.filter((a) => /^\/assets\/.+-[A-Za-z0-9_-]{8,}\.(js|css)$/.test(a));
    expect(hashed.length, `hashed assets in ${assets.join(', ')}`).toBeGreaterThan(0);
    for (const asset of hashed) {
      const res = await request.get(asset);
      expect(res.status(), asset).toBe(200);
      expect(res.headers()['cache-control'], asset).toContain('immutable');
      expect(res.headers()['cache-control'], asset).toContain('max-age=31536000');
    }
  });

  test('a missing asset is a 404, not the app under a script URL (and not cached as immutable)', async ({
    request,
  }) => {
    const res = await request.get('/assets/gone-AbCdEf12.js');
    expect(res.status()).toBe(404);
    expect(res.headers()['content-type']).not.toContain('text/html');
    expect(res.headers()['cache-control'] ?? '').not.toContain('immutable');
  });

  test('a lazily loaded screen chunk is immutable too', async ({ page }) => {
    const chunk = page.waitForResponse((r) => /\/assets\/terms-[^/]+\.js$/.test(new URL(r.url()).pathname));
    await page.goto('/terms');
    const res = await chunk;
    expect(res.status()).toBe(200);
    expect(res.headers()['cache-control']).toContain('immutable');
  });
});

test.describe('session cookie', () => {
  test('signing in through the form sets an HttpOnly, SameSite=Lax cookie that page scripts cannot read', async ({
    page,
    context,
    request,
  }) => {
    const user = makeUser('cookie');
    await createUserViaApi(request, user);

    await page.goto('/signin');
    await page.getByLabel('Email or Username').fill(user.username);
    await page.getByLabel('Password', { exact: true }).fill(user.password);
    const signIn = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/auth/signin');
    await page.getByRole('button', { name: 'Sign In' }).click();
    const res = await signIn;
    expect(res.status()).toBe(200);
    await expect(page).toHaveURL(/\/home$/);

    const setCookie = (await res.headerValue('set-cookie')) ?? '';
    expect(setCookie).toMatch(/\bsid=/);
    expect(setCookie).toMatch(/;\s*HttpOnly/i);
    expect(setCookie).toMatch(/;\s*SameSite=Lax/i);

    const cookies = await context.cookies();
    const sid = cookies.find((c) => c.name === 'sid');
    expect(sid, 'session cookie').toBeTruthy();
    expect(sid?.httpOnly).toBe(true);
    expect(sid?.sameSite).toBe('Lax');
    expect(sid?.path).toBe('/');

    const visible = await page.evaluate(() => document.cookie);
    expect(visible).not.toContain('sid=');
    expect(visible).not.toContain(sid?.value ?? '(none)');
  });
});

/**
 * The security code as a QR code: shown in "Compare security code", and scanned from the
 * other screen with "Scan code" (Chromium's fake camera plays a picture of the code). The
 * same code marks it confirmed; another one says it does not match, and confirms nothing.
 * An axe scan and pictures of the dialog at 390 and 1280, light and dark.
 */
import { type Browser, chromium, type Page } from '@playwright/test';
import { CHROMIUM_HEADLESS, E2E_BASE_URL } from '../env.ts';
import { CHROMIUM_ARGS } from '../playwright.config.ts';
import { runAxe } from './axe.ts';
import { expect, openChat, test } from './chat-helpers.ts';
import { writeQrVideo } from './fake-camera.ts';
import { shot, signInViaApi } from './fixtures.ts';
import { nodePeer } from './node-peers.ts';

/** A browser whose camera shows `text` as a QR code. */
async function browserFilming(text: string, file: string): Promise<Browser> {
  writeQrVideo(text, file);
  return chromium.launch({
    executablePath: CHROMIUM_HEADLESS,
    args: [
      ...CHROMIUM_ARGS,
      '--use-fake-device-for-media-stream',
      '--use-fake-ui-for-media-stream',
      `--use-file-for-fake-video-capture=${file}`,
    ],
  });
}

async function openCompare(page: Page) {
  await page.getByRole('button', { name: 'Compare security code' }).click();
  const dialog = page.getByRole('dialog', { name: 'Compare security code' });
  await expect(dialog.getByTestId('security-code')).toBeVisible();
  return dialog;
}

test('scan the other screen’s code: the same code confirms it, another says it does not match', async ({
  people,
}, testInfo) => {
  test.setTimeout(90_000);
  const alice = await people.person('alice');
  const bob = await nodePeer('bob');
  const browsers: Browser[] = [];
  try {
    await bob.send(alice, 'Shall we compare codes?');
    await openChat(alice.page, bob);
    const dialog = await openCompare(alice.page);
    await expect(dialog.getByRole('img', { name: 'Security code as a QR code' })).toBeVisible();
    const digits = (await dialog.getByTestId('security-code').innerText()).replace(/\D/g, '');
    expect(digits).toHaveLength(60);

    const findings: string[] = [];
    for (const scheme of ['light', 'dark'] as const) {
      for (const width of [1280, 390]) {
        await alice.page.emulateMedia({ colorScheme: scheme });
        await alice.page.setViewportSize({ width, height: width === 390 ? 844 : 800 });
        const { violations } = await runAxe(alice.page, undefined, '[role="dialog"]');
        findings.push(...violations.flatMap((v) => v.nodes.map((n) => `${scheme} @${width}: ${v.id} at ${n.target}`)));
        await shot(alice.page, `security-qr-${scheme}`);
      }
    }
    expect(findings).toEqual([]);

    // Another code first (someone else's, or a server in between): it does not match.
    const wrong = `PARLEY-SC1:${digits.slice(0, 55)}${digits.slice(55) === '00000' ? '11111' : '00000'}`;
    browsers.push(await browserFilming(wrong, testInfo.outputPath('wrong.y4m')));
    let page = await (
      await (browsers[0] as Browser).newContext({ baseURL: E2E_BASE_URL, permissions: ['camera'] })
    ).newPage();
    await signInViaApi(page, alice.user.username, alice.user.password);
    await openChat(page, bob);
    let scanDialog = await openCompare(page);
    await scanDialog.getByRole('button', { name: 'Scan code' }).click();
    await expect(scanDialog.getByRole('alert')).toContainText('This code does not match', { timeout: 15_000 });
    await expect(scanDialog).toContainText(`${bob.handle}’s code is not confirmed.`);

    // The other screen's code (the same digits): confirmed.
    browsers.push(await browserFilming(`PARLEY-SC1:${digits}`, testInfo.outputPath('right.y4m')));
    page = await (
      await (browsers[1] as Browser).newContext({ baseURL: E2E_BASE_URL, permissions: ['camera'] })
    ).newPage();
    await signInViaApi(page, alice.user.username, alice.user.password);
    await openChat(page, bob);
    scanDialog = await openCompare(page);
    await scanDialog.getByRole('button', { name: 'Scan code' }).click();
    await expect(scanDialog).toContainText(`You confirmed ${bob.handle}’s code.`, { timeout: 15_000 });
    await expect(page.getByText('Security Codes Match')).toBeVisible();
  } finally {
    await Promise.all(browsers.map((b) => b.close()));
    await bob.close();
  }
});

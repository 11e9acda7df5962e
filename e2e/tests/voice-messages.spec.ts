/**
 * Voice messages, recorded from Chromium's fake microphone (a tone): click to start, the
 * bar's time runs, Send sends it; the peer sees the player with its length and waveform,
 * plays it, changes the speed; the list says "🎤 Voice message (0:0x)". Cancel keeps
 * nothing. axe and pictures of the recording bar and the player, light and dark, 1280 and 390.
 */
import { type Browser, chromium } from '@playwright/test';
import { CHROMIUM_HEADLESS, E2E_BASE_URL } from '../env.ts';
import { CHROMIUM_ARGS } from '../playwright.config.ts';
import { scanSchemes } from './axe.ts';
import { expect, openChat, test } from './chat-helpers.ts';
import { signInViaApi } from './fixtures.ts';

test('record a voice message from the microphone; the peer plays it, at another speed', async ({ people }) => {
  test.setTimeout(90_000);
  const [alice, bob] = [await people.person('alice'), await people.person('bob')];
  let mic: Browser | null = null;
  try {
    mic = await chromium.launch({
      executablePath: CHROMIUM_HEADLESS,
      args: [...CHROMIUM_ARGS, '--use-fake-device-for-media-stream', '--use-fake-ui-for-media-stream'],
    });
    const a = await (await mic.newContext({ baseURL: E2E_BASE_URL, permissions: ['microphone'] })).newPage();
    await signInViaApi(a, alice.user.username, alice.user.password);
    await openChat(a, bob);
    const b = bob.page;
    await openChat(b, alice);
    const findings: string[] = [];

    // Cancel: nothing goes.
    await a.getByRole('button', { name: 'Record voice message' }).click();
    const bar = a.getByRole('group', { name: 'Recording a voice message' });
    await expect(bar).toBeVisible();
    await bar.getByRole('button', { name: 'Cancel recording' }).click();
    await expect(bar).toHaveCount(0);

    // Recorded for two seconds, then sent.
    await a.getByRole('button', { name: 'Record voice message' }).click();
    await expect(bar.getByRole('timer')).toHaveText('0:02', { timeout: 10_000 });
    // The bar itself (the empty conversation behind it is scanned elsewhere).
    await scanSchemes(a, 'voice-recording', findings, 'fieldset');
    await bar.getByRole('button', { name: 'Send voice message' }).click();
    const play = b.getByRole('button', { name: 'Play voice message' });
    await expect(play).toBeVisible();
    await expect(b.getByText(/^0:\d\d$/)).toBeVisible();
    await play.click();
    await expect(b.getByRole('button', { name: 'Pause voice message' })).toBeVisible();
    await b.getByRole('button', { name: 'Playback speed 1×' }).click();
    await expect(b.getByRole('button', { name: 'Playback speed 1.5×' })).toBeVisible();
    // It plays to its end (faster), and can be played again.
    await expect(play).toBeVisible({ timeout: 10_000 });
    expect(await b.getByRole('slider', { name: 'Position in the voice message' }).isEnabled()).toBe(true);
    await scanSchemes(b, 'voice-player', findings);

    await b.goto('/home');
    await expect(b.getByRole('list', { name: 'Chats' })).toContainText(/🎤 Voice message \(0:\d\d\)/);
    expect(findings).toEqual([]);
  } finally {
    await mic?.close();
  }
});

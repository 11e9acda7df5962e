/**
 * A session's browser and system as "Where you're signed in" names them, read from the
 * user agent it signed in with (the `bowser` package): "Chrome 131" on "Windows 11".
 */
import Bowser from 'bowser';

export function describeAgent(userAgent: string | null): { browser: string; system: string } {
  if (!userAgent) return { browser: 'Unknown browser', system: 'Unknown system' };
  const { browser, os } = Bowser.parse(userAgent);
  const major = browser.version?.split('.')[0];
  const osVersion = os.versionName ?? os.version?.split('.')[0];
  return {
    browser: browser.name ? [browser.name, major].filter(Boolean).join(' ') : 'Unknown browser',
    system: os.name ? [os.name, osVersion].filter(Boolean).join(' ') : 'Unknown system',
  };
}

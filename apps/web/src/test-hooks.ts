/**
 * Only in the browser tests' build (`npm run build:test`, __PARLEY_TEST_HOOKS__): puts a
 * signed-in account's keys where the sign-in form leaves them, so a test whose subject is
 * not signing in gets its people without typing a password for each (e2e/tests/signed-in.ts).
 * The form itself is tested by the sign-in and sign-up specs. A normal build has none of it.
 */
import type { BundleContents } from '@app/e2ee';
import { rememberEncrypted } from '@/client/keys/known-logins';
import { saveLocalKeys } from '@/client/keys/local-keys';

export interface AdoptedAccount {
  userId: string;
  username: string;
  email: string;
  contents: BundleContents;
  bundleVersion: number;
}

declare global {
  interface Window {
    __parleyTest?: { adopt(account: AdoptedAccount): Promise<void> };
  }
}

window.__parleyTest = {
  /** What a sign-in with "Remember me" keeps in this browser: the keys (sealed at rest) and the login seen with keys. */
  async adopt(a) {
    await saveLocalKeys(a.userId, a.contents, a.bundleVersion);
    await rememberEncrypted(a.username, a.email);
  },
};

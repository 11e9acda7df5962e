/**
 * Accounts through the real API, as the web client makes them: the password never
 * travels; `auth` is derived from it (prelogin, scrypt) and the account's keys are made
 * and uploaded sealed (the server's test helpers do the browser's part in Node).
 */
import { openBundle } from '@app/e2ee';
import type { OwnKeys } from '@app/protocol';
import { type AccountSecrets, deriveKeys, setUpKeys, signInBody, signUpBody, TestClient } from '@app/server/test';

export interface ApiUser {
  name: string;
  phone: string;
  age: number;
  username: string;
  email: string;
  password: string;
}

/**
 * Signs `user` up on the server at `baseURL`, with keys; returns the new account's id, and
 * the signed-in client and its secrets for a test that acts for the account over HTTP.
 */
export async function apiSignUp(
  baseURL: string,
  user: ApiUser,
): Promise<{ id: string; client: TestClient; secrets: AccountSecrets }> {
  const client = new TestClient(baseURL);
  const { body, wrapKey } = await signUpBody({ ...user, agree: true });
  const res = await client.post('/api/auth/signup', body);
  if (res.status !== 201) throw new Error(`sign-up of ${user.username}: ${res.status} ${JSON.stringify(res.body)}`);
  const id: string = res.body.user.id;
  const secrets = await setUpKeys(client, id, wrapKey);
  return { id, client, secrets };
}

/** The sign-in body for `password` (its `auth`), to post from a page's or test's own context. */
export function apiSignInBody(baseURL: string, login: string, password: string, remember = true) {
  return signInBody(new TestClient(baseURL), login, password, { remember });
}

/**
 * Signs `user` in over the API with "Remember me", as the form would, by handle; returns the
 * cookies the answer set and the account's keys opened with the password (null: the account
 * has none, a legacy one, or they need the form's settling: a stale bundle after a reset).
 * The browser's part of a sign-in, for e2e/tests/signed-in.ts.
 */
export async function apiSignIn(baseURL: string, user: Pick<ApiUser, 'username' | 'password'>) {
  const client = new TestClient(baseURL);
  const body = await signInBody(client, `@${user.username}`, user.password, { remember: true });
  const res = await client.post('/api/auth/signin', body);
  if (res.status !== 200) throw new Error(`sign-in of ${user.username}: ${res.status} ${JSON.stringify(res.body)}`);
  const keys = res.body.keys as OwnKeys | null;
  const userId: string = res.body.user.id;
  // A stale bundle (sealed by the password from before a reset) is the form's to settle.
  const wrapKey = keys && !keys.stale ? (await deriveKeys(user.password, keys.salt, keys.kdf)).wrapKey : null;
  const contents =
    keys && wrapKey ? await openBundle(keys.bundle, wrapKey, userId, keys.bundleVersion).catch(() => null) : null;
  const opened = keys && contents ? { contents, bundleVersion: keys.bundleVersion } : null;
  return { userId, email: res.body.user.email as string, sid: client.cookie, did: client.device, keys: opened };
}

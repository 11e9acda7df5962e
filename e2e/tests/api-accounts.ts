/**
 * Accounts through the real API, as the web client makes them: the password never
 * travels; `auth` is derived from it (prelogin, scrypt) and the account's keys are made
 * and uploaded sealed (the server's test helpers do the browser's part in Node).
 */
import { type AccountSecrets, setUpKeys, signInBody, signUpBody, TestClient } from '@app/server/test';

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

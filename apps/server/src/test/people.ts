/**
 * People in integration tests: a signed-up user with a greeted socket, and the few
 * things tests do with one (settings, a PIN, a second session, waiting for updates).
 */
import { API, type Privacy, type Update } from '@app/protocol';
import { expect } from 'vitest';
import { signInWith, signUp, type TestServer } from './harness.ts';
import { Sealer } from './sealing.ts';
import { WsTestClient } from './ws-client.ts';

/** A new user, signed in, with a socket that has been welcomed and seals with their keys. */
export async function connectedPerson(t: TestServer, overrides: Record<string, unknown> = {}) {
  const p = await signUp(t, overrides);
  const ws = await WsTestClient.connect(t, p.client.cookie);
  const sealer = Sealer.of(p.user.id) as Sealer;
  ws.sealer = sealer;
  sealer.ws ??= ws;
  return { ...p, ws, sealer };
}
export type Person = Awaited<ReturnType<typeof connectedPerson>>;

/** A round trip: every frame the server sent this socket before it has arrived. */
export async function settle(ws: WsTestClient): Promise<void> {
  await ws.request('chats');
}

/** The updates of `kind` this socket received after `afterSeq`. */
export function updatesOf<K extends Update['kind']>(ws: WsTestClient, kind: K, afterSeq = 0) {
  return ws
    .updates()
    .filter((u) => u.seq > afterSeq && u.update.kind === kind)
    .map((u) => u.update as Extract<Update, { kind: K }>);
}

/** Waits for an update of `kind` matching `pred`; resolves with the first. */
export async function waitUpdate<K extends Update['kind']>(
  ws: WsTestClient,
  kind: K,
  afterSeq = 0,
  pred: (u: Extract<Update, { kind: K }>) => boolean = () => true,
) {
  await ws.waitFor(() => updatesOf(ws, kind, afterSeq).some(pred));
  return updatesOf(ws, kind, afterSeq).find(pred) as Extract<Update, { kind: K }>;
}

/** Saves privacy settings (the rest at their defaults) and checks they were saved. */
export async function setPrivacy(p: Person, change: Partial<Privacy>): Promise<void> {
  const body = { readReceipts: true, lastSeen: true, requireRequest: false, ...change };
  const res = await p.client.request('PUT', API.privacy, body);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.privacy).toEqual(body);
}

export async function setPin(p: Person, pin: string): Promise<void> {
  const res = await p.client.request('PUT', API.pin, { pin });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** A second session of the same account (another browser). */
export async function signInAgain(t: TestServer, p: Person) {
  const c = t.client();
  const res = await signInWith(c, p.input.email, p.input.password);
  expect(res.status).toBe(200);
  return c;
}

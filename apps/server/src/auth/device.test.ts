import type { FastifyReply, FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { DEVICE_COOKIE, Devices } from './device.ts';

/** The cookie `remember` sets, as a request would carry it back. */
function issued(devices: Devices, account: { id: string; passwordHash: string }): FastifyRequest {
  let value = '';
  devices.remember({ setCookie: (_name: string, v: string) => (value = v) } as unknown as FastifyReply, account);
  return { cookies: { [DEVICE_COOKIE]: value } } as unknown as FastifyRequest;
}

describe('device cookie', () => {
  const alice = { id: 'AAAAAAAAAAAAAAAAAAAA', passwordHash: '$argon2id$alice-1' };
  const bob = { id: 'BBBBBBBBBBBBBBBBBBBB', passwordHash: '$argon2id$bob-1' };
  const devices = new Devices('secret', true);

  it('is trusted for the account it was issued to, and only that one', () => {
    const req = issued(devices, alice);
    expect(devices.trusted(req, alice)).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(devices.trusted(req, bob)).toBeNull();
    expect(devices.trusted(req, null)).toBeNull();
  });

  it('is void once the password changes, under another server secret, or when altered', () => {
    const req = issued(devices, alice);
    expect(devices.trusted(req, { ...alice, passwordHash: '$argon2id$alice-2' })).toBeNull();
    expect(new Devices('other secret', true).trusted(req, alice)).toBeNull();
    const value = (req.cookies as Record<string, string>)[DEVICE_COOKIE] as string;
    const [id, nonce, sig] = value.split('.');
    for (const forged of [
      `${bob.id}.${nonce}.${sig}`,
      `${id}.x${nonce}.${sig}`,
      `${id}.${nonce}.${sig}x`,
      `${id}.${nonce}`,
      'x'.repeat(300),
    ]) {
      expect(
        devices.trusted({ cookies: { [DEVICE_COOKIE]: forged } } as unknown as FastifyRequest, alice),
        forged,
      ).toBeNull();
    }
  });
});

import { afterEach, describe, expect, it, vi } from 'vitest';
import { fromBase64Url, toBase64Url } from './bytes.ts';
import { openChatKey } from './chat-key.ts';
import { E2EEAuthError } from './errors.ts';
import { hkdfKey } from './hkdf.ts';
import {
  decryptMessage,
  encryptClearBefore,
  encryptMessage,
  encryptTombstone,
  type MessagePlace,
  messageHeader,
} from './message.ts';
import { ALICE, BOB, CHAT, pair } from './test/people.ts';

const place: MessagePlace = { chatId: CHAT, msgId: 'msg-00000001', senderId: ALICE, recipientId: BOB };
const header = { epoch: 1, rev: 0 };

async function key(fill = 1) {
  return hkdfKey(new Uint8Array(32).fill(fill));
}

describe('message sealing', () => {
  it('opens what it sealed, for any text, with the epoch and revision it claims', async () => {
    const k = await key();
    for (const text of ['hi', 'ü漢字🙂', 'x'.repeat(4096), '🙂'.repeat(2048), ' \n\t ', '\uFEFFbom first', '\uFEFF']) {
      const ct = await encryptMessage(k, place, { epoch: 7, rev: 3 }, text);
      expect(messageHeader(ct)).toEqual({ epoch: 7, rev: 3 });
      expect(await decryptMessage(k, place, ct, { epoch: 7, rev: 3 })).toEqual({ text, epoch: 7, rev: 3 });
    }
  });

  it('hides the exact length: short texts all seal to one size, longer ones to Padmé steps', async () => {
    const k = await key();
    const sizes = new Set<number>();
    for (let n = 1; n <= 30; n++) sizes.add((await encryptMessage(k, place, header, 'a'.repeat(n))).length);
    expect(sizes.size).toBe(1);
    const long = await encryptMessage(k, place, header, 'a'.repeat(4096));
    expect(long.length).toBeLessThan(20_000);
  });

  it('never seals the same text to the same ciphertext', async () => {
    const k = await key();
    expect(await encryptMessage(k, place, header, 'same')).not.toBe(await encryptMessage(k, place, header, 'same'));
  });

  it('refuses a flipped bit at every byte position, with an E2EEAuthError and no bytes', async () => {
    const k = await key();
    const data = fromBase64Url(await encryptMessage(k, place, header, 'tamper me'));
    for (let i = 0; i < data.length; i++) {
      const bad = data.slice();
      bad[i] = (bad[i] as number) ^ (1 << (i % 8));
      await expect(decryptMessage(k, place, toBase64Url(bad))).rejects.toBeInstanceOf(E2EEAuthError);
    }
    await expect(decryptMessage(k, place, toBase64Url(data.subarray(0, data.length - 1)))).rejects.toBeInstanceOf(
      E2EEAuthError,
    );
  });

  it('does not open when moved to another message, chat, sender, revision or key', async () => {
    const k = await key();
    const ct = await encryptMessage(k, place, header, 'pinned');
    const moved: MessagePlace[] = [
      { ...place, msgId: 'msg-00000002' },
      { ...place, chatId: `${ALICE}_${'C'.repeat(20)}` },
      { ...place, senderId: BOB, recipientId: ALICE },
    ];
    for (const other of moved) await expect(decryptMessage(k, other, ct)).rejects.toBeInstanceOf(E2EEAuthError);
    await expect(decryptMessage(await key(2), place, ct)).rejects.toBeInstanceOf(E2EEAuthError);
    await expect(decryptMessage(k, place, ct, { rev: 1 })).rejects.toBeInstanceOf(E2EEAuthError);
    await expect(decryptMessage(k, place, ct, { epoch: 2 })).rejects.toBeInstanceOf(E2EEAuthError);
  });

  it('refuses an older revision replayed where the server says a newer one is', async () => {
    const k = await key();
    const original = await encryptMessage(k, place, { epoch: 1, rev: 0 }, 'first');
    const edited = await encryptMessage(k, place, { epoch: 1, rev: 1 }, 'second');
    expect((await decryptMessage(k, place, edited, { rev: 1 })).text).toBe('second');
    await expect(decryptMessage(k, place, original, { rev: 1 })).rejects.toBeInstanceOf(E2EEAuthError);
  });

  it('refuses garbage that is not even base64url', async () => {
    const k = await key();
    for (const junk of ['', '!!!!', 'AAAA', 'a'.repeat(5), `${'A'.repeat(60)}=`]) {
      await expect(decryptMessage(k, place, junk)).rejects.toBeInstanceOf(E2EEAuthError);
    }
  });

  it('round-trips between two people through a chat key each opens on their own', async () => {
    const { alice, bob, envelope, key: aliceKey } = await pair();
    const ct = await encryptMessage(aliceKey, place, header, 'hello bob');
    const bobKey = await openChatKey(bob.keys, envelope, alice.publicKeys.ik);
    expect((await decryptMessage(bobKey, place, ct)).text).toBe('hello bob');
  });
});

describe('the test-only null cipher', () => {
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
    vi.resetModules();
  });

  it('is off unless a build defines the switch: the text is nowhere in the ciphertext', async () => {
    const ct = await encryptMessage(await key(), place, header, 'plain words');
    expect(Buffer.from(fromBase64Url(ct)).includes(Buffer.from('plain words'))).toBe(false);
  });

  it('when a test build turns it on, carries the padded text in the same header and length, and reads it back', async () => {
    vi.stubGlobal('__PARLEY_TEST_NULL_CIPHER__', true);
    vi.resetModules();
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const nulled = await import('./message.ts');
    const k = await key();
    const ct = await nulled.encryptMessage(k, place, { epoch: 3, rev: 2 }, 'plain words');
    expect(Buffer.from(fromBase64Url(ct)).includes(Buffer.from('plain words'))).toBe(true);
    expect(nulled.messageHeader(ct)).toEqual({ epoch: 3, rev: 2 });
    expect(ct.length).toBe((await encryptMessage(k, place, { epoch: 3, rev: 2 }, 'plain words')).length);
    expect((await nulled.decryptMessage(k, place, ct, { epoch: 3, rev: 2 })).text).toBe('plain words');
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('PARLEY TEST BUILD'));
  });
});

describe('a text from before encryption, sealed later by its sender', () => {
  it('opens marked as such, so its recipient still says it was not encrypted', async () => {
    const k = await key();
    const ct = await encryptClearBefore(k, place, header, 'from before');
    expect(await decryptMessage(k, place, ct, header)).toEqual({ text: 'from before', clear: true, ...header });
    expect(await decryptMessage(k, place, await encryptMessage(k, place, header, 'now'), header)).toEqual({
      text: 'now',
      ...header,
    });
  });
});

describe('tombstones', () => {
  it('a sealed deletion opens as deleted, at its revision only, and not as another message’s', async () => {
    const k = await key();
    const ct = await encryptTombstone(k, place, { epoch: 2, rev: 1 });
    expect(messageHeader(ct)).toEqual({ epoch: 2, rev: 1 });
    expect(await decryptMessage(k, place, ct, { rev: 1 })).toEqual({ deleted: true, epoch: 2, rev: 1 });
    // Shaped like a short message: a tombstone does not stand out by its length.
    expect(ct.length).toBe((await encryptMessage(k, place, { epoch: 2, rev: 1 }, 'ok')).length);
    await expect(decryptMessage(k, place, ct, { rev: 0 })).rejects.toBeInstanceOf(E2EEAuthError);
    await expect(decryptMessage(k, { ...place, msgId: 'msg-00000002' }, ct)).rejects.toBeInstanceOf(E2EEAuthError);
    await expect(decryptMessage(await key(2), place, ct)).rejects.toBeInstanceOf(E2EEAuthError);
  });
});

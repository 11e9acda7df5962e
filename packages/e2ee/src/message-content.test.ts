import { describe, expect, it } from 'vitest';
import { concat, u16, utf8 } from './bytes.ts';
import { E2EEAuthError } from './errors.ts';
import { hkdfKey } from './hkdf.ts';
import { decryptMessage, encryptMessage, type MessagePlace } from './message.ts';
import { decodeRich, encodeRich, REPLY_EXCERPT_MAX, replyExcerpt } from './message-content.ts';
import { ALICE, BOB, CHAT } from './test/people.ts';

const place: MessagePlace = { chatId: CHAT, msgId: 'msg-00000002', senderId: BOB, recipientId: ALICE };
const reply = { msgId: 'msg-00000001', senderId: ALICE, excerpt: 'Are we still on for Friday?' };

describe('a message with a reply reference or a forwarded mark', () => {
  it('opens with what it was sealed with, and a plain text still opens without either', async () => {
    const k = await hkdfKey(new Uint8Array(32).fill(3));
    for (const content of [
      { text: 'Yes, 7 pm', reply },
      { text: 'ü漢字🙂\n"quoted"', forwarded: true as const },
      { text: 'both', reply, forwarded: true as const },
      { text: 'x'.repeat(4096), reply: { ...reply, excerpt: '\u0001'.repeat(REPLY_EXCERPT_MAX) } },
    ]) {
      const ct = await encryptMessage(k, place, { epoch: 1, rev: 0 }, content);
      expect(await decryptMessage(k, place, ct)).toEqual({ ...content, epoch: 1, rev: 0 });
      // The protocol's limit for a full-length message holds with the longest escaped excerpt.
      expect(ct.length).toBeLessThan(20_000);
    }
    const plain = await encryptMessage(k, place, { epoch: 1, rev: 0 }, { text: 'plain' });
    expect(await decryptMessage(k, place, plain)).toEqual({ text: 'plain', epoch: 1, rev: 0 });
  });

  it('keeps the reference out of the ciphertext: a reply seals to the size of a plain text as long', async () => {
    const k = await hkdfKey(new Uint8Array(32).fill(4));
    const a = await encryptMessage(k, place, { epoch: 1, rev: 0 }, { text: 'ok', reply });
    const plainLength = encodeRich({ text: 'ok', reply }).length - 1;
    const b = await encryptMessage(k, place, { epoch: 1, rev: 0 }, 'o'.repeat(plainLength));
    expect(a.length).toBe(b.length);
    expect(a).not.toContain('msg-00000001');
  });

  it('cuts an excerpt to its first line and the limit', () => {
    expect(replyExcerpt('  first line \nsecond')).toBe('first line');
    const long = '🙂'.repeat(REPLY_EXCERPT_MAX + 5);
    const cut = replyExcerpt(long);
    expect([...cut]).toHaveLength(REPLY_EXCERPT_MAX);
    expect(cut.endsWith('…')).toBe(true);
    expect(decodeRich(encodeRich({ text: 't', reply: { ...reply, excerpt: long } })).reply?.excerpt).toBe(cut);
  });

  it('refuses malformed extras as unverifiable, never as a half-read message', () => {
    const rich = (json: string, text = 'hi') => {
      const j = utf8(json);
      return concat(new Uint8Array([0x04]), u16(j.length), j, utf8(text));
    };
    for (const bad of [
      rich('not json'),
      rich('[]'),
      rich('null'),
      rich('{"f":2}'),
      rich('{"r":{"i":"a","s":"b"}}'),
      rich(`{"r":{"i":"${'a'.repeat(65)}","s":"b","x":""}}`),
      rich(`{"r":{"i":"a","s":"b","x":"${'x'.repeat(REPLY_EXCERPT_MAX + 1)}"}}`),
      concat(new Uint8Array([0x04]), u16(500), utf8('{}')),
      new Uint8Array([0x04, 0]),
    ]) {
      expect(() => decodeRich(bad)).toThrow(E2EEAuthError);
    }
    // Unknown keys are a later version's: ignored.
    expect(decodeRich(rich('{"z":1}'))).toEqual({ text: 'hi' });
  });
});

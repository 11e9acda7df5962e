import { describe, expect, it } from 'vitest';
import { ATTACHMENT_NAME_MAX, type AttachmentRef, attachmentName, THUMB_MAX, WAVEFORM_MAX } from './attachment-ref.ts';
import { E2EEAuthError } from './errors.ts';
import { hkdfKey } from './hkdf.ts';
import { decryptMessage, encryptMessage, type MessagePlace } from './message.ts';
import { decodeRich, encodeRich } from './message-content.ts';
import { ALICE, BOB, CHAT } from './test/people.ts';

const place: MessagePlace = { chatId: CHAT, msgId: 'msg-00000003', senderId: BOB, recipientId: ALICE };

/** The largest descriptor there can be. */
const biggest: AttachmentRef = {
  id: 'A'.repeat(22),
  key: 'k'.repeat(43),
  digest: 'd'.repeat(43),
  size: 104_857_600,
  type: 't'.repeat(100),
  // Escaped in JSON: six characters each.
  name: '\u0001'.repeat(ATTACHMENT_NAME_MAX),
  kind: 'image',
  width: 4032,
  height: 3024,
  thumb: 'Q'.repeat(THUMB_MAX),
  durationMs: 3_600_000,
  waveform: 'w'.repeat(Math.ceil((WAVEFORM_MAX * 4) / 3)),
};

describe('attachments in a sealed message', () => {
  it('opens with its descriptor, and a full-length caption with the largest one still seals under the limit', async () => {
    const k = await hkdfKey(new Uint8Array(32).fill(5));
    for (const content of [
      { text: '', attachments: [{ ...biggest, kind: 'file' as const, name: 'report.pdf' }] },
      { text: 'x'.repeat(4096), attachments: [biggest] },
    ]) {
      const ct = await encryptMessage(k, place, { epoch: 1, rev: 0 }, content);
      expect(await decryptMessage(k, place, ct)).toEqual({ ...content, epoch: 1, rev: 0 });
      expect(ct.length).toBeLessThan(20_000);
    }
  });

  it('refuses a malformed descriptor, or more than one', () => {
    const wire = (a: unknown) => {
      const json = new TextEncoder().encode(JSON.stringify({ a }));
      return new Uint8Array([0x04, json.length >> 8, json.length & 0xff, ...json]);
    };
    const good = JSON.parse(new TextDecoder().decode(encodeRich({ text: '', attachments: [biggest] }).subarray(3)))
      .a[0];
    expect(decodeRich(wire([good])).attachments?.[0]).toEqual(biggest);
    for (const bad of [
      [],
      [good, good],
      [{ ...good, k: 'short' }],
      [{ ...good, c: 'video' }],
      [{ ...good, s: -1 }],
      [{ ...good, p: 'not base64!' }],
      [{ ...good, n: 'n'.repeat(ATTACHMENT_NAME_MAX + 1) }],
      [{ ...good, i: '../../x' }],
      'nope',
    ]) {
      expect(() => decodeRich(wire(bad)), JSON.stringify(bad).slice(0, 60)).toThrow(E2EEAuthError);
    }
  });

  it('cuts a long file name, keeping its extension', () => {
    const long = `${'a'.repeat(300)}.pdf`;
    const cut = attachmentName(long);
    expect([...cut]).toHaveLength(ATTACHMENT_NAME_MAX);
    expect(cut.endsWith('….pdf')).toBe(true);
    expect(attachmentName('short.txt')).toBe('short.txt');
  });
});

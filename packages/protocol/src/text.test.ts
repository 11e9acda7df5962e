import { describe, expect, it } from 'vitest';
import { MESSAGE_MAX, messageTextSchema } from './chat.ts';
import { SAMPLE_BODIES, sampleFrames, stringPaths, valueAt, withValue } from './test/samples.ts';
import { isStorableText, TEXT_MSG } from './text.ts';
import { upFrameSchema } from './ws.ts';

const UNSTORABLE = ['\u0000', 'a\u0000b', '\uD800', 'x\uDBFFy', '\uDC00z', 'end\uD83D'];

describe('text policy', () => {
  it('isStorableText refuses NUL and unpaired surrogates, and keeps pairs, controls and emoji', () => {
    for (const s of UNSTORABLE) expect(isStorableText(s), JSON.stringify(s)).toBe(false);
    for (const s of ['', 'plain', 'tab\tnew\nline', '😀', 'a😀b', '\uD83D\uDE00', 'é ü 中文', '\u0001']) {
      expect(isStorableText(s), JSON.stringify(s)).toBe(true);
    }
  });

  it('the samples are valid (so a refusal below is the mutation’s doing)', () => {
    for (const f of sampleFrames()) expect(upFrameSchema.safeParse(f).success, f.t).toBe(true);
    for (const b of SAMPLE_BODIES) expect(b.schema.safeParse(b.value).success, b.name).toBe(true);
  });

  it('every string field of every frame refuses NUL and unpaired surrogates', () => {
    let checked = 0;
    for (const frame of sampleFrames()) {
      for (const path of stringPaths(frame)) {
        if (path[0] === 't') continue;
        for (const bad of UNSTORABLE) {
          const original = valueAt(frame, path) as string;
          const mutated = withValue(frame, path, original.slice(0, 2) + bad);
          expect(upFrameSchema.safeParse(mutated).success, `${frame.t}.${path.join('.')} ${JSON.stringify(bad)}`).toBe(
            false,
          );
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it('every string field of every HTTP body refuses NUL and unpaired surrogates', () => {
    for (const body of SAMPLE_BODIES) {
      for (const path of stringPaths(body.value)) {
        for (const bad of UNSTORABLE) {
          const original = valueAt(body.value, path) as string;
          const mutated = withValue(body.value, path, original.slice(0, 2) + bad);
          expect(body.schema.safeParse(mutated).success, `${body.name}.${path.join('.')} ${JSON.stringify(bad)}`).toBe(
            false,
          );
        }
      }
    }
  });

  it('free text says why it was refused', () => {
    const r = messageTextSchema.safeParse('hi\u0000');
    expect(r.error?.issues[0]?.message).toBe(TEXT_MSG.notStorable);
  });

  it('message length is counted in UTF-16 units: 2,048 emoji fit, 2,049 do not', () => {
    expect(messageTextSchema.safeParse('😀'.repeat(MESSAGE_MAX / 2)).success).toBe(true);
    const r = messageTextSchema.safeParse('😀'.repeat(MESSAGE_MAX / 2 + 1));
    expect(r.error?.issues[0]?.message).toBe(`Messages can be at most ${MESSAGE_MAX} characters`);
    expect(messageTextSchema.safeParse('a'.repeat(MESSAGE_MAX)).success).toBe(true);
    expect(messageTextSchema.safeParse('a'.repeat(MESSAGE_MAX + 1)).success).toBe(false);
  });
});

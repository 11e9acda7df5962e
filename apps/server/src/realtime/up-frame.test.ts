import { describe, expect, it } from 'vitest';
import { parseUpFrame } from './up-frame.ts';

describe('parseUpFrame', () => {
  it('reads a valid frame', () => {
    expect(parseUpFrame('{"t":"ping"}', false)).toEqual({ frame: { t: 'ping' } });
  });

  it('refuses binary frames and text that is not JSON', () => {
    for (const [text, binary] of [
      ['{"t":"ping"}', true],
      ['{not json', false],
    ] as const) {
      expect(parseUpFrame(text, binary)).toEqual({
        refusal: { t: 'error', id: null, code: 'invalid_frame', message: 'Frames must be JSON text' },
      });
    }
  });

  it("answers an invalid request with its own id (cut to 64) and the schema's first message", () => {
    const r = parseUpFrame(JSON.stringify({ t: 'chats', id: 'x'.repeat(100), extra: 1 }), false);
    expect(r).toMatchObject({ refusal: { t: 'error', id: 'x'.repeat(64), code: 'invalid_frame' } });
    for (const raw of ['null', '5', '"text"', '{"t":"nope","id":7}']) {
      expect(parseUpFrame(raw, false)).toMatchObject({ refusal: { id: null, code: 'invalid_frame' } });
    }
  });
});

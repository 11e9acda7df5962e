import { MESSAGE_MAX, messageTextSchema } from '@app/protocol';
import { describe, expect, it } from 'vitest';
import { messageTextError } from './message-text';

describe('messageTextError', () => {
  it('accepts what the protocol accepts', () => {
    expect(messageTextError('Hello 👋')).toBeNull();
    expect(messageTextError('x'.repeat(MESSAGE_MAX))).toBeNull();
    expect(messageTextError('😀'.repeat(MESSAGE_MAX / 2))).toBeNull();
  });

  it("refuses what the protocol refuses, with the protocol's message", () => {
    // Too long (in UTF-16 units), blank, NUL, half an emoji (an unpaired surrogate).
    for (const text of ['x'.repeat(MESSAGE_MAX + 1), '   ', '', 'a\u0000b', 'cut \uD83D', '\uDE00 cut']) {
      const problem = messageTextError(text);
      expect(problem, JSON.stringify(text.slice(0, 10))).not.toBeNull();
      expect(problem).toBe(messageTextSchema.safeParse(text).error?.issues[0]?.message);
    }
  });
});

import { MESSAGE_MAX } from '@app/protocol';
import { describe, expect, it } from 'vitest';
import { COUNTER_FROM, lengthCounter, sendsOnKey } from './composer-keys';

const enter = { key: 'Enter', shiftKey: false };

describe('sendsOnKey', () => {
  it('sends on Enter with a keyboard, and Shift+Enter is a new line', () => {
    expect(sendsOnKey(enter, false)).toBe(true);
    expect(sendsOnKey({ ...enter, shiftKey: true }, false)).toBe(false);
    expect(sendsOnKey({ key: 'a', shiftKey: false }, false)).toBe(false);
  });

  it('makes Enter a new line on a touch screen, where Ctrl/Cmd+Enter still sends', () => {
    expect(sendsOnKey(enter, true)).toBe(false);
    expect(sendsOnKey({ ...enter, ctrlKey: true }, true)).toBe(true);
    expect(sendsOnKey({ ...enter, metaKey: true }, true)).toBe(true);
  });

  it('never sends while an input method composes', () => {
    expect(sendsOnKey({ ...enter, isComposing: true }, false)).toBe(false);
  });
});

describe('lengthCounter', () => {
  it('shows nothing far from the limit, then the count with thousands separators', () => {
    expect(lengthCounter(0)).toBeNull();
    expect(lengthCounter(COUNTER_FROM - 1)).toBeNull();
    expect(lengthCounter(3612)).toEqual({ text: '3,612 / 4,096', over: false });
    expect(lengthCounter(MESSAGE_MAX)).toEqual({ text: '4,096 / 4,096', over: false });
    expect(lengthCounter(MESSAGE_MAX + 1)).toEqual({ text: '4,097 / 4,096', over: true });
  });
});

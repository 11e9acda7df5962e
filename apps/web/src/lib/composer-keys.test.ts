import { MESSAGE_MAX } from '@app/protocol';
import { describe, expect, it } from 'vitest';
import { testMessage } from '../test/messages';
import { COUNTER_FROM, canEdit, editsLastOnKey, lastEditable, lengthCounter, sendsOnKey } from './composer-keys';

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

describe('editsLastOnKey', () => {
  const up = { key: 'ArrowUp', shiftKey: false, ctrlKey: false, metaKey: false, altKey: false };
  it('edits on ↑ alone in an empty composer that is not editing yet', () => {
    expect(editsLastOnKey(up, '', false)).toBe(true);
    expect(editsLastOnKey(up, 'draft', false)).toBe(false);
    expect(editsLastOnKey(up, '', true)).toBe(false);
    expect(editsLastOnKey({ ...up, altKey: true }, '', false)).toBe(false);
    expect(editsLastOnKey({ ...up, shiftKey: true }, '', false)).toBe(false);
    expect(editsLastOnKey({ ...up, key: 'ArrowDown' }, '', false)).toBe(false);
    expect(editsLastOnKey({ ...up, isComposing: true }, '', false)).toBe(false);
  });
});

describe('lastEditable', () => {
  const mine = (id: string, t: number, extra = {}) => testMessage(id, t, { senderId: 'me', ...extra });
  it('finds the newest own message on the server, skipping the peer, unsent and deleted ones', () => {
    const list = [
      mine('old', 1),
      mine('mine', 2),
      testMessage('theirs', 3, { senderId: 'peer' }),
      mine('gone', 4, { deleted: true }),
      mine('failed', 5, { failed: 'offline' }),
      mine('waiting', 6, { pending: true }),
    ];
    expect(lastEditable(list, 'me')?.id).toBe('mine');
    expect(lastEditable(list, 'peer')?.id).toBe('theirs');
    expect(lastEditable(list, undefined)).toBeNull();
    expect(lastEditable([], 'me')).toBeNull();
    expect(canEdit(mine('x', 1), 'me')).toBe(true);
    expect(canEdit(mine('x', 1, { pending: true }), 'me')).toBe(false);
  });
});

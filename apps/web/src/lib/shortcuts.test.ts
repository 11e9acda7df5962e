import { describe, expect, it } from 'vitest';
import { isMacPlatform, isTextField, type KeyPress, neighbourChat, shortcutList, shortcutOf } from './shortcuts';

const press = (key: string, mods: Partial<KeyPress> = {}): KeyPress => ({
  key,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  ...mods,
});
const pc = { inTextField: false, mac: false };
const mac = { inTextField: false, mac: true };

describe('shortcutOf', () => {
  it('searches on Ctrl+K, or Cmd+K on a Mac, even in a text field', () => {
    expect(shortcutOf(press('k', { ctrlKey: true }), pc)).toBe('search');
    expect(shortcutOf(press('K', { ctrlKey: true }), { ...pc, inTextField: true })).toBe('search');
    expect(shortcutOf(press('k', { metaKey: true }), mac)).toBe('search');
    expect(shortcutOf(press('k', { metaKey: true }), pc)).toBeNull();
    expect(shortcutOf(press('k', { ctrlKey: true }), mac)).toBeNull();
    expect(shortcutOf(press('k', { ctrlKey: true, shiftKey: true }), pc)).toBeNull();
    expect(shortcutOf(press('k'), pc)).toBeNull();
  });

  it('shows the help on ? outside text fields only', () => {
    expect(shortcutOf(press('?', { shiftKey: true }), pc)).toBe('help');
    expect(shortcutOf(press('?', { shiftKey: true }), { ...pc, inTextField: true })).toBeNull();
    expect(shortcutOf(press('?', { ctrlKey: true }), pc)).toBeNull();
    expect(shortcutOf(press('/'), pc)).toBeNull();
  });

  it('moves between chats with Alt+↑ and Alt+↓ only', () => {
    expect(shortcutOf(press('ArrowUp', { altKey: true }), pc)).toBe('previous-chat');
    expect(shortcutOf(press('ArrowDown', { altKey: true }), { ...pc, inTextField: true })).toBe('next-chat');
    expect(shortcutOf(press('ArrowDown'), pc)).toBeNull();
    expect(shortcutOf(press('ArrowDown', { altKey: true, shiftKey: true }), pc)).toBeNull();
    expect(shortcutOf(press('ArrowDown', { altKey: true, ctrlKey: true }), pc)).toBeNull();
  });

  it('knows Escape and Page Up/Down without modifiers, and nothing while an input method composes', () => {
    expect(shortcutOf(press('Escape'), pc)).toBe('escape');
    expect(shortcutOf(press('PageUp'), { ...pc, inTextField: true })).toBe('page-up');
    expect(shortcutOf(press('PageDown'), pc)).toBe('page-down');
    expect(shortcutOf(press('PageDown', { shiftKey: true }), pc)).toBeNull();
    expect(shortcutOf(press('Escape', { ctrlKey: true }), pc)).toBeNull();
    expect(shortcutOf(press('Escape', { isComposing: true }), pc)).toBeNull();
    expect(shortcutOf(press('k', { ctrlKey: true, isComposing: true }), pc)).toBeNull();
  });
});

describe('isTextField', () => {
  it('counts text inputs, text areas and editable elements, not buttons or check boxes', () => {
    expect(isTextField({ tagName: 'TEXTAREA' })).toBe(true);
    expect(isTextField({ tagName: 'INPUT', type: 'search' })).toBe(true);
    expect(isTextField({ tagName: 'INPUT', type: 'password' })).toBe(true);
    expect(isTextField({ tagName: 'INPUT', type: 'checkbox' })).toBe(false);
    expect(isTextField({ tagName: 'DIV', isContentEditable: true })).toBe(true);
    expect(isTextField({ tagName: 'BUTTON' })).toBe(false);
    expect(isTextField(null)).toBe(false);
  });
});

describe('neighbourChat', () => {
  const order = ['a', 'b', 'c'];
  it('goes to the chat above or below, and not past the ends', () => {
    expect(neighbourChat(order, 'b', 1)).toBe('c');
    expect(neighbourChat(order, 'b', -1)).toBe('a');
    expect(neighbourChat(order, 'c', 1)).toBeNull();
    expect(neighbourChat(order, 'a', -1)).toBeNull();
  });
  it('opens the first (↓) or the last (↑) from outside the list', () => {
    expect(neighbourChat(order, null, 1)).toBe('a');
    expect(neighbourChat(order, 'archived', -1)).toBe('c');
    expect(neighbourChat([], null, 1)).toBeNull();
  });
});

describe('shortcutList', () => {
  it('says Cmd on a Mac and Ctrl elsewhere, and lists every shortcut', () => {
    const keys = (m: boolean) => shortcutList(m).map((s) => s.keys.join('+'));
    expect(keys(false)).toEqual(expect.arrayContaining(['Ctrl+K', 'Alt+↑', 'Alt+↓', '↑', 'Esc', 'Page Up', '?']));
    expect(keys(true)).toContain('⌘+K');
    expect(isMacPlatform({ platform: 'MacIntel' })).toBe(true);
    expect(isMacPlatform({ platform: 'Linux x86_64' })).toBe(false);
  });
});

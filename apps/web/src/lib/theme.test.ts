import { describe, expect, it } from 'vitest';
import {
  createThemeController,
  parseChoice,
  resolveTheme,
  THEME_COLOR,
  THEME_STORAGE_KEY,
  type ThemeHost,
} from './theme';

/** A fake browser: storage, a system scheme that can change, <html> and the two theme-color metas. */
function fakeHost({ stored = null as string | null, systemDark = false, storageThrows = false } = {}) {
  const store = new Map<string, string>();
  if (stored !== null) store.set(THEME_STORAGE_KEY, stored);
  const changeListeners = new Set<() => void>();
  const media = {
    matches: systemDark,
    addEventListener: (_: string, l: () => void) => changeListeners.add(l),
    removeEventListener: (_: string, l: () => void) => changeListeners.delete(l),
  };
  const classes = new Set<string>();
  const root = {
    classList: {
      toggle: (name: string, on: boolean) => {
        if (on) classes.add(name);
        else classes.delete(name);
        return on;
      },
    },
    dataset: {} as Record<string, string>,
  };
  const metas = [
    { media: '(prefers-color-scheme: light)', content: '' },
    { media: '(prefers-color-scheme: dark)', content: '' },
  ];
  const storage = {
    getItem: (k: string) => {
      if (storageThrows) throw new Error('SecurityError');
      return store.get(k) ?? null;
    },
    setItem: (k: string, v: string) => {
      if (storageThrows) throw new Error('SecurityError');
      store.set(k, v);
    },
  };
  const host = { storage, systemDark: media, root, themeColorMetas: () => metas } as unknown as ThemeHost;
  const setSystem = (dark: boolean) => {
    media.matches = dark;
    for (const l of changeListeners) l();
  };
  return { host, store, classes, root, metas, setSystem, changeListeners };
}

describe('parseChoice / resolveTheme', () => {
  it('reads the three choices and takes anything else as System', () => {
    expect(parseChoice('light')).toBe('light');
    expect(parseChoice('dark')).toBe('dark');
    expect(parseChoice('system')).toBe('system');
    for (const v of [null, undefined, '', 'Dark', 'blue']) expect(parseChoice(v)).toBe('system');
  });

  it('System follows the system; a choice overrides it', () => {
    expect(resolveTheme('system', true)).toBe('dark');
    expect(resolveTheme('system', false)).toBe('light');
    expect(resolveTheme('light', true)).toBe('light');
    expect(resolveTheme('dark', false)).toBe('dark');
  });
});

describe('createThemeController', () => {
  it('starts on System, following a dark system: class, data-theme and each meta its own colour', () => {
    const f = fakeHost({ systemDark: true });
    const c = createThemeController(f.host);
    expect(c.get()).toEqual({ choice: 'system', theme: 'dark' });
    expect(f.classes.has('dark')).toBe(true);
    expect(f.root.dataset.theme).toBe('dark');
    expect(f.metas.map((m) => m.content)).toEqual([THEME_COLOR.light, THEME_COLOR.dark]);
  });

  it('follows the system live under System, and tells its subscribers', () => {
    const f = fakeHost();
    const c = createThemeController(f.host);
    let calls = 0;
    c.subscribe(() => {
      calls += 1;
    });
    expect(f.classes.has('dark')).toBe(false);
    f.setSystem(true);
    expect(c.get().theme).toBe('dark');
    expect(f.classes.has('dark')).toBe(true);
    f.setSystem(false);
    expect(c.get().theme).toBe('light');
    expect(f.root.dataset.theme).toBe('light');
    expect(calls).toBe(2);
  });

  it('a stored choice overrides the system, sets both metas, and ignores system changes', () => {
    const f = fakeHost({ stored: 'light', systemDark: true });
    const c = createThemeController(f.host);
    expect(c.get()).toEqual({ choice: 'light', theme: 'light' });
    expect(f.classes.has('dark')).toBe(false);
    expect(f.metas.map((m) => m.content)).toEqual([THEME_COLOR.light, THEME_COLOR.light]);
    f.setSystem(false);
    f.setSystem(true);
    expect(c.get().theme).toBe('light');
  });

  it('setChoice remembers the choice and applies it; back to System follows the system again', () => {
    const f = fakeHost({ systemDark: false });
    const c = createThemeController(f.host);
    c.setChoice('dark');
    expect(f.store.get(THEME_STORAGE_KEY)).toBe('dark');
    expect(c.get()).toEqual({ choice: 'dark', theme: 'dark' });
    expect(f.classes.has('dark')).toBe(true);
    expect(f.metas.map((m) => m.content)).toEqual([THEME_COLOR.dark, THEME_COLOR.dark]);
    c.setChoice('system');
    expect(f.store.get(THEME_STORAGE_KEY)).toBe('system');
    expect(c.get()).toEqual({ choice: 'system', theme: 'light' });
    expect(f.classes.has('dark')).toBe(false);
    expect(f.metas.map((m) => m.content)).toEqual([THEME_COLOR.light, THEME_COLOR.dark]);
  });

  it('reload picks up a choice another tab stored', () => {
    const f = fakeHost();
    const c = createThemeController(f.host);
    f.store.set(THEME_STORAGE_KEY, 'dark');
    c.reload();
    expect(c.get()).toEqual({ choice: 'dark', theme: 'dark' });
  });

  it('works without storage (blocked): System, and a choice still shows for the visit', () => {
    const f = fakeHost({ storageThrows: true, systemDark: true });
    const c = createThemeController(f.host);
    expect(c.get()).toEqual({ choice: 'system', theme: 'dark' });
    c.setChoice('light');
    expect(c.get()).toEqual({ choice: 'light', theme: 'light' });
    expect(f.classes.has('dark')).toBe(false);
  });

  it('stop removes the system listener', () => {
    const f = fakeHost();
    const c = createThemeController(f.host);
    expect(f.changeListeners.size).toBe(1);
    c.stop();
    expect(f.changeListeners.size).toBe(0);
  });
});

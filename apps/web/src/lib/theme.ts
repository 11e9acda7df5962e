import { useSyncExternalStore } from 'react';

/**
 * The colour theme: Light, Dark or System (the default, which follows the system's
 * prefers-color-scheme live). The choice is remembered per browser (localStorage) and
 * shown on <html>: the class "dark" (Tailwind's dark variant and the dark tokens in
 * index.css), data-theme, and the browser bar's theme-color metas.
 */
export const THEME_CHOICES = ['light', 'dark', 'system'] as const;
export type ThemeChoice = (typeof THEME_CHOICES)[number];
export type Theme = 'light' | 'dark';

export const THEME_STORAGE_KEY = 'parley:theme';

/** The browser bar's colour per theme: the same as the metas in index.html. */
export const THEME_COLOR: Record<Theme, string> = { light: '#4f46e5', dark: '#0f172a' };

export interface ThemeState {
  choice: ThemeChoice;
  /** What is shown: the choice, or the system's scheme under System. */
  theme: Theme;
}

/** What the controller reads and writes: the browser's in the app, fakes in the tests. */
export interface ThemeHost {
  storage: Pick<Storage, 'getItem' | 'setItem'> | null;
  /** The (prefers-color-scheme: dark) query; null where there is none. */
  systemDark: Pick<MediaQueryList, 'matches' | 'addEventListener' | 'removeEventListener'> | null;
  root: Pick<HTMLElement, 'classList' | 'dataset'>;
  themeColorMetas(): Iterable<Pick<HTMLMetaElement, 'media' | 'content'>>;
}

export interface ThemeController {
  get(): ThemeState;
  setChoice(choice: ThemeChoice): void;
  /** Reads the stored choice again (another tab changed it). */
  reload(): void;
  subscribe(listener: () => void): () => void;
  stop(): void;
}

/** A stored value as a choice: anything unknown (or nothing) is System. */
export function parseChoice(value: string | null | undefined): ThemeChoice {
  return THEME_CHOICES.find((c) => c === value) ?? 'system';
}

export function resolveTheme(choice: ThemeChoice, systemDark: boolean): Theme {
  if (choice === 'system') return systemDark ? 'dark' : 'light';
  return choice;
}

export function createThemeController(host: ThemeHost): ThemeController {
  const listeners = new Set<() => void>();
  const readStored = (): ThemeChoice => {
    try {
      return parseChoice(host.storage?.getItem(THEME_STORAGE_KEY));
    } catch {
      return 'system'; // storage blocked (privacy settings): System, as if nothing were stored
    }
  };
  const stateFor = (choice: ThemeChoice): ThemeState => ({
    choice,
    theme: resolveTheme(choice, host.systemDark?.matches ?? false),
  });
  let state = stateFor(readStored());

  const apply = () => {
    const { choice, theme } = state;
    host.root.classList.toggle('dark', theme === 'dark');
    host.root.dataset.theme = theme;
    for (const meta of host.themeColorMetas()) {
      // Under System each meta keeps its own scheme (its media query); a choice sets both.
      const metaTheme: Theme = /dark/.test(meta.media) ? 'dark' : 'light';
      meta.content = THEME_COLOR[choice === 'system' ? metaTheme : theme];
    }
  };
  const update = (next: ThemeState) => {
    if (next.choice === state.choice && next.theme === state.theme) return;
    state = next;
    apply();
    for (const listener of listeners) listener();
  };
  const onSystemChange = () => update(stateFor(state.choice));

  apply();
  host.systemDark?.addEventListener('change', onSystemChange);

  return {
    get: () => state,
    setChoice(choice) {
      try {
        host.storage?.setItem(THEME_STORAGE_KEY, choice);
      } catch {
        // not remembered, but still shown for this visit
      }
      update(stateFor(choice));
    },
    reload: () => update(stateFor(readStored())),
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    stop: () => host.systemDark?.removeEventListener('change', onSystemChange),
  };
}

let browserTheme: ThemeController | null = null;

/** Applies the remembered theme to the page; called by main.tsx before React renders. */
export function startTheme(): ThemeController {
  if (browserTheme) return browserTheme;
  let storage: Storage | null = null;
  try {
    storage = window.localStorage;
  } catch {
    // no storage in this browser: System only
  }
  const controller = createThemeController({
    storage,
    systemDark: window.matchMedia?.('(prefers-color-scheme: dark)') ?? null,
    root: document.documentElement,
    themeColorMetas: () => document.querySelectorAll<HTMLMetaElement>('meta[name="theme-color"]'),
  });
  window.addEventListener('storage', (e) => {
    if (e.key === THEME_STORAGE_KEY || e.key === null) controller.reload();
  });
  browserTheme = controller;
  return controller;
}

/** The theme choice and what is shown, live, and a way to change the choice. */
export function useTheme(): ThemeState & { setChoice: (choice: ThemeChoice) => void } {
  const controller = startTheme();
  const state = useSyncExternalStore(controller.subscribe, controller.get);
  return { ...state, setChoice: controller.setChoice };
}

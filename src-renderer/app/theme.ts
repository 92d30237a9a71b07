import { setEditorTheme } from '../editor/monaco-setup';

/** The analyst's choice: follow the system (the default), or always light or dark. */
export type ThemeChoice = 'system' | 'light' | 'dark';

const storageKey = 'dwb:theme';
const darkQuery = '(prefers-color-scheme: dark)';

export function storedTheme(): ThemeChoice {
  const value = window.localStorage.getItem(storageKey);
  return value === 'light' || value === 'dark' ? value : 'system';
}

export function storeTheme(choice: ThemeChoice): void {
  if (choice === 'system') window.localStorage.removeItem(storageKey);
  else window.localStorage.setItem(storageKey, choice);
}

/**
 * Applies a choice to the page (`data-theme` on <html>, which the stylesheets key on) and to
 * the editors; with `system`, follows the OS setting as it changes. Returns the way to stop following.
 */
export function applyTheme(choice: ThemeChoice): () => void {
  const media = window.matchMedia(darkQuery);
  const apply = (): void => {
    const dark = choice === 'dark' || (choice === 'system' && media.matches);
    document.documentElement.dataset.theme = dark ? 'dark' : 'light';
    document.documentElement.style.colorScheme = dark ? 'dark' : 'light';
    setEditorTheme(dark);
  };
  apply();
  if (choice !== 'system') return () => undefined;
  media.addEventListener('change', apply);
  return () => media.removeEventListener('change', apply);
}

/**
 * The analyst's theme choice and where it is kept (localStorage), read by the store's ui slice.
 * Applying a choice to the page and the editors is the app shell's job (app/theme.ts).
 */

/** The analyst's choice: follow the system (the default), or always light or dark. */
export type ThemeChoice = 'system' | 'light' | 'dark';

const storageKey = 'dwb:theme';

export function storedTheme(): ThemeChoice {
  const value = window.localStorage.getItem(storageKey);
  return value === 'light' || value === 'dark' ? value : 'system';
}

export function storeTheme(choice: ThemeChoice): void {
  if (choice === 'system') window.localStorage.removeItem(storageKey);
  else window.localStorage.setItem(storageKey, choice);
}

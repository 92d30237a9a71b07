import { setEditorTheme } from '../editor/monaco-setup';
import type { ThemeChoice } from '../state/theme-choice';

const darkQuery = '(prefers-color-scheme: dark)';

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

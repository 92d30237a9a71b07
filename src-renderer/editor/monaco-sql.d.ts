// Monaco ships its SQL grammar without types for the module itself (only for its lazy contribution).
declare module 'monaco-editor/esm/vs/basic-languages/sql/sql' {
  import type { languages } from 'monaco-editor/esm/vs/editor/editor.api';
  export const conf: languages.LanguageConfiguration;
  export const language: languages.IMonarchLanguage;
}

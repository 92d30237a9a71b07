// The editor API plus its contributions (suggest, find, folding…); languages are added one by one.
import 'monaco-editor/esm/vs/editor/edcore.main';
import * as monaco from 'monaco-editor/esm/vs/editor/editor.api';
import { conf as sqlConfiguration, language as sqlGrammar } from 'monaco-editor/esm/vs/basic-languages/sql/sql';
import EditorWorker from 'monaco-editor/esm/vs/editor/editor.worker?worker';
import type { SchemaInfo } from '../../src-main/contract';
import { registerCypher } from './cypher-language';
import { registerPearl } from './pearl-language';
import { silenceMonacoCancellations } from './monaco-cancellations';
import { sqlCompletions, type IdentifierQuote } from './sql-completion';

// Monaco's language services run in a web worker bundled with the app: nothing is fetched.
self.MonacoEnvironment = { getWorker: () => new EditorWorker() };
silenceMonacoCancellations(window);

/**
 * SQL's grammar is registered here, in the app's own bundle. Monaco's `sql.contribution` loads
 * it as a separate chunk the first time a SQL editor appears; a chunk that cannot be fetched
 * then (the app rebuilt under an open page, so the old chunk is gone; a dropped connection)
 * left every SQL editor uncoloured until a reload, since Monaco keeps the failed load.
 */
monaco.languages.register({ id: 'sql', extensions: ['.sql'], aliases: ['SQL', 'sql'] });
monaco.languages.setMonarchTokensProvider('sql', sqlGrammar);
monaco.languages.setLanguageConfiguration('sql', sqlConfiguration);

monaco.editor.defineTheme('workbench', {
  base: 'vs',
  inherit: true,
  // Monaco's light theme draws SQL operators, strings and built-ins below 4.5:1 on white; these
  // keep its hues but pass WCAG AA (the E2E suite's axe-core audit checks them).
  rules: [
    { token: 'operator.sql', foreground: '4d5566' },
    { token: 'predefined.sql', foreground: '9c1a98' },
    { token: 'string.sql', foreground: 'b3261e' },
    { token: 'number', foreground: '0a7250' },
    { token: 'comment', foreground: '3f7a3f' },
    { token: 'type.action', foreground: '1f5fbf', fontStyle: 'bold' },
    { token: 'identifier.action', foreground: '8a4b00', fontStyle: 'underline' },
  ],
  colors: { 'editor.background': '#fbfcfe', 'editorLineNumber.foreground': '#6b7385' },
});

// The dark counterpart, with the same care for contrast on its background.
monaco.editor.defineTheme('workbench-dark', {
  base: 'vs-dark',
  inherit: true,
  rules: [
    { token: 'operator.sql', foreground: 'c5cbd8' },
    { token: 'predefined.sql', foreground: 'e59ae3' },
    { token: 'string.sql', foreground: 'f4a58a' },
    { token: 'number', foreground: '8fdcb6' },
    { token: 'comment', foreground: '8fc18f' },
    { token: 'keyword', foreground: '8fb4ff' },
  ],
  colors: {
    'editor.background': '#1a1f2b',
    'editorLineNumber.foreground': '#9aa3b5',
    // Selected text keeps every token colour at 4.5:1 or better (vs-dark's greys left the keyword
    // blue at 4.48:1 on a query selected in the review panel).
    'editor.selectionBackground': '#2b3345',
    'editor.inactiveSelectionBackground': '#2b3345',
    'editor.selectionHighlightBackground': '#2b3345',
    'editor.wordHighlightBackground': '#2b3345',
  },
});

let editorTheme: 'workbench' | 'workbench-dark' = 'workbench';

/** The editors' theme (Monaco's is global): set with the app's light or dark theme. */
export function setEditorTheme(dark: boolean): void {
  editorTheme = dark ? 'workbench-dark' : 'workbench';
  monaco.editor.setTheme(editorTheme);
}

/** The theme a new editor starts with, so creating one never switches the others back. */
export function currentEditorTheme(): string {
  return editorTheme;
}

/** Schema of the connection each editor model runs against, for completion. */
const schemaByModel = new Map<string, SchemaInfo>();
/** How the connection of each editor model quotes a name (MySQL's backticks), for SQL completion; absent: double quotes. */
const quoteByModel = new Map<string, IdentifierQuote>();

// Cypher (Neo4j, LadybugDB): highlighting and completion of labels, types and properties.
registerCypher(monaco, (model) => schemaByModel.get(model.uri.toString()));
// Pearl programs (the program cell): its own highlighting and completion of the library's actions.
registerPearl(monaco);

export function setModelSchema(model: monaco.editor.ITextModel, schema: SchemaInfo | undefined, quote: IdentifierQuote = '"'): void {
  if (schema) schemaByModel.set(model.uri.toString(), schema);
  else schemaByModel.delete(model.uri.toString());
  quoteByModel.set(model.uri.toString(), quote);
}

export function forgetModel(model: monaco.editor.ITextModel): void {
  schemaByModel.delete(model.uri.toString());
  quoteByModel.delete(model.uri.toString());
}

/**
 * SQL completion from the connection's schema (sql-completion.ts): catalogs, schemas, tables
 * and columns, part by part along a dotted name, and a table's columns after its alias.
 */
monaco.languages.registerCompletionItemProvider('sql', {
  triggerCharacters: ['.'],
  provideCompletionItems: (model, position) => {
    const schema = schemaByModel.get(model.uri.toString());
    if (!schema || schema.kind !== 'relational') return { suggestions: [] };
    const word = model.getWordUntilPosition(position);
    const range = new monaco.Range(position.lineNumber, word.startColumn, position.lineNumber, word.endColumn);
    const before = model.getValueInRange(new monaco.Range(position.lineNumber, 1, position.lineNumber, word.startColumn));
    const kinds = monaco.languages.CompletionItemKind;
    const kindOf = { catalog: kinds.Module, schema: kinds.Folder, table: kinds.Struct, view: kinds.Struct, column: kinds.Field } as const;
    return {
      suggestions: sqlCompletions(schema, { text: model.getValue(), before }, quoteByModel.get(model.uri.toString())).map((completion) => ({
        label: completion.label,
        kind: kindOf[completion.kind],
        detail: completion.detail,
        insertText: completion.insertText,
        range,
      })),
    };
  },
});

export { monaco };

import type * as Monaco from 'monaco-editor/esm/vs/editor/editor.api';
import type { ActionSignatureView, ProgramErrorView } from '../../src-main/contract';

/**
 * Pearl programs in Monaco (the program cell): a Monarch tokenizer for the two blocks
 * (`New actions:` then `1. out1 = ACTION(DB, "text", out0) : description`), where the library's
 * actions stand out from names the library does not have, and completion of the library's
 * actions (with their signature and definition) and of the outputs defined above the cursor.
 * The parser's errors become markers at the positions it reports.
 */
export const pearlLanguageId = 'pearl';

/** The actions each program editor's model may call, by model URI. */
const actionsByModel = new Map<string, ActionSignatureView[]>();
/** Every library action seen so far: the tokenizer marks these as known. */
const knownActions = new Set<string>();
let registered: typeof Monaco | null = null;

function tokens(): Monaco.languages.IMonarchLanguage {
  return {
    defaultToken: '',
    actions: [...knownActions],
    tokenizer: {
      root: [
        [/^\s*New actions:/, 'keyword'],
        [/^\s*\d+\s*[.)]/, 'number'],
        [/^\s*-\s*None\b/, 'keyword'],
        [/\bDB\b/, 'keyword'],
        [/"([^"\\]|\\.)*"/, 'string'],
        [/\b[A-Z][A-Z0-9_]*(?=\s*\()/, { cases: { '@actions': 'type.action', '@default': 'identifier.action' } }],
        [/\b[A-Za-z_]\w*\b/, 'variable'],
        [/\s:\s.*$/, 'comment'],
        [/[()]/, '@brackets'],
        [/[=,]/, 'delimiter'],
      ],
    },
  };
}

export function registerPearl(monaco: typeof Monaco): void {
  if (registered) return;
  registered = monaco;
  monaco.languages.register({ id: pearlLanguageId });
  monaco.languages.setMonarchTokensProvider(pearlLanguageId, tokens());
  monaco.languages.registerCompletionItemProvider(pearlLanguageId, {
    provideCompletionItems: (model, position) => {
      const word = model.getWordUntilPosition(position);
      const range = new monaco.Range(position.lineNumber, word.startColumn, position.lineNumber, word.endColumn);
      const kinds = monaco.languages.CompletionItemKind;
      const actions = (actionsByModel.get(model.uri.toString()) ?? []).map((action) => ({
        label: action.name,
        kind: kinds.Function,
        detail: `${action.name}(${action.params.join(', ')}${action.variadic ? ', …' : ''})`,
        documentation: action.definition ?? '',
        insertText: action.name,
        range,
      }));
      // The outputs of earlier lines, which a step may take as arguments.
      const above = model.getValueInRange(new monaco.Range(1, 1, position.lineNumber, 1));
      const outputs = [...above.matchAll(/^\s*\d+\s*[.)]\s*([A-Za-z_]\w*)\s*=/gm)].map((match) => ({
        label: match[1] ?? '',
        kind: kinds.Variable,
        detail: 'an earlier output',
        insertText: match[1] ?? '',
        range,
      }));
      return { suggestions: [...actions, ...outputs] };
    },
  });
}

/** Gives a program editor's model its library: completion offers these actions, highlighting knows them. */
export function setModelActions(model: Monaco.editor.ITextModel, actions: ActionSignatureView[]): void {
  actionsByModel.set(model.uri.toString(), actions);
  const before = knownActions.size;
  for (const action of actions) knownActions.add(action.name);
  if (registered && knownActions.size !== before) registered.languages.setMonarchTokensProvider(pearlLanguageId, tokens());
}

export function forgetModelActions(model: Monaco.editor.ITextModel): void {
  actionsByModel.delete(model.uri.toString());
}

/** The parser's errors as markers: each from the column it names to the end of its word (at least one character). */
export function setProgramMarkers(monaco: typeof Monaco, model: Monaco.editor.ITextModel, errors: readonly ProgramErrorView[]): void {
  const markers = errors.map((error) => {
    const line = Math.min(Math.max(1, error.line), model.getLineCount());
    const maxColumn = model.getLineMaxColumn(line);
    const column = Math.min(Math.max(1, error.column), maxColumn);
    const word = model.getWordAtPosition({ lineNumber: line, column });
    const end = word && word.endColumn > column ? word.endColumn : Math.min(column + 1, Math.max(maxColumn, column + 1));
    return { severity: monaco.MarkerSeverity.Error, message: error.message, startLineNumber: line, startColumn: column, endLineNumber: line, endColumn: end, source: 'Pearl parser', code: error.code };
  });
  monaco.editor.setModelMarkers(model, 'pearl-parser', markers);
}

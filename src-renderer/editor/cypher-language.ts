import type * as Monaco from 'monaco-editor/esm/vs/editor/editor.api';
import type { SchemaInfo } from '../../src-main/contract';

/**
 * Cypher for Monaco, used by query cells on Neo4j and LadybugDB connections: a Monarch tokenizer
 * (keywords, strings, numbers, comments, parameters, labels and relationship types after `:`)
 * and completion of labels, relationship types and properties from the connection's schema.
 */
export const cypherLanguageId = 'cypher';

type GraphSchemaInfo = Extract<SchemaInfo, { kind: 'graph' }>;

const keywords = [
  'MATCH', 'OPTIONAL', 'WHERE', 'RETURN', 'WITH', 'UNWIND', 'AS', 'ORDER', 'BY', 'ASC', 'ASCENDING', 'DESC', 'DESCENDING',
  'SKIP', 'LIMIT', 'DISTINCT', 'AND', 'OR', 'XOR', 'NOT', 'IN', 'IS', 'NULL', 'TRUE', 'FALSE', 'CASE', 'WHEN', 'THEN',
  'ELSE', 'END', 'UNION', 'ALL', 'CALL', 'YIELD', 'EXISTS', 'STARTS', 'ENDS', 'CONTAINS', 'EXPLAIN', 'PROFILE',
  'CREATE', 'MERGE', 'DELETE', 'DETACH', 'SET', 'REMOVE', 'ON', 'FOREACH', 'LOAD', 'CSV', 'FROM', 'HEADERS', 'USE', 'COUNT',
];

const functions = [
  'count', 'sum', 'avg', 'min', 'max', 'collect', 'stdev', 'percentileCont', 'percentileDisc', 'coalesce', 'toInteger',
  'toFloat', 'toString', 'toBoolean', 'size', 'length', 'labels', 'label', 'type', 'id', 'elementId', 'properties', 'keys',
  'nodes', 'relationships', 'startNode', 'endNode', 'head', 'last', 'tail', 'range', 'reverse', 'round', 'abs', 'ceil',
  'floor', 'sqrt', 'exp', 'log', 'sign', 'rand', 'lower', 'upper', 'toLower', 'toUpper', 'trim', 'substring', 'replace',
  'split', 'left', 'right', 'date', 'datetime', 'duration', 'timestamp', 'exists', 'any', 'none', 'single', 'reduce',
];

/** The shared part of both states: everything but `:label`, which only a pattern has. */
const common: Monaco.languages.IMonarchLanguageRule[] = [
  [/\/\/.*$/, 'comment'],
  [/\/\*/, 'comment', '@comment'],
  [/\$[A-Za-z_]\w*/, 'variable'],
  [/[A-Za-z_]\w*/, { cases: { '@keywords': 'keyword', '@functions': 'predefined', '@default': 'identifier' } }],
  [/`[^`]*`/, 'identifier'],
  [/\d+\.\d*([eE][-+]?\d+)?|\.\d+([eE][-+]?\d+)?|\d+[eE][-+]?\d+/, 'number.float'],
  [/0[xX][0-9a-fA-F]+/, 'number.hex'],
  [/\d+/, 'number'],
  [/'/, 'string', '@stringSingle'],
  [/"/, 'string', '@stringDouble'],
  [/[()[\]]/, '@brackets'],
  [/<>|<=|>=|=~|[=<>+\-*/%^]/, 'operator'],
  [/[;,.|]/, 'delimiter'],
];

const cypherTokens: Monaco.languages.IMonarchLanguage = {
  ignoreCase: true,
  defaultToken: '',
  keywords,
  functions,
  tokenizer: {
    root: [
      // A label or relationship type: `(n:Person)`, `[:TRADES]`, `:A:B`, `` :`Odd name` ``.
      [/(:)(\s*)([A-Za-z_]\w*|`[^`]*`)/, ['delimiter', 'white', 'type']],
      [/\{/, '@brackets', '@map'],
      ...common,
    ],
    // Inside `{…}` a name before `:` is a property key and the value after it is an expression.
    map: [[/\{/, '@brackets', '@map'], [/\}/, '@brackets', '@pop'], [/:/, 'delimiter'], ...common],
    comment: [
      [/[^/*]+/, 'comment'],
      [/\*\//, 'comment', '@pop'],
      [/[/*]/, 'comment'],
    ],
    stringSingle: [
      [/[^\\']+/, 'string'],
      [/\\./, 'string.escape'],
      [/'/, 'string', '@pop'],
    ],
    stringDouble: [
      [/[^\\"]+/, 'string'],
      [/\\./, 'string.escape'],
      [/"/, 'string', '@pop'],
    ],
  },
};

const configuration: Monaco.languages.LanguageConfiguration = {
  comments: { lineComment: '//', blockComment: ['/*', '*/'] },
  brackets: [
    ['(', ')'],
    ['[', ']'],
    ['{', '}'],
  ],
  autoClosingPairs: [
    { open: '(', close: ')' },
    { open: '[', close: ']' },
    { open: '{', close: '}' },
    { open: "'", close: "'", notIn: ['string'] },
    { open: '"', close: '"', notIn: ['string'] },
    { open: '`', close: '`', notIn: ['string'] },
  ],
};

/** What the cursor sits in, read from the text before it. */
export type CypherContext =
  | { kind: 'label' }
  | { kind: 'relationship-type' }
  | { kind: 'property'; variable: string }
  | { kind: 'other' };

/**
 * `(n:Per|` completes labels, `[r:TRA|` or `[:A|B|` relationship types, `n.na|` properties;
 * anything else keywords. The enclosing bracket decides between labels and types.
 */
export function cypherContext(textBefore: string): CypherContext {
  const property = /([A-Za-z_]\w*)\.\w*$/.exec(textBefore);
  if (property?.[1] !== undefined) return { kind: 'property', variable: property[1] };
  if (!/[:|]\s*`?\w*$/.test(textBefore)) return { kind: 'other' };
  let depth = 0;
  for (let index = textBefore.length - 1; index >= 0; index -= 1) {
    const char = textBefore[index];
    if (char === ')' || char === ']') depth += 1;
    else if (char === '(' || char === '[') {
      if (depth === 0) return char === '(' ? { kind: 'label' } : { kind: 'relationship-type' };
      depth -= 1;
    }
  }
  return { kind: 'label' };
}

/** The label or type a variable is bound to in the text (`(n:Label` or `[r:TYPE`), if written. */
export function boundElement(text: string, variable: string): { kind: 'label' | 'relationship-type'; name: string } | null {
  const escaped = variable.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`([(\\[])\\s*${escaped}\\s*:\\s*\`?([A-Za-z_][\\w ]*?)\`?\\s*[)\\]{:|]`).exec(text);
  if (match?.[2] === undefined) return null;
  return { kind: match[1] === '(' ? 'label' : 'relationship-type', name: match[2] };
}

function quoteIfNeeded(name: string): string {
  return /^[A-Za-z_]\w*$/.test(name) ? name : `\`${name.replace(/`/g, '``')}\``;
}

function propertiesFor(schema: GraphSchemaInfo, text: string, variable: string): { name: string; type: string; owner: string }[] {
  const bound = boundElement(text, variable);
  const elements = bound === null ? [...schema.labels, ...schema.relationshipTypes] : (bound.kind === 'label' ? schema.labels : schema.relationshipTypes).filter((element) => element.name === bound.name);
  const seen = new Set<string>();
  return elements.flatMap((element) =>
    element.properties.filter((property) => !seen.has(property.name) && seen.add(property.name)).map((property) => ({ ...property, owner: element.name })),
  );
}

export function registerCypher(monaco: typeof Monaco, schemaOf: (model: Monaco.editor.ITextModel) => SchemaInfo | undefined): void {
  monaco.languages.register({ id: cypherLanguageId, aliases: ['Cypher', 'cypher'] });
  monaco.languages.setMonarchTokensProvider(cypherLanguageId, cypherTokens);
  monaco.languages.setLanguageConfiguration(cypherLanguageId, configuration);
  monaco.languages.registerCompletionItemProvider(cypherLanguageId, {
    triggerCharacters: [':', '.', '|'],
    provideCompletionItems: (model, position) => {
      const word = model.getWordUntilPosition(position);
      const range = new monaco.Range(position.lineNumber, word.startColumn, position.lineNumber, word.endColumn);
      const before = model.getValueInRange(new monaco.Range(1, 1, position.lineNumber, word.startColumn));
      const kinds = monaco.languages.CompletionItemKind;
      const schema = schemaOf(model);
      const graph = schema?.kind === 'graph' ? schema : null;
      const context = cypherContext(before + word.word);
      if (context.kind === 'label' && graph) {
        return {
          suggestions: graph.labels.map((label) => ({ label: label.name, kind: kinds.Class, detail: `label · ${label.count ?? '?'} nodes`, insertText: quoteIfNeeded(label.name), range })),
        };
      }
      if (context.kind === 'relationship-type' && graph) {
        return {
          suggestions: graph.relationshipTypes.map((type) => ({
            label: type.name,
            kind: kinds.Interface,
            detail: `relationship · ${type.count ?? '?'} · ${(type.endpoints ?? []).join(', ')}`,
            insertText: quoteIfNeeded(type.name),
            range,
          })),
        };
      }
      if (context.kind === 'property' && graph) {
        return {
          suggestions: propertiesFor(graph, model.getValue(), context.variable).map((property) => ({
            label: property.name,
            kind: kinds.Field,
            detail: `${property.owner} · ${property.type || 'any'}`,
            insertText: quoteIfNeeded(property.name),
            range,
          })),
        };
      }
      return {
        suggestions: [
          ...keywords.map((keyword) => ({ label: keyword, kind: kinds.Keyword, insertText: keyword, range })),
          ...functions.map((name) => ({ label: name, kind: kinds.Function, insertText: `${name}(`, range })),
        ],
      };
    },
  });
}

import { useEffect, useLayoutEffect, useRef } from 'react';
import type { SchemaInfo } from '../../src-main/contract';
import { currentEditorTheme, forgetModel, monaco, setModelSchema } from './monaco-setup';
import type { IdentifierQuote } from './sql-completion';

interface QueryEditorProps {
  value: string;
  language: 'sql' | 'cypher' | 'plaintext';
  schema: SchemaInfo | undefined;
  /** How the connection quotes a name in SQL (MySQL and MariaDB: backticks), for completion; default double quotes. */
  identifierQuote?: IdentifierQuote;
  focused: boolean;
  onChange(value: string): void;
  onRun(options: { advance: boolean }): void;
  onCancel(): void;
  onFocus(): void;
  /** Names the editor for tests when a cell holds several (default `query-editor`). */
  testId?: string;
  /** Accessible name of the text area. */
  label?: string;
  /**
   * Whether Tab reaches the editor. Cells' editors are not in the Tab order (as in Jupyter,
   * Enter on the selected cell edits it, Esc leaves), so Tab and Shift+Tab move through the
   * notebook's controls instead of indenting inside each editor they pass.
   */
  tabbable?: boolean;
}

/** The editor living in each host element, so a cell can hand it the keyboard. */
const editorsByHost = new WeakMap<Element, monaco.editor.IStandaloneCodeEditor>();

/** Focuses the first editor inside `container`; false when it holds none. */
export function focusEditorIn(container: Element): boolean {
  for (const host of container.querySelectorAll('.query-editor')) {
    const editor = editorsByHost.get(host);
    if (editor) {
      editor.focus();
      return true;
    }
  }
  return false;
}

const lineHeight = 19;
const minLines = 3;
const maxLines = 24;

/** A Monaco editor sized to its content, with the notebook's run and cancel keys. */
export function QueryEditor(props: QueryEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const editorRef = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  // Handlers change on every render; the editor's key bindings read the latest through a ref.
  const latest = useRef(props);
  /**
   * Texts this editor reported and the parent has not rendered back yet. While typing, the
   * parent can render any of them (state updates lag behind keystrokes); only a value that is
   * none of them is a change from outside.
   */
  const unacknowledged = useRef<string[]>([]);
  useLayoutEffect(() => {
    latest.current = props;
  });

  useEffect(() => {
    if (!host.current) return;
    const editor = monaco.editor.create(host.current, {
      value: latest.current.value,
      language: latest.current.language,
      theme: currentEditorTheme(),
      minimap: { enabled: false },
      scrollBeyondLastLine: false,
      lineNumbers: 'on',
      lineNumbersMinChars: 3,
      fontSize: 13,
      lineHeight,
      automaticLayout: true,
      wordWrap: 'on',
      renderLineHighlight: 'none',
      overviewRulerLanes: 0,
      scrollbar: { alwaysConsumeMouseWheel: false },
      fixedOverflowWidgets: true,
      tabSize: 2,
      tabIndex: latest.current.tabbable ? 0 : -1,
      ...(latest.current.label ? { ariaLabel: latest.current.label } : {}),
    });
    editorRef.current = editor;
    editorsByHost.set(host.current, editor);
    const resize = (): void => {
      const lines = Math.min(maxLines, Math.max(minLines, editor.getModel()?.getLineCount() ?? minLines));
      if (host.current) host.current.style.height = `${lines * lineHeight + 10}px`;
      editor.layout();
    };
    resize();
    editor.onDidChangeModelContent(() => {
      resize();
      const text = editor.getValue();
      if (text === latest.current.value && unacknowledged.current.length === 0) return;
      unacknowledged.current.push(text);
      latest.current.onChange(text);
    });
    editor.onDidFocusEditorText(() => latest.current.onFocus());
    editor.addAction({
      id: 'dwb.run-advance',
      label: 'Run cell and go to the next',
      keybindings: [monaco.KeyMod.Shift | monaco.KeyCode.Enter],
      run: () => latest.current.onRun({ advance: true }),
    });
    editor.addAction({
      id: 'dwb.run',
      label: 'Run cell',
      keybindings: [monaco.KeyMod.CtrlCmd | monaco.KeyCode.Enter],
      run: () => latest.current.onRun({ advance: false }),
    });
    editor.addAction({
      id: 'dwb.cancel',
      label: 'Cancel the running query',
      keybindings: [monaco.KeyMod.CtrlCmd | monaco.KeyCode.Period],
      run: () => latest.current.onCancel(),
    });
    return () => {
      const model = editor.getModel();
      if (model) forgetModel(model);
      editor.dispose();
      model?.dispose();
    };
  }, []);

  useEffect(() => {
    const model = editorRef.current?.getModel();
    if (model) setModelSchema(model, props.schema, props.identifierQuote);
  }, [props.schema, props.identifierQuote]);

  // A cell moved to a connection of the other dialect switches between SQL and Cypher.
  useEffect(() => {
    const model = editorRef.current?.getModel();
    if (model && model.getLanguageId() !== props.language) monaco.editor.setModelLanguage(model, props.language);
  }, [props.language]);

  // Only outside changes (undo of a delete, another window) replace the text. The parent may
  // render an older value while typing continues, so our own edits are never written back.
  useEffect(() => {
    const editor = editorRef.current;
    if (!editor) return;
    const echoed = unacknowledged.current.lastIndexOf(props.value);
    if (echoed >= 0) {
      unacknowledged.current.splice(0, echoed + 1);
      return;
    }
    unacknowledged.current = [];
    if (editor.getValue() !== props.value) editor.setValue(props.value);
  }, [props.value]);

  useEffect(() => {
    if (props.focused) editorRef.current?.focus();
  }, [props.focused]);

  return <div className="query-editor" ref={host} data-testid={props.testId ?? 'query-editor'} />;
}

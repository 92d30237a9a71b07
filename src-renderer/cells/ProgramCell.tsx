import { useEffect, useRef, useState } from 'react';
import type { ActionSignatureView, Cell, ProgramErrorView } from '../../src-main/contract';
import { useWorkbench } from '../ui/store-context';
import { currentEditorTheme, monaco } from '../editor/monaco-setup';
import { forgetModelActions, pearlLanguageId, setModelActions, setProgramMarkers } from '../editor/pearl-language';
import { CellFrame } from './CellFrame';
import { isProgramError, ProgramAttempts, readAttempts } from './ProgramAttempts';

/** What a `pearl-program` event keeps (engine/techniques/pearl/technique.ts), read defensively: old or hand-edited notebooks may lack parts. */
interface ProgramRecord {
  attempt: string;
  program: string;
  valid: boolean;
  errors: ProgramErrorView[];
  actions: ActionSignatureView[] | null;
  /** The actions the program defines for itself (recorded for the model's valid programs). */
  newActions: string[];
}

function readRecord(cell: Cell): ProgramRecord | null {
  const input = (cell.data as { input?: unknown }).input;
  if (typeof input !== 'object' || input === null) return null;
  const record = input as Record<string, unknown>;
  if (typeof record['program'] !== 'string') return null;
  const errors = Array.isArray(record['errors']) ? (record['errors'] as unknown[]).filter(isProgramError) : [];
  const library = record['library'] as { signatures?: unknown } | undefined;
  const actions = Array.isArray(library?.signatures) ? (library.signatures as ActionSignatureView[]) : null;
  const attempt = record['attempt'];
  const max = record['maxAttempts'];
  return {
    attempt: typeof attempt === 'number' ? `attempt ${attempt}${typeof max === 'number' ? ` of ${max}` : ''}` : typeof attempt === 'string' ? `${attempt.startsWith('analyst') ? 'by the analyst' : attempt}` : '',
    program: record['program'],
    valid: record['valid'] === true,
    errors,
    actions,
    newActions: Array.isArray(record['newActions']) ? (record['newActions'] as unknown[]).filter((name): name is string => typeof name === 'string') : [],
  };
}

/** The library a run's programs were checked against: this cell's, else the run's first program cell that names it. */
function useRunActions(cell: Cell, own: ActionSignatureView[] | null): ActionSignatureView[] | null {
  const runId = cell.provenance.runId;
  return useWorkbench((state) => {
    if (own) return own;
    for (const other of state.cells) {
      if (other.provenance.runId !== runId || (other.data as { tool?: string }).tool !== 'pearl-program') continue;
      const found = readRecord(other)?.actions;
      if (found) return found;
    }
    return null;
  });
}

/**
 * Pearl's program cell: the program a run planned (or the analyst edited), in an editor with
 * the program language's highlighting and the parser's errors as markers. The analyst edits it,
 * the real parser checks it as they type (in the main process, against the run's library), and
 * a valid program runs again as a new run of the same question: at once, or paused before it
 * runs (step by step). Each step's cell and the checked decision follow below as they come.
 * The planner's attempts are gathered in this one cell (the accepted, or last, program in the
 * editor; every attempt with the parser's reasons in a list that opens).
 */
export function ProgramCell({ cell }: { cell: Cell }) {
  // A new attempt arriving during the run starts the editor afresh on its program.
  return <ProgramCellBody key={readAttempts(cell).length} cell={cell} />;
}

function ProgramCellBody({ cell }: { cell: Cell }) {
  const record = readRecord(cell);
  const attempts = readAttempts(cell);
  const actions = useRunActions(cell, record?.actions ?? null);
  const checkProgram = useWorkbench((state) => state.checkProgram);
  const runProgram = useWorkbench((state) => state.runProgram);
  const promoteProgramActions = useWorkbench((state) => state.promoteProgramActions);
  const reportError = useWorkbench((state) => state.reportError);
  const original = record?.program ?? '';
  const [text, setText] = useState(original);
  const [verdict, setVerdict] = useState<{ text: string; valid: boolean; errors: ProgramErrorView[]; newActions: string[] }>({ text: original, valid: record?.valid ?? false, errors: record?.errors ?? [], newActions: record?.newActions ?? [] });
  const [started, setStarted] = useState<string | null>(null);
  const [promoted, setPromoted] = useState<string | null>(null);
  const [resetSeq, setResetSeq] = useState(0);

  // The parser's verdict on the text as edited, a moment after typing stops.
  useEffect(() => {
    if (!actions || text === verdict.text) return;
    const timer = window.setTimeout(() => {
      checkProgram(text, actions)
        .then((result) => setVerdict({ text, valid: result.valid, errors: result.errors, newActions: result.newActions }))
        .catch((error: unknown) => reportError(error, 'Could not check the program'));
    }, 250);
    return () => window.clearTimeout(timer);
  }, [text, actions, verdict.text, checkProgram, reportError]);

  if (!record) return null;
  const current = verdict.text === text;
  const runId = cell.provenance.runId;
  const run = (mode: 'auto' | 'step'): void => {
    if (!runId) return;
    setStarted(mode === 'step' ? 'A new run starts and pauses before the program runs, so you can review it.' : 'A new run carries out this program; its steps follow below.');
    void runProgram(runId, text, mode).catch((error: unknown) => {
      setStarted(null);
      reportError(error, 'Could not run the program');
    });
  };
  const promote = (): void => {
    if (!runId) return;
    setPromoted(null);
    promoteProgramActions(runId, text)
      .then((saved) => setPromoted(`${verdict.newActions.join(', ')} kept in ${saved.name}, now version ${saved.version}.`))
      .catch((error: unknown) => reportError(error, 'Could not keep the new actions'));
  };
  return (
    <CellFrame cell={cell}>
      <div className="card-body program-cell" data-testid="program-cell">
        <div className="program-heading">
          <strong>Pearl program</strong> <span className="muted">{record.attempt}</span>
          <span className={`program-verdict ${current ? (verdict.valid ? 'valid' : 'invalid') : 'checking'}`} data-testid="program-verdict" role="status">
            {!current ? 'checking…' : verdict.valid ? 'the parser accepts it' : `${verdict.errors.length} parser error${verdict.errors.length === 1 ? '' : 's'}`}
          </span>
        </div>
        {attempts.length > 1 && (
          <ProgramAttempts
            attempts={attempts}
            onEdit={(program) => {
              setText(program);
              setResetSeq((seq) => seq + 1);
            }}
          />
        )}
        <ProgramEditor value={text} resetSeq={resetSeq} actions={actions ?? []} errors={current ? verdict.errors : []} onChange={setText} label={`Pearl program (${record.attempt})`} />
        {current && verdict.errors.length > 0 && (
          <ul className="program-errors" data-testid="program-errors">
            {verdict.errors.map((error, index) => (
              <li key={index}>
                line {error.line}, column {error.column}: {error.message}
              </li>
            ))}
          </ul>
        )}
        <div className="program-actions">
          <button className="primary small" data-testid="program-run" disabled={!runId || !current || !verdict.valid} onClick={() => run('auto')}>
            ▶ Run program
          </button>
          <button className="ghost small" data-testid="program-run-step" disabled={!runId || !current || !verdict.valid} onClick={() => run('step')}>
            Run step by step
          </button>
          {runId && current && verdict.valid && verdict.newActions.length > 0 && (
            <button className="ghost small" data-testid="program-promote" title="New actions stay local to this program unless kept in the library its run planned with" onClick={promote}>
              Keep {verdict.newActions.join(', ')} in the library
            </button>
          )}
          {text !== original && (
            <button className="ghost small" data-testid="program-revert" onClick={() => {
                setText(original);
                setResetSeq((seq) => seq + 1);
              }}
            >
              Undo my edits
            </button>
          )}
          {!actions && <span className="muted">This run did not record its action library, so the program cannot be checked here.</span>}
          {started && <span className="muted" role="status">{started}</span>}
          {promoted && (
            <span className="muted" role="status" data-testid="program-promoted">
              {promoted}
            </span>
          )}
        </div>
      </div>
    </CellFrame>
  );
}

const lineHeight = 19;

/** A Monaco editor for one program: the Pearl language, the run's actions for completion, the parser's errors as markers. */
function ProgramEditor({ value, resetSeq, actions, errors, onChange, label }: { value: string; resetSeq: number; actions: ActionSignatureView[]; errors: ProgramErrorView[]; onChange(value: string): void; label: string }) {
  const host = useRef<HTMLDivElement>(null);
  const editorRef = useRef<monaco.editor.IStandaloneCodeEditor | null>(null);
  const latestChange = useRef(onChange);
  const latestValue = useRef(value);
  useEffect(() => {
    latestChange.current = onChange;
    latestValue.current = value;
  });

  useEffect(() => {
    if (!host.current) return;
    const editor = monaco.editor.create(host.current, {
      value,
      language: pearlLanguageId,
      // The app's current theme: a fixed one would switch every editor (Monaco's theme is global) to light in dark mode.
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
      ariaLabel: label,
    });
    editorRef.current = editor;
    const resize = (): void => {
      const lines = Math.min(30, Math.max(4, editor.getModel()?.getLineCount() ?? 4));
      if (host.current) host.current.style.height = `${lines * lineHeight + 10}px`;
      editor.layout();
    };
    resize();
    editor.onDidChangeModelContent(() => {
      resize();
      latestChange.current(editor.getValue());
    });
    return () => {
      const model = editor.getModel();
      if (model) forgetModelActions(model);
      editor.dispose();
      model?.dispose();
    };
    // The editor is made once; later values come through the effect below.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  // "Undo my edits" puts the original back. Only then does text flow into the editor: while the
  // analyst types, the parent's state lags behind the keystrokes and must not overwrite them.
  useEffect(() => {
    const editor = editorRef.current;
    if (editor && resetSeq > 0) editor.setValue(latestValue.current);
  }, [resetSeq]);

  useEffect(() => {
    const model = editorRef.current?.getModel();
    if (model) setModelActions(model, actions);
  }, [actions]);

  useEffect(() => {
    const model = editorRef.current?.getModel();
    if (model) setProgramMarkers(monaco, model, errors);
  }, [errors]);

  return <div ref={host} className="query-editor program-editor" data-testid="program-editor" />;
}

import { useEffect, useState } from 'react';
import type { TechniqueIdValue } from '../../src-main/contract';
import { useWorkbench } from '../ui/store-context';
import type { RunDraft } from '../state/runs-slice';
import { ActionLibraryPicker } from './ActionLibraryPicker';
import { CheckPlanFields } from './CheckPlanFields';
import { DellmaSettings } from './DellmaSettings';
import { FidelitySetting } from './FidelitySetting';
import { RunDocumentsNote } from './RunDocumentsNote';
import { reviewWords } from './review-words';
import { dellmaSizeProblem } from './request-problem';
import { dellmaOptionsProblem, type DellmaRunSettingsInput } from '../../src-main/contract/dellma';

/** Where a decision run is set up: question, business rules, data, technique and mode. */
export function RunComposer({ draft }: { draft: RunDraft }) {
  const connections = useWorkbench((state) => state.connections);
  const model = useWorkbench((state) => state.model);
  // A local model selected in the model manager is used instead of the endpoint (run-manager.ts).
  const localModelSelected = useWorkbench((state) => state.localModels?.selectedId != null);
  const hasModel = Boolean(model?.settings) || localModelSelected;
  const startRun = useWorkbench((state) => state.startRun);
  const closeRunDraft = useWorkbench((state) => state.closeRunDraft);
  // The techniques come from the main process's registry, so a new one shows here by itself.
  const techniqueOptions = useWorkbench((state) => state.techniques);
  const loadTechniques = useWorkbench((state) => state.loadTechniques);
  useEffect(() => {
    if (techniqueOptions.length === 0) void loadTechniques().catch(() => undefined);
  }, [techniqueOptions.length, loadTechniques]);
  const [form, setForm] = useState(draft);
  // What step-through stops for, as the chosen technique declares it (runs/techniques).
  const declaredReviews = techniqueOptions.find((option) => option.id === form.technique)?.reviews;
  const reviewed = declaredReviews ? reviewWords(declaredReviews) : null;
  const stepThroughNote = declaredReviews === undefined ? '' : reviewed ? `(review ${reviewed})` : '(this technique never stops for a review)';
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // A temperature typed out of range keeps the run from starting until it is corrected or cleared.
  const [temperatureValid, setTemperatureValid] = useState(true);
  const update = (change: Partial<RunDraft>): void => setForm({ ...form, ...change });
  /** The chosen technique's own options (its panel's); each technique keeps its own while another is chosen. */
  const ownOptions: Record<string, unknown> = form.techniqueOptions?.[form.technique] ?? {};
  const setOwnOptions = (options: Record<string, unknown>): void => update({ techniqueOptions: { ...form.techniqueOptions, [form.technique]: options } });
  const whatIfSupport = useWorkbench((state) => state.whatIfSupport);
  /** Why the chosen data cannot host what-if experiments (the tool is then not offered), or null. */
  const [whatIfUnavailable, setWhatIfUnavailable] = useState<string | null>(null);
  /** Whether experiments run on a local copy of a server's tables rather than a copy of a file. */
  const [whatIfOnServerCopy, setWhatIfOnServerCopy] = useState(false);
  useEffect(() => {
    let current = true;
    setWhatIfUnavailable(null);
    setWhatIfOnServerCopy(false);
    if (form.connectionId) {
      whatIfSupport(form.connectionId)
        .then(({ reason, note }) => {
          if (!current) return;
          setWhatIfUnavailable(reason);
          setWhatIfOnServerCopy(note !== null);
        })
        .catch(() => undefined);
    }
    return () => {
      current = false;
    };
  }, [form.connectionId, whatIfSupport]);

  const listPlaybooks = useWorkbench((state) => state.listPlaybooks);
  const [pinned, setPinned] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    if (form.technique === 'autoplan') {
      listPlaybooks()
        .then((tasks) => {
          if (!current) return;
          const names = tasks.flatMap((task) => (task.pinned === null ? [] : [`${task.scenario} × ${task.db === 'rdb' ? 'relational' : 'graph'} ${task.pinned.slice(0, 12)}`]));
          setPinned(names.length === 0 ? 'No playbook is pinned (Playbooks in the sidebar): AutoPlan needs one, so the run will be refused.' : `Follows the pinned playbook of the data's kind: ${names.join('; ')}.`);
        })
        .catch(() => undefined);
    }
    return () => {
      current = false;
    };
  }, [form.technique, listPlaybooks]);

  // DeLLMa weighs the options the question lists; without two, Start stays off and says why.
  const optionsProblem = form.technique === 'dellma' ? dellmaOptionsProblem(form.question) : null;

  const start = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      // Only the chosen technique's own options go with the run (startRun picks them from techniqueOptions).
      const { temperature: _typed, ...rest } = form;
      await startRun({ ...rest, ...(form.temperature !== undefined ? { temperature: form.temperature } : {}) });
    } catch (caught) {
      setError(dellmaSizeProblem(caught instanceof Error ? caught.message : String(caught)));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section
      className="run-composer"
      data-testid="run-composer"
      aria-label="New decision run"
      onKeyDown={(event) => {
        // The keyboard's way through the form: Ctrl/Cmd+Enter starts the run, Esc closes the form.
        if (event.key === 'Enter' && (event.ctrlKey || event.metaKey) && !busy && temperatureValid && optionsProblem === null && form.question.trim() && form.connectionId && model?.settings) {
          event.preventDefault();
          void start();
        } else if (event.key === 'Escape' && !event.defaultPrevented) {
          event.preventDefault();
          closeRunDraft();
        }
      }}
    >
      <header className="composer-header">
        <h2>Ask the model to decide</h2>
        <button className="icon" aria-label="Close" onClick={closeRunDraft}>
          ✕
        </button>
      </header>
      <label>
        Decision question
        <textarea aria-label="Decision question" autoFocus rows={questionRows(form.question)} value={form.question} onChange={(event) => update({ question: event.target.value })} />
      </label>
      <details open={form.rules.length > 0 && form.rules.length < 400}>
        <summary>Business rules {form.rules ? `(${form.rules.length} characters)` : '(optional)'}</summary>
        <textarea aria-label="Business rules" rows={6} value={form.rules} onChange={(event) => update({ rules: event.target.value })} />
      </details>
      <div className="composer-row">
        <label>
          Data
          <select aria-label="Run connection" value={form.connectionId} onChange={(event) => update({ connectionId: event.target.value })}>
            {connections.map((connection) => (
              <option key={connection.id} value={connection.id}>
                {connection.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Technique
          <select aria-label="Technique" value={form.technique} onChange={(event) => update({ technique: event.target.value as TechniqueIdValue })}>
            {techniqueOptions.map((option) => (
              <option key={option.id} value={option.id} title={option.summary}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
        <fieldset className="mode">
          <legend>Mode</legend>
          <label>
            <input type="radio" name="mode" checked={form.mode === 'auto'} onChange={() => update({ mode: 'auto' })} /> Automatic
          </label>
          <label>
            <input type="radio" name="mode" checked={form.mode === 'step'} onChange={() => update({ mode: 'step' })} aria-label="Step-through" /> Step-through{' '}
            <span data-testid="step-through-reviews">{stepThroughNote}</span>
          </label>
        </fieldset>
      </div>
      {form.technique === 'pearl' && (
        <ActionLibraryPicker
          connectionId={form.connectionId}
          value={typeof ownOptions['actionLibrary'] === 'string' ? ownOptions['actionLibrary'] : undefined}
          onChange={(id) => setOwnOptions(id ? { actionLibrary: id } : {})}
        />
      )}
      <RunDocumentsNote technique={form.technique} />
      {form.technique === 'dellma' && <DellmaSettings question={form.question} rules={form.rules} value={ownOptions as DellmaRunSettingsInput} onChange={(dellma) => setOwnOptions(dellma)} />}
      <FidelitySetting
        techniques={techniqueOptions.filter((option) => option.id === form.technique)}
        fidelity={form.fidelity}
        onChange={(choice) => {
          const { temperature: _previous, ...rest } = form;
          setTemperatureValid(choice.temperatureValid);
          setForm({ ...rest, fidelity: choice.fidelity, ...(choice.temperature !== undefined ? { temperature: choice.temperature } : {}) });
        }}
      />
      <label className="inline-setting">
        Simulator check
        <select aria-label="Simulator check" value={form.simulatorRules} onChange={(event) => update({ simulatorRules: event.target.value as RunDraft['simulatorRules'] })}>
          <option value="stated">Business rules as stated</option>
          <option value="compat">DQA-compatible rules</option>
          <option value="off">Off</option>
        </select>
        <span className="muted">
          {form.fidelity === 'paper'
            ? 'When a simulator fits the data, the decision is checked against it (at paper fidelity the model is not offered it).'
            : 'When a simulator fits the data, the model may call it and the decision is checked against it.'}
        </span>
      </label>
      <CheckPlanFields draft={form} onChange={(known) => update({ known })} />
      <label className="inline-setting">
        <input
          type="checkbox"
          aria-label="Offer what-if experiments"
          checked={form.whatIf && whatIfUnavailable === null && form.fidelity !== 'paper'}
          disabled={whatIfUnavailable !== null || form.fidelity === 'paper'}
          onChange={(event) => update({ whatIf: event.target.checked })}
        />
        What-if experiments
        <span className="muted" data-testid="whatif-offer-note">
          {whatIfUnavailable !== null
            ? `Not offered: ${whatIfUnavailable}.`
            : form.fidelity === 'paper'
              ? 'Not offered at paper fidelity: the papers retrieve only.'
              : whatIfOnServerCopy
              ? 'The model may test candidate changes on a local DuckDB copy of the tables it names (the server is only read).'
              : 'The model may test candidate changes on a throwaway copy of the data (the data itself never changes).'}
        </span>
      </label>
      {optionsProblem !== null && form.question.trim() && (
        <p className="warning" id="start-blocked" data-testid="start-blocked">
          {optionsProblem}.
        </p>
      )}
      {!hasModel && <p className="warning">Set up a model endpoint or add a local model first (Model › Set up, in the sidebar).</p>}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <footer className="composer-footer">
        <span className="muted">
          {techniqueOptions.find((option) => option.id === form.technique)?.summary}
          {form.technique === 'autoplan' && pinned !== null && <span data-testid="playbook-note"> {pinned}</span>}
        </span>
        <span className="spacer" />
        <button className="primary" data-testid="start-run" title="Ctrl+Enter"
          disabled={busy || !form.question.trim() || !form.connectionId || !hasModel || !temperatureValid || optionsProblem !== null}
          {...(optionsProblem !== null && form.question.trim() ? { 'aria-describedby': 'start-blocked' } : {})} onClick={() => void start()}>
          {busy ? 'Starting…' : '▶ Start run'}
        </button>
      </footer>
    </section>
  );
}

/** Tall enough to show every line of a question (Options, Unknowns, What-if lines are read line by line), up to 12. */
function questionRows(question: string): number {
  return Math.min(12, Math.max(3, question.split('\n').length + 1));
}

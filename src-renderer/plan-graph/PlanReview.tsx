import { useMemo, useState } from 'react';
import { reviewKeyOf, type ReviewDecisionInput, type ReviewRequestValue } from '../../src-main/contract';
import { citedIds, readEditedPlan, type PlanGraph } from '../../src-main/contract/plan-dag-plan';
import { layoutPlanGraph } from '../../src-main/contract/plan-graph';
import { useWorkbench } from '../ui/store-context';
import { QueryEditor } from '../editor/QueryEditor';
import { PlanFlowCanvas } from './PlanGraphView';
import { addNode, parseDraft, relabelDraft, removeNode, setFinal, updateNode, type DraftNode, type DraftPlan } from './plan-draft';

type PlanRequest = Extract<ReviewRequestValue, { subject: 'plan' }>;

/**
 * Step-through review of a Plan*RAG plan before it runs [ext: the paper runs its plan unseen].
 * The plan JSON is the one source of truth: the form (questions, parents, pins, nodes added or
 * removed) rewrites it, the JSON editor edits it directly, and the planner's own validation
 * runs on every change, so a broken edit says what is wrong and keeps the analyst's text.
 */
export function PlanReview({ runId, request }: { runId: string; request: PlanRequest }) {
  const reviewRun = useWorkbench((state) => state.reviewRun);
  const reportError = useWorkbench((state) => state.reportError);
  const [text, setText] = useState(request.plan);
  const [sent, setSent] = useState(false);
  const [selected, setSelected] = useState<string | null>(null);
  const reading = useMemo(() => readEditedPlan(text), [text]);
  const draft = useMemo(() => parseDraft(text), [text]);
  // While an edit is invalid the graph keeps showing the last valid plan.
  const [lastValid, setLastValid] = useState<PlanGraph | null>(() => {
    const first = readEditedPlan(request.plan);
    return first.ok ? first.graph : null;
  });
  const shown = reading.ok ? reading.graph : lastValid;
  // One state: when the validation relabels nodes (levels recomputed from the edges), the JSON
  // and so the form take the new ids at once, so the graph, the form and the JSON agree.
  const changeText = (typed: string): void => {
    const checked = readEditedPlan(typed);
    const renamed = checked.ok ? checked.graph.renamed : undefined;
    const typedDraft = renamed && Object.keys(renamed).length > 0 ? parseDraft(typed) : null;
    setText(typedDraft && renamed ? JSON.stringify(relabelDraft(typedDraft, renamed), null, 2) : typed);
    if (checked.ok) setLastValid(checked.graph);
  };
  const layout = useMemo(
    () => (shown ? layoutPlanGraph(shown.nodes.map((node) => ({ id: node.id, text: node.pinned !== undefined ? `${node.question} [pinned: ${node.pinned}]` : node.question, dependsOn: node.parents }))) : null),
    [shown],
  );
  const changed = text.trim() !== request.plan.trim();

  const answer = (decision: ReviewDecisionInput): void => {
    setSent(true);
    void reviewRun({ runId, key: reviewKeyOf(request) }, decision).catch((error: unknown) => {
      setSent(false);
      reportError(error, 'Could not answer the run');
    });
  };
  const approve = (): void => {
    if (!reading.ok || sent) return;
    answer(changed ? { action: 'edit', plan: text } : { action: 'approve' });
  };
  const edit = (change: (plan: DraftPlan) => DraftPlan): void => {
    if (draft) changeText(JSON.stringify(change(draft), null, 2));
  };
  const select = (id: string): void => {
    setSelected(id);
    document.getElementById(questionFieldId(id))?.focus();
  };

  return (
    <div className="review-panel plan-review" data-testid="plan-review">
      <p className="review-title">The plan graph waits for you before it runs.</p>
      <p className="muted small">Reviewing, editing and pinning answers before the run are extensions beyond the Plan*RAG paper, which runs its plan unseen.</p>
      {request.problem && (
        <p className="error" data-testid="plan-review-refused">
          The run refused your last edit: {request.problem}
        </p>
      )}
      {layout && (
        <>
          <p className="plan-graph-summary muted small">
            {layout.levels.length} level{layout.levels.length === 1 ? '' : 's'} · widths {layout.levels.map((level) => level.length).join(', ')} · final {shown?.final}
            {!reading.ok && ' · showing the last valid plan'}
          </p>
          <PlanFlowCanvas layout={layout} selected={selected} onSelect={select} height={Math.min(360, Math.max(140, layout.height + 24))} />
        </>
      )}
      {reading.ok ? (
        reading.graph.warnings.length > 0 && (
          <ul className="plan-review-warnings small" data-testid="plan-review-warnings">
            {reading.graph.warnings.map((warning) => (
              <li key={warning}>{warning}</li>
            ))}
          </ul>
        )
      ) : (
        <p className="error" role="alert" data-testid="plan-review-error">
          This plan cannot run: {reading.error}
        </p>
      )}
      <div className="plan-review-body">
        <div className="plan-review-form">
          {draft ? (
            <>
              {draft.nodes.map((node, index) => (
                <NodeForm
                  key={`${index}:${node.id}`}
                  node={node}
                  others={draft.nodes.filter((other) => other !== node).map((other) => other.id)}
                  final={draft.final === node.id}
                  invalid={!reading.ok && mentions(reading.error, node.id)}
                  selected={selected === node.id}
                  onChange={(change) => edit((plan) => updateNode(plan, index, change))}
                  onRemove={() => edit((plan) => removeNode(plan, index))}
                  onFinal={() => edit((plan) => setFinal(plan, node.id))}
                />
              ))}
              <button className="ghost small" data-testid="plan-review-add" onClick={() => edit(addNode)}>
                + Add node
              </button>
            </>
          ) : (
            <p className="muted small">The form needs a JSON object with a list of nodes; fix the JSON beside it.</p>
          )}
        </div>
        <div className="plan-review-json">
          <span className="muted small">Plan JSON</span>
          <QueryEditor value={text} language="plaintext" schema={undefined} focused={false} onChange={changeText} onRun={approve} onCancel={() => undefined} onFocus={() => undefined} testId="plan-review-json" label="Plan JSON" />
        </div>
      </div>
      <div className="review-actions">
        <button className="primary" data-testid="review-approve" disabled={sent || !reading.ok} onClick={approve} title="Ctrl+Enter in the JSON editor">
          {changed ? 'Run my plan' : 'Run this plan'}
        </button>
        {changed && (
          <button className="ghost" disabled={sent} onClick={() => changeText(request.plan)}>
            Revert edit
          </button>
        )}
        <span className="spacer" />
        <button className="ghost" data-testid="review-stop" disabled={sent} onClick={() => answer({ action: 'stop' })} title="End the run here and continue by hand">
          Stop &amp; continue by hand
        </button>
      </div>
    </div>
  );
}

function NodeForm(props: { node: DraftNode; others: string[]; final: boolean; invalid: boolean; selected: boolean; onChange(change: Partial<DraftNode>): void; onRemove(): void; onFinal(): void }) {
  const { node, others } = props;
  const cited = new Set(citedIds(node.question));
  const parents = new Set(node.parents ?? []);
  return (
    <fieldset className={`plan-review-node${props.selected ? ' selected' : ''}`} aria-invalid={props.invalid || undefined} data-testid="plan-review-node" data-node-id={node.id}>
      <legend>
        <strong>{node.id}</strong>
        {props.final ? (
          <span className="plan-node-status">final</span>
        ) : (
          <button className="ghost small" onClick={props.onFinal}>
            Make final
          </button>
        )}
        <button className="ghost small" aria-label={`Remove ${node.id}`} title={`Remove ${node.id} and its edges`} onClick={props.onRemove}>
          ✕
        </button>
      </legend>
      <textarea id={questionFieldId(node.id)} aria-label={`Question of ${node.id}`} rows={2} value={node.question} onChange={(event) => props.onChange({ question: event.target.value })} />
      {others.length > 0 && (
        <div className="plan-review-parents small" role="group" aria-label={`Parents of ${node.id}`}>
          <span className="muted">Parents:</span>
          {others.map((id) => (
            <label key={id} title={cited.has(id) ? `The question cites <A${id.slice(1)}>, so ${id} is a parent` : undefined}>
              <input
                type="checkbox"
                checked={parents.has(id) || cited.has(id)}
                disabled={cited.has(id)}
                onChange={(event) => props.onChange({ parents: event.target.checked ? [...parents, id] : [...parents].filter((parent) => parent !== id) })}
              />
              {id}
            </label>
          ))}
        </div>
      )}
      <div className="plan-review-options small">
        <label>
          <input type="checkbox" checked={node.compute === true} onChange={(event) => props.onChange({ compute: event.target.checked || undefined })} /> computed from parents, no query
        </label>
        <label>
          Pinned answer <span className="muted">[ext]</span>{' '}
          <input aria-label={`Pinned answer of ${node.id}`} placeholder="none: the node runs" value={node.pinned ?? ''} onChange={(event) => props.onChange({ pinned: event.target.value === '' ? undefined : event.target.value })} />
        </label>
      </div>
    </fieldset>
  );
}

const questionFieldId = (id: string): string => `plan-review-question-${id.replace('.', '-')}`;

/** Whether a validation message names this node (as an id, not as part of a longer one). */
function mentions(error: string, id: string): boolean {
  return new RegExp(`(^|[^\\w.])${id.replace('.', '\\.')}(?![\\w]|\\.\\d)`).test(error);
}

import { useRef, useState } from 'react';
import { reviewKeyOf, type ReviewDecisionInput, type ReviewRequestValue } from '../../src-main/contract';
import { useWorkbench } from '../ui/store-context';
import { QueryEditor } from '../editor/QueryEditor';
import { PlanReview } from '../plan-graph/PlanReview';

/** What the panel asks of the analyst, by what the run is waiting on. */
function reviewTitle(request: Exclude<ReviewRequestValue, { subject: 'plan' }>): string {
  // A plan node's query (Plan*RAG) says which node it answers and the node's question, tags filled.
  if (request.subject === 'query') return request.node ? `The model wants to run this query for ${request.node}${request.question ? ` (${request.question})` : ''}:` : 'The model wants to run this query:';
  if (request.subject === 'forecast') return `The forecast waits for you: change likelihoods in its cell above. ${request.reason}`;
  if (request.subject === 'ranking') return request.reason;
  if (request.node === 'program') return request.reason;
  return `The model wants to re-plan: ${request.reason}`;
}

/**
 * Step-through: the model's next query (or new plan) waits here. The analyst approves it,
 * edits and runs their version, skips it, adds a note the model will see, or stops the run to
 * continue by hand. Whatever is chosen is recorded as the analyst's.
 */
export function ReviewPanel({ runId, request, language }: { runId: string; request: ReviewRequestValue; language: 'sql' | 'cypher' }) {
  if (request.subject === 'plan') return <PlanReview key={`${request.step}:${request.problem ?? ''}`} runId={runId} request={request} />;
  // Keyed by the review: when the next waiting review follows at once, the panel starts afresh.
  return <StepReview key={reviewKeyOf(request)} runId={runId} request={request} language={language} />;
}

function StepReview({ runId, request, language }: { runId: string; request: Exclude<ReviewRequestValue, { subject: 'plan' }>; language: 'sql' | 'cypher' }) {
  const reviewRun = useWorkbench((state) => state.reviewRun);
  const reportError = useWorkbench((state) => state.reportError);
  const original = request.subject === 'query' ? request.query : request.steps.join('\n');
  const [text, setText] = useState(original);
  const [note, setNote] = useState('');
  const [sent, setSent] = useState(false);
  const noteField = useRef<HTMLInputElement>(null);
  const changed = text.trim() !== original.trim();

  const answer = (decision: ReviewDecisionInput): void => {
    setSent(true);
    void reviewRun({ runId, key: reviewKeyOf(request) }, decision).catch((error: unknown) => {
      setSent(false);
      reportError(error, 'Could not answer the run');
    });
  };
  const approve = (): void => {
    // A note given with an edit goes with it: the model reads it beside the analyst's version.
    const withNote = note.trim() ? { note: note.trim() } : {};
    if (changed) {
      answer(request.subject === 'query' ? { action: 'edit', query: text, ...withNote } : { action: 'edit', steps: text.split('\n').map((line) => line.trim()).filter(Boolean), ...withNote });
    } else if (note.trim()) answer({ action: 'note', note: note.trim() });
    else answer({ action: 'approve' });
  };

  return (
    <div
      className="review-panel"
      data-testid="review-panel"
      onKeyDown={(event) => {
        // Esc leaves the editor (Monaco keeps Tab for indenting) for the note and the buttons.
        if (event.key === 'Escape' && !event.defaultPrevented && event.target instanceof Element && event.target.closest('.monaco-editor')) {
          event.preventDefault();
          noteField.current?.focus();
        }
      }}
    >
      <p className="review-title">
        {reviewTitle(request)}
      </p>
      {request.subject === 'query' ? (
        <QueryEditor value={text} language={language} schema={undefined} focused tabbable label="Proposed query" onChange={setText} onRun={approve} onCancel={() => undefined} onFocus={() => undefined} />
      ) : request.subject === 'forecast' ? (
        // The forecast's own cell is the editor; lines here are for the keyboard-minded, folded away so the cell stays in view.
        <details>
          <summary>Edit as lines</summary>
          <textarea aria-label="Forecast lines" className="plan-editor" rows={Math.min(12, request.steps.length + 1)} value={text} onChange={(event) => setText(event.target.value)} />
        </details>
      ) : (
        <textarea aria-label={request.subject === 'ranking' ? 'Ranking, best first' : 'Proposed plan'} className="plan-editor" rows={Math.max(3, request.steps.length + 1)} value={text} onChange={(event) => setText(event.target.value)} />
      )}
      {request.subject !== 'forecast' && (
      <input
        ref={noteField}
        aria-label="Note for the model"
        title="Enter approves (or runs your version) with this note"
        onKeyDown={(event) => {
          if (event.key === 'Enter' && !sent) {
            event.preventDefault();
            approve();
          }
        }}
        className="review-note" placeholder="Note for the model (optional)" value={note} onChange={(event) => setNote(event.target.value)} />
      )}
      <div className="review-actions">
        <button className="primary" data-testid="review-approve" disabled={sent} onClick={approve} title="Ctrl+Enter in the editor">
          {changed ? (request.subject === 'query' ? 'Run my version' : request.subject === 'forecast' ? 'Use my forecast' : request.subject === 'ranking' ? 'Use my ranking' : 'Use my plan') : note.trim() ? 'Approve with note' : 'Approve'}
        </button>
        {request.subject !== 'forecast' && (
          <button className="ghost" data-testid="review-skip" disabled={sent} onClick={() => answer({ action: 'skip', ...(note.trim() ? { note: note.trim() } : {}) })}>
            Skip
          </button>
        )}
        {changed && (
          <button className="ghost" disabled={sent} onClick={() => setText(original)}>
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

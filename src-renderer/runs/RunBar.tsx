import { useEffect, useState } from 'react';
import { decidedByText, decisionCheckKind, decisionCheckText, type RunProgress } from '../../src-main/contract';
import { rateWindowMs } from '../state/runs-slice';
import { useWorkbench } from '../ui/store-context';
import { reviewWords, useReviewPoints } from './review-words';

const statusLabels: Record<RunProgress['status'], string> = {
  running: 'Running',
  interrupted: 'Interrupted',
  answered: 'Decided',
  'step-limit': 'Stopped: step limit',
  'token-limit': 'Stopped: token limit',
  'time-limit': 'Stopped: time limit',
  failed: 'Failed',
  stopped: 'Stopped by the analyst',
  cancelled: 'Cancelled',
};

/**
 * Progress of a run in this notebook: step, time, tokens, live text, and the stop button. An
 * ended run shrinks to one line (`compact`) that the analyst can dismiss; its record stays in
 * the run history.
 */
export function RunBar({ progress, compact = false, onDismiss, onShowHistory }: { progress: RunProgress; compact?: boolean; onDismiss?(): void; onShowHistory?(): void }) {
  const stopRun = useWorkbench((state) => state.stopRun);
  const setRunMode = useWorkbench((state) => state.setRunMode);
  const streamed = useWorkbench((state) => state.streamedText[progress.runId] ?? '');
  const streamedTimes = useWorkbench((state) => state.streamedTimes[progress.runId]);
  const reportError = useWorkbench((state) => state.reportError);
  const [now, setNow] = useState(() => Date.now());
  const live = progress.status === 'running';
  // What step-through stops for, as the technique declares it; generic until the technique list is loaded.
  const declaredReviews = useReviewPoints(progress.technique);
  const reviewed = declaredReviews ? reviewWords(declaredReviews) : 'each review point';
  const stepHint = reviewed ? `step-through: waits for you at ${reviewed}` : 'step-through: this technique never stops for a review';

  useEffect(() => {
    if (!live) return;
    const timer = setInterval(() => setNow(Date.now()), 500);
    return () => clearInterval(timer);
  }, [live]);

  const elapsed = Math.max(0, (now - Date.parse(progress.startedAt)) / 1000);
  if (compact && !live) {
    return (
      <section className={`run-bar compact run-${progress.status}${uncheckedClass(progress)}`} data-testid="run-bar" aria-label="Last decision run">
        <div className="run-bar-row">
          <strong data-testid="run-status">{statusLabels[progress.status]}</strong>
          <DecidedBy progress={progress} />
          <RunCheck progress={progress} />
          <span>
            step {progress.step}/{progress.maxSteps}
          </span>
          <span>{progress.totalTokens.toLocaleString()} tokens</span>
          {progress.message && <RunMessage text={progress.message} />}
          <span className="spacer" />
          {onShowHistory && (
            <button className="ghost small" data-testid="show-run-history" onClick={onShowHistory}>
              Run history
            </button>
          )}
          {onDismiss && (
            <button className="icon" aria-label="Dismiss" title="Dismiss (the run stays in the history)" data-testid="dismiss-run" onClick={onDismiss}>
              ✕
            </button>
          )}
        </div>
      </section>
    );
  }
  return (
    <section className={`run-bar run-${progress.status}${uncheckedClass(progress)}`} data-testid="run-bar" aria-label="Decision run">
      <div className="run-bar-row">
        {live && <span className="spinner" />}
        <strong data-testid="run-status">{statusLabels[progress.status]}</strong>
        <DecidedBy progress={progress} />
        <RunCheck progress={progress} />
        <span>
          step {progress.step}/{progress.maxSteps}
        </span>
        {live && <span>{elapsed.toFixed(0)} s</span>}
        <span>{progress.totalTokens.toLocaleString()} tokens</span>
        {live && streamedTimes && streamedTimes.length > 0 && <StreamRate times={streamedTimes} now={now} />}
        {progress.threads && (
          <span className="muted" data-testid="run-threads" title={progress.threads.auto ? 'Measured at load: the count that decodes fastest now' : 'Set in the local-model settings'}>
            {progress.threads.count} {progress.threads.count === 1 ? 'thread' : 'threads'} ({progress.threads.auto ? 'auto' : 'set'})
          </span>
        )}
        {progress.pendingReview && <span className="badge kind-question">waiting for you</span>}
        {live && progress.mode === 'step' && !progress.pendingReview && <span className="muted run-hint">{stepHint}</span>}
        {progress.message && <RunMessage text={progress.message} />}
        <span className="spacer" />
        {live && (
          <button
            className="ghost small"
            data-testid="pause-run"
            title={progress.mode === 'auto' ? reviewed ? `Wait for me at ${reviewed}` : 'This technique never stops for a review' : 'Run on without waiting for me'}
            onClick={() => void setRunMode(progress.runId, progress.mode === 'auto' ? 'step' : 'auto').catch((error: unknown) => reportError(error, 'Could not change the mode'))}
          >
            {progress.mode === 'auto' ? '❚❚ Pause' : '▶ Run automatically'}
          </button>
        )}
        {live && (
          <button className="danger small" data-testid="stop-run" onClick={() => void stopRun(progress.runId).catch((error: unknown) => reportError(error, 'Stop failed'))}>
            ■ Stop
          </button>
        )}
      </div>
      {live && streamed && !progress.pendingReview && (
        <p className="streamed" data-testid="run-streamed">
          {streamed.slice(-240)}
        </p>
      )}
    </section>
  );
}

/**
 * Who made the decision, after "Decided": "by PlanRAG (Pearl's fallback after 8 refused
 * programs)", or that it was copied from a tool; the technique's id while no decision is made.
 */
function DecidedBy({ progress }: { progress: RunProgress }) {
  if (progress.status !== 'answered' || !progress.decidedBy) return <span className="muted">{progress.technique}</span>;
  const notable = progress.decidedBy.fallback !== null || progress.decidedBy.toolAssisted !== null;
  return (
    <span className={notable ? 'run-decided-by notable' : 'run-decided-by'} data-testid="run-decided-by" title={`Decided by ${decidedByText(progress.decidedBy)}`}>
      by {decidedByText(progress.decidedBy)}
    </span>
  );
}

/**
 * The model's pace as the reply forms: pieces (about a token each) per second over the last
 * five seconds, and how long since the last one, so a stalled call is seen as stalled.
 */
function StreamRate({ times, now }: { times: number[]; now: number }) {
  const last = times.at(-1) ?? now;
  const recent = times.filter((time) => now - time <= rateWindowMs);
  const span = recent.length > 1 ? ((recent.at(-1) ?? 0) - (recent[0] ?? 0)) / 1000 : 0;
  const rate = span > 0 ? (recent.length - 1) / span : null;
  return (
    <span className="muted" data-testid="run-stream-rate">
      {rate === null ? '' : `${rate.toFixed(1)} tokens/s · `}last token {Math.max(0, (now - last) / 1000).toFixed(0)} s ago
    </span>
  );
}

/**
 * The run's message on the bar's line, cut with an ellipsis when long so the bar never wraps
 * (the buttons stay where the hand expects them). The element holds the whole text, which a
 * screen reader reads; the title shows it on hover.
 */
function RunMessage({ text }: { text: string }) {
  return (
    <span className="run-message-inline" data-testid="run-message" title={text}>
      {text}
    </span>
  );
}

/** A decided run no simulator checked is not shown as a plain green "Decided". */
function uncheckedClass(progress: RunProgress): string {
  return progress.status === 'answered' && progress.check?.checked !== true ? ' run-unchecked' : '';
}

/** The simulator's verdict on the decision, or "not checked: <reason>", beside the status. */
function RunCheck({ progress }: { progress: RunProgress }) {
  const check = progress.check;
  if (progress.status !== 'answered' || !check) return null;
  const text = decisionCheckText(check);
  return (
    <span className={`run-check ${decisionCheckKind(check)}`} data-testid="run-check" title={check.checked ? undefined : text}>
      {text}
    </span>
  );
}

import { useEffect, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import type { RunProgress } from '../../src-main/contract';
import { ReviewPanel } from './ReviewPanel';

const storageKey = 'dwb:review-width';
export const reviewWidths = { min: 300, max: 720, initial: 400, step: 16 } as const;

const clamp = (width: number): number => Math.round(Math.min(reviewWidths.max, Math.max(reviewWidths.min, width)));

/** The review dock's width, remembered in this browser like the sidebar's. */
function useReviewWidth(): [number, (width: number) => void] {
  const [width, setWidth] = useState(() => {
    const stored = Number(window.localStorage.getItem(storageKey));
    return Number.isFinite(stored) && stored > 0 ? clamp(stored) : reviewWidths.initial;
  });
  useEffect(() => {
    window.localStorage.setItem(storageKey, String(width));
  }, [width]);
  return [width, (next) => setWidth(clamp(next))];
}

/**
 * A run waiting for the analyst, docked at the right of the notebook so the cells it is about
 * stay in sight (the panel used to sit in the run bar, over the notebook). The notebook scrolls
 * beside it; its left edge resizes it (drag, or ← → with Shift for bigger steps).
 */
export function ReviewDock({ run }: { run: RunProgress & { pendingReview: NonNullable<RunProgress['pendingReview']> } }) {
  const [width, setWidth] = useReviewWidth();
  const waitingAfter = Math.max(0, (run.pendingReviews?.length ?? 1) - 1);
  const dragging = useRef(false);
  const onPointerDown = (event: PointerEvent<HTMLDivElement>): void => {
    dragging.current = true;
    event.currentTarget.setPointerCapture(event.pointerId);
    event.preventDefault();
  };
  // The dock ends at the window's right edge, so its width is what lies right of the pointer.
  const onPointerMove = (event: PointerEvent<HTMLDivElement>): void => {
    if (dragging.current) setWidth(window.innerWidth - event.clientX);
  };
  const onPointerUp = (event: PointerEvent<HTMLDivElement>): void => {
    dragging.current = false;
    if (event.currentTarget.hasPointerCapture(event.pointerId)) event.currentTarget.releasePointerCapture(event.pointerId);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>): void => {
    const step = event.shiftKey ? reviewWidths.step * 4 : reviewWidths.step;
    // The handle is on the dock's left edge: ← widens it, → narrows it.
    const next = { ArrowLeft: width + step, ArrowRight: width - step, Home: reviewWidths.max, End: reviewWidths.min }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    event.stopPropagation();
    setWidth(next);
  };
  return (
    <aside className="review-dock" data-testid="review-dock" aria-label="Review the run's next step" style={{ width }}>
      <div
        className="review-dock-resizer"
        role="separator"
        aria-orientation="vertical"
        aria-label="Resize the review panel"
        aria-valuenow={width}
        aria-valuemin={reviewWidths.min}
        aria-valuemax={reviewWidths.max}
        tabIndex={0}
        data-testid="review-dock-resizer"
        title="Drag, or use ← and →"
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onKeyDown={onKeyDown}
      />
      <div className="review-dock-body">
        <ReviewPanel runId={run.runId} request={run.pendingReview} language={run.queryLanguage ?? 'sql'} />
        {/* Parallel steps or nodes paused at once each wait for their own answer; they follow this one. */}
        {waitingAfter > 0 && (
          <p className="muted" data-testid="review-waiting">
            {waitingAfter === 1 ? 'One more review waits after this one.' : `${waitingAfter} more reviews wait after this one.`}
          </p>
        )}
      </div>
    </aside>
  );
}

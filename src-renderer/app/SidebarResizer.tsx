import { useEffect, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';

const storageKey = 'dwb:sidebar-width';
export const sidebarWidths = { min: 200, max: 560, initial: 300, step: 16 } as const;

const clamp = (width: number): number => Math.round(Math.min(sidebarWidths.max, Math.max(sidebarWidths.min, width)));

/** The sidebar's width, remembered in this browser. */
export function useSidebarWidth(): [number, (width: number) => void] {
  const [width, setWidth] = useState(() => {
    const stored = Number(window.localStorage.getItem(storageKey));
    return Number.isFinite(stored) && stored > 0 ? clamp(stored) : sidebarWidths.initial;
  });
  useEffect(() => {
    window.localStorage.setItem(storageKey, String(width));
  }, [width]);
  return [width, (next) => setWidth(clamp(next))];
}

/**
 * The handle between the sidebar and the notebook: drag it, or focus it and use the arrow keys
 * (Shift for bigger steps, Home/End for the narrowest and widest); a double click resets it.
 */
export function SidebarResizer({ width, onResize }: { width: number; onResize(width: number): void }) {
  const dragging = useRef(false);
  const onPointerDown = (event: PointerEvent<HTMLDivElement>): void => {
    dragging.current = true;
    event.currentTarget.setPointerCapture(event.pointerId);
    event.preventDefault();
  };
  const onPointerMove = (event: PointerEvent<HTMLDivElement>): void => {
    // The sidebar starts at the window's left edge, so the pointer's x is the new width.
    if (dragging.current) onResize(event.clientX);
  };
  const onPointerUp = (event: PointerEvent<HTMLDivElement>): void => {
    dragging.current = false;
    if (event.currentTarget.hasPointerCapture(event.pointerId)) event.currentTarget.releasePointerCapture(event.pointerId);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>): void => {
    const step = event.shiftKey ? sidebarWidths.step * 4 : sidebarWidths.step;
    const next = { ArrowLeft: width - step, ArrowRight: width + step, Home: sidebarWidths.min, End: sidebarWidths.max }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    event.stopPropagation();
    onResize(next);
  };
  return (
    <div
      className="sidebar-resizer"
      role="separator"
      aria-orientation="vertical"
      aria-label="Resize the sidebar"
      aria-valuenow={width}
      aria-valuemin={sidebarWidths.min}
      aria-valuemax={sidebarWidths.max}
      tabIndex={0}
      data-testid="sidebar-resizer"
      title="Drag, or use ← and → (double-click resets)"
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={onPointerUp}
      onDoubleClick={() => onResize(sidebarWidths.initial)}
      onKeyDown={onKeyDown}
    />
  );
}

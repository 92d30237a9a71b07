import { useEffect, useState, type RefObject } from 'react';

/**
 * Whether the element's content overflows it (it scrolls), kept current as the element or its
 * content change size. A scrolling region must be reachable by keyboard (WCAG 2.1.1; axe's
 * scrollable-region-focusable), so callers make it a tab stop only then and leave the tab order
 * alone for what fits. `content` is measured again whenever it changes (a box capped in height
 * keeps its size while what it holds grows).
 */
export function useScrollable(element: RefObject<HTMLElement | null>, hidden: boolean, content?: unknown): boolean {
  const [scrollable, setScrollable] = useState(false);
  useEffect(() => {
    const target = element.current;
    if (!target || hidden || typeof ResizeObserver === 'undefined') return;
    // A ResizeObserver reports each element once when observing starts, then on every change.
    const observer = new ResizeObserver(() => setScrollable(target.scrollWidth > target.clientWidth || target.scrollHeight > target.clientHeight));
    observer.observe(target);
    for (const child of Array.from(target.children)) observer.observe(child);
    return () => observer.disconnect();
  }, [element, hidden, content]);
  return scrollable && !hidden;
}

import { useRef, type ReactNode } from 'react';
import { useScrollable } from './use-scrollable';

/**
 * Preformatted text that, once it overflows its box, becomes a named tab stop so the keyboard
 * can scroll it (axe's scrollable-region-focusable, as for the result grid); text that fits
 * stays out of the tab order.
 */
export function ScrollablePre({ label, className, testId, children }: { label: string; className?: string; testId?: string; children: ReactNode }) {
  const element = useRef<HTMLPreElement>(null);
  // The text is watched as well as the size: a capped block keeps its size while its text grows.
  const scrollable = useScrollable(element, false, children);
  return (
    <pre ref={element} className={className} data-testid={testId} {...(scrollable ? { tabIndex: 0, role: 'region', 'aria-label': `${label} (scroll with the arrow keys)` } : {})}>
      {children}
    </pre>
  );
}

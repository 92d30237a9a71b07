import { useEffect, useLayoutEffect, useRef, type RefObject } from 'react';

const firstFieldSelector = 'input:not([disabled]):not([type="hidden"]), select:not([disabled]), textarea:not([disabled])';

/**
 * What every dialog does with the keyboard: its first field takes the focus when it opens
 * (its first button when it has no field), Esc closes it, and the focus goes back to where it was.
 */
export function useDialogKeys(dialog: RefObject<HTMLElement | null>, onClose: () => void): void {
  const latestClose = useRef(onClose);
  useLayoutEffect(() => {
    latestClose.current = onClose;
  });

  useEffect(() => {
    const previous = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const element = dialog.current;
    const first = element?.querySelector<HTMLElement>(firstFieldSelector) ?? element?.querySelector<HTMLElement>('button:not([aria-label="Close"])');
    first?.focus();
    const onKey = (event: KeyboardEvent): void => {
      if (event.key !== 'Escape' || event.defaultPrevented) return;
      event.preventDefault();
      latestClose.current();
    };
    window.addEventListener('keydown', onKey);
    return () => {
      window.removeEventListener('keydown', onKey);
      if (previous?.isConnected) previous.focus();
    };
  }, [dialog]);
}

import type { KeyboardEvent } from 'react';

/**
 * One tab stop per list (WAI-ARIA's roving tabindex): the list's rows are `[data-roving-item]`
 * buttons, only one of which the caller gives tabIndex 0 (the open one, or the last focused);
 * the row's own actions are `[data-roving-action]` with tabIndex -1. Inside the list ↑ ↓ Home End
 * move between rows and → ← between a row and its actions; Enter and Space are the buttons' own.
 * Sixty-eight Tabs across seventeen notebooks become one. Used by the notebook and connection lists.
 */
export function rovingListKeyDown(event: KeyboardEvent<HTMLElement>): void {
  const list = event.currentTarget;
  const active = list.ownerDocument.activeElement;
  if (!(active instanceof HTMLElement) || !list.contains(active) || active.tagName === 'INPUT') return;
  // Content a row opens (a connection's schema tree) keeps its own keys.
  if (!active.matches('[data-roving-item], [data-roving-action]')) return;
  const rows = Array.from(list.querySelectorAll<HTMLElement>('[data-roving-item]'));
  const row = active.closest('li');
  const rowIndex = rows.findIndex((item) => item.closest('li') === row);
  const inRow = row ? Array.from(row.querySelectorAll<HTMLElement>('[data-roving-item], [data-roving-action]')) : [];
  const target = (() => {
    switch (event.key) {
      case 'ArrowDown':
        return rows[Math.min(rows.length - 1, rowIndex + 1)];
      case 'ArrowUp':
        return rows[Math.max(0, rowIndex - 1)];
      case 'Home':
        return rows[0];
      case 'End':
        return rows.at(-1);
      case 'ArrowRight':
        return inRow[Math.min(inRow.length - 1, inRow.indexOf(active) + 1)];
      case 'ArrowLeft':
        return inRow[Math.max(0, inRow.indexOf(active) - 1)];
      default:
        return undefined;
    }
  })();
  if (!target) return;
  event.preventDefault();
  target.focus();
}

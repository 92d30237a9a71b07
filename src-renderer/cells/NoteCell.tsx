import { useEffect, useRef, useState } from 'react';
import type { Cell } from '../../src-main/contract';
import { useWorkbench } from '../ui/store-context';
import { CellFrame } from './CellFrame';
import { Markdown } from './Markdown';

/** A Markdown note: rendered when idle, a plain text editor while editing. */
export function NoteCell({ cell }: { cell: Cell }) {
  const editCell = useWorkbench((state) => state.editCell);
  // A new (empty) note opens in the editor; a written one shows its rendering.
  const [editing, setEditing] = useState(cell.source === '');
  const textarea = useRef<HTMLTextAreaElement>(null);
  // Enter in command mode (see commands/) opens the note for writing.
  const editSeq = useWorkbench((state) => (state.editRequest?.cellId === cell.id ? state.editRequest.seq : 0));
  const leaveSeq = useWorkbench((state) => (state.leaveRequest?.cellId === cell.id ? state.leaveRequest.seq : 0));
  const [seen, setSeen] = useState({ editSeq, leaveSeq });
  if (editSeq !== seen.editSeq || leaveSeq !== seen.leaveSeq) {
    setSeen({ editSeq, leaveSeq });
    if (editSeq !== seen.editSeq && editSeq) setEditing(true);
    if (leaveSeq !== seen.leaveSeq && leaveSeq) setEditing(false);
  }

  useEffect(() => {
    if (editing) textarea.current?.focus();
  }, [editing]);

  const toolbar = (
    <button className="ghost small" onClick={() => setEditing(!editing)}>
      {editing ? 'Done' : 'Edit'}
    </button>
  );
  return (
    <CellFrame cell={cell} toolbar={toolbar}>
      {editing ? (
        <textarea
          ref={textarea}
          className="note-editor"
          data-testid="note-editor"
          value={cell.source}
          placeholder="Write Markdown…  (Shift+Enter or Esc to finish)"
          rows={Math.max(3, cell.source.split('\n').length + 1)}
          onChange={(event) => editCell(cell.id, { source: event.target.value })}
          onKeyDown={(event) => {
            if ((event.key === 'Enter' && (event.shiftKey || event.ctrlKey || event.metaKey)) || event.key === 'Escape') {
              event.preventDefault();
              setEditing(false);
            }
          }}
        />
      ) : (
        <div className="note-view" onDoubleClick={() => setEditing(true)} title="Double-click to edit">
          {cell.source.trim() === '' ? <p className="muted">Empty note — double-click to write.</p> : <Markdown text={cell.source} />}
        </div>
      )}
    </CellFrame>
  );
}

import type { WorkbenchStore } from '../state/store';
import { chordOf, isAvailable, type Command, type CommandContext } from './registry';

/** How long the second key of a sequence (`D D`) may wait. */
const sequenceWindowMs = 1000;

const textEntrySelector = '.monaco-editor, input, textarea, select, [contenteditable="true"]';

/** Where the key was pressed decides which commands may take it. */
type Surface = 'dialog' | 'cell-editor' | 'other-editor' | 'control' | 'command';

function surfaceOf(target: EventTarget | null): Surface {
  if (!(target instanceof Element)) return 'command';
  if (target.closest('[role="dialog"]')) return 'dialog';
  if (target.closest(textEntrySelector)) return target.closest('[data-testid="cell"]') ? 'cell-editor' : 'other-editor';
  // Buttons, links and elements marked `data-own-keys` keep Enter and Space; letters still reach command mode from them.
  if (target.closest('button, a[href], summary, [data-own-keys]')) return 'control';
  return 'command';
}

function accepts(command: Command, surface: Surface, chord: string): boolean {
  const scope = command.scope ?? 'command';
  if (surface === 'dialog') return false;
  if (scope === 'anywhere') return true;
  if (surface === 'cell-editor') return scope === 'cell';
  if (surface === 'other-editor') return false;
  if (surface === 'control' && ['Enter', 'Space', 'ArrowUp', 'ArrowDown'].includes(chord)) return false;
  return true;
}

/** The cell a key acts on: the one holding the focus, else the selected one. */
function cellIdFor(target: EventTarget | null, store: WorkbenchStore): string | null {
  const element = target instanceof Element ? target.closest<HTMLElement>('[data-testid="cell"]') : null;
  return element?.dataset.cellId ?? store.getState().selectedCellId;
}

/**
 * Sends key presses to the registered commands. Two listeners on the window: the capture one
 * runs before the editors (so Shift+Enter means the same in every cell kind); Escape is taken
 * in the bubble phase, after Monaco has used it to close its own widgets.
 */
export function installCommandKeys(store: WorkbenchStore, commands: readonly Command[]): () => void {
  let pending: { chord: string; at: number } | null = null;
  // Where the key was pressed, read before any handler runs: by the bubble phase the pressed
  // element may already be gone (a note's editor closes itself on Esc).
  const origins = new WeakMap<Event, { surface: Surface; cellId: string | null }>();

  const dispatch = (event: KeyboardEvent, phase: 'capture' | 'bubble'): void => {
    if (event.isComposing || ['Control', 'Shift', 'Alt', 'Meta'].includes(event.key)) return;
    if (store.getState().paletteOpen) return;
    const origin = origins.get(event) ?? { surface: surfaceOf(event.target), cellId: cellIdFor(event.target, store) };
    if (phase === 'capture') origins.set(event, origin);
    const { surface } = origin;
    const chord = chordOf(event);
    if ((phase === 'bubble') !== (chord === 'Escape')) return;
    const sequence = pending && event.timeStamp - pending.at < sequenceWindowMs ? `${pending.chord} ${chord}` : null;
    pending = null;
    const context: CommandContext = { store, state: store.getState(), cellId: origin.cellId };
    const candidates = commands.filter((command) => accepts(command, surface, chord));
    const bound = (keys: string): Command | undefined => candidates.find((command) => command.shortcuts?.includes(keys) && isAvailable(command, context));
    const match = (sequence ? bound(sequence) : undefined) ?? bound(chord);
    if (match) {
      event.preventDefault();
      event.stopPropagation();
      void match.perform(context);
      return;
    }
    if (candidates.some((command) => command.shortcuts?.some((shortcut) => shortcut.startsWith(`${chord} `)))) {
      pending = { chord, at: event.timeStamp };
      event.preventDefault();
    }
  };
  const onCapture = (event: KeyboardEvent): void => dispatch(event, 'capture');
  const onBubble = (event: KeyboardEvent): void => dispatch(event, 'bubble');
  window.addEventListener('keydown', onCapture, true);
  window.addEventListener('keydown', onBubble);
  return () => {
    window.removeEventListener('keydown', onCapture, true);
    window.removeEventListener('keydown', onBubble);
  };
}

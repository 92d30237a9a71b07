import type { WorkbenchState, WorkbenchStore } from '../state/store';

/**
 * One key press as the registry names it: `Mod` is Ctrl (or Cmd on a Mac), then Shift and Alt,
 * then the key (`A`, `Enter`, `ArrowUp`, `.`). A sequence such as `D D` is two presses.
 */
export type KeyChord = string;

/**
 * Where a shortcut applies. `command`: only when no text field or editor has the keyboard
 * (Jupyter's command mode). `cell`: also while editing a cell (Shift+Enter in an editor).
 * `anywhere`: wherever the focus is, dialogs aside.
 */
export type ShortcutScope = 'command' | 'cell' | 'anywhere';

export interface CommandContext {
  store: WorkbenchStore;
  state: WorkbenchState;
  /** The cell the command acts on: the selected one (the one being edited, when editing). */
  cellId: string | null;
}

/** An action registered once: toolbar buttons, shortcuts and the palette all call `perform`. */
export interface Command {
  id: string;
  label: string;
  /** Each entry is one alternative; an entry with a space is a sequence (`D D`). */
  shortcuts?: KeyChord[];
  scope?: ShortcutScope;
  /** Whether the command can act now; the palette hides it and its keys pass through when not. */
  predicate?(context: CommandContext): boolean;
  perform(context: CommandContext): void | Promise<void>;
}

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);

/** The chord a key event stands for, in the registry's spelling. */
export function chordOf(event: Pick<KeyboardEvent, 'key' | 'ctrlKey' | 'metaKey' | 'shiftKey' | 'altKey'>): KeyChord {
  const parts: string[] = [];
  if (isMac ? event.metaKey : event.ctrlKey) parts.push('Mod');
  if (event.shiftKey) parts.push('Shift');
  if (event.altKey) parts.push('Alt');
  // Shift+letter reports the capital; Alt may report a symbol on some layouts, so the code is not used.
  const key = event.key.length === 1 ? event.key.toUpperCase() : event.key;
  parts.push(key === ' ' ? 'Space' : key);
  return parts.join('+');
}

const keyNames: Record<string, string> = { ArrowUp: '↑', ArrowDown: '↓', ArrowLeft: '←', ArrowRight: '→', Escape: 'Esc' };

/** A shortcut as people read it: `Ctrl+Shift+P` (or `⌘⇧P` on a Mac). */
export function formatShortcut(shortcut: KeyChord): string {
  return shortcut
    .split(' ')
    .map((chord) =>
      chord
        .split('+')
        .map((part) => {
          if (part === 'Mod') return isMac ? '⌘' : 'Ctrl';
          if (part === 'Shift' && isMac) return '⇧';
          if (part === 'Alt') return isMac ? '⌥' : 'Alt';
          return keyNames[part] ?? part;
        })
        .join(isMac ? '' : '+'),
    )
    .join(' ');
}

/** Shortcut formatted for the platform in the way docs/keyboard.md and tests spell it (`Ctrl`). */
export function formatShortcutPortable(shortcut: KeyChord): string {
  return shortcut
    .split(' ')
    .map((chord) =>
      chord
        .split('+')
        .map((part) => (part === 'Mod' ? 'Ctrl/Cmd' : (keyNames[part] ?? part)))
        .join('+'),
    )
    .join(' ');
}

/** Checks the list once: ids and shortcuts must each belong to one command only. */
export function registerCommands(commands: Command[]): readonly Command[] {
  const ids = new Set<string>();
  const keys = new Map<string, string>();
  for (const command of commands) {
    if (ids.has(command.id)) throw new Error(`Command ${command.id} is registered twice`);
    ids.add(command.id);
    for (const shortcut of command.shortcuts ?? []) {
      const owner = keys.get(shortcut);
      if (owner) throw new Error(`Shortcut ${shortcut} belongs to both ${owner} and ${command.id}`);
      keys.set(shortcut, command.id);
    }
  }
  return Object.freeze([...commands]);
}

export function isAvailable(command: Command, context: CommandContext): boolean {
  return command.predicate ? command.predicate(context) : true;
}

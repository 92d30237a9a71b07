import { describe, expect, it } from 'vitest';
import { WorkbenchError, type Cell } from '../../../src-main/contract';
import { keyboardTable } from '../../../src-renderer/commands/keyboard-table';
import { chordOf, registerCommands } from '../../../src-renderer/commands/registry';
import { workbenchCommands } from '../../../src-renderer/commands/workbench-commands';
import { neighbourWithConnection } from '../../../src-renderer/state/notebook-slice';
import { restoreFailure } from '../../../src-renderer/state/undo';
import keyboardPage from '../../../docs/keyboard.md?raw';

const key = (key: string, modifiers: Partial<Record<'ctrlKey' | 'metaKey' | 'shiftKey' | 'altKey', boolean>> = {}) => ({
  key,
  ctrlKey: false,
  metaKey: false,
  shiftKey: false,
  altKey: false,
  ...modifiers,
});

describe('the command registry', () => {
  it('spells key presses the way shortcuts are registered', () => {
    expect(chordOf(key('P', { ctrlKey: true, shiftKey: true }))).toBe('Mod+Shift+P');
    expect(chordOf(key('k', { ctrlKey: true }))).toBe('Mod+K');
    expect(chordOf(key('d'))).toBe('D');
    expect(chordOf(key('Enter', { shiftKey: true }))).toBe('Shift+Enter');
    expect(chordOf(key('ArrowUp', { ctrlKey: true, shiftKey: true }))).toBe('Mod+Shift+ArrowUp');
  });

  it('refuses a command or a shortcut registered twice', () => {
    const perform = (): void => undefined;
    expect(() => registerCommands([{ id: 'a', label: 'A', perform }, { id: 'a', label: 'A again', perform }])).toThrow(/registered twice/);
    expect(() =>
      registerCommands([
        { id: 'a', label: 'A', shortcuts: ['B'], perform },
        { id: 'b', label: 'B', shortcuts: ['B'], perform },
      ]),
    ).toThrow(/Shortcut B belongs to both a and b/);
  });

  it('holds the Jupyter keys and both palette shortcuts', () => {
    const byShortcut = new Map(workbenchCommands.flatMap((command) => (command.shortcuts ?? []).map((shortcut) => [shortcut, command.id] as const)));
    expect(byShortcut.get('Mod+Shift+P')).toBe('palette.open');
    expect(byShortcut.get('Mod+K')).toBe('palette.open');
    expect(byShortcut.get('D D')).toBe('cell.delete');
    expect(byShortcut.get('Mod+Z')).toBe('edit.undo');
    for (const letter of ['A', 'B', 'M', 'Y', 'J', 'K']) expect(byShortcut.has(letter)).toBe(true);
  });

  it('is what docs/keyboard.md lists', () => {
    expect(keyboardPage).toContain(keyboardTable(workbenchCommands));
  });
});

describe('undo restores', () => {
  it('words a restore that came after the trash was emptied without the internal id', () => {
    // What the workspace answers then (NotebookStore.restore, revived on this side).
    const answer = WorkbenchError.revive(new WorkbenchError('not-found', 'No notebook 6f1c2e4a-0000-4000-8000-000000000000 in the trash').toJSON());
    const failure = restoreFailure(answer, '“Gone”');
    expect(failure.code).toBe('not-found');
    expect(failure.message).toBe('“Gone” was deleted for good when the trash was emptied; it cannot be restored');
    // Other failures pass through as they were.
    expect(restoreFailure(new Error('socket closed'), 'x').message).toBe('socket closed');
  });
});

describe('a new cell’s connection', () => {
  const cell = (id: string, connectionId: string | null): Cell => ({ id, connectionId }) as Cell;
  const cells = [cell('q1', 'alpha'), cell('n1', null), cell('q2', 'beta'), cell('n2', null)];

  it('comes from the nearest cell above with one, else the nearest below', () => {
    expect(neighbourWithConnection(cells, 'n2')?.connectionId).toBe('beta');
    expect(neighbourWithConnection(cells, 'n1')?.connectionId).toBe('alpha');
    expect(neighbourWithConnection(cells, null)?.connectionId).toBe('alpha');
    expect(neighbourWithConnection([cell('n0', null), cell('q9', 'gamma')], null)?.connectionId).toBe('gamma');
    expect(neighbourWithConnection([], null)).toBeUndefined();
  });
});

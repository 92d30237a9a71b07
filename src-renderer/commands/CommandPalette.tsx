import { Command as Cmdk } from 'cmdk';
import { useState } from 'react';
import { useWorkbench, useWorkbenchStore } from '../ui/store-context';
import { formatShortcut, isAvailable, type CommandContext } from './registry';
import { workbenchCommands } from './workbench-commands';

/** Every command that can act now, with its shortcuts; type to filter, Enter to run, Esc to close. */
export function CommandPalette() {
  const open = useWorkbench((state) => state.paletteOpen);
  return open ? <PaletteDialog /> : null;
}

function PaletteDialog() {
  const store = useWorkbenchStore();
  const setOpen = useWorkbench((state) => state.setPaletteOpen);
  // The palette acts on what had the focus when it opened; closing without a choice returns there.
  const [opener] = useState(() => {
    const element = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    const cellId = element?.closest<HTMLElement>('[data-testid="cell"]')?.dataset.cellId ?? store.getState().selectedCellId;
    return { element, cellId };
  });
  const context: CommandContext = { store, state: store.getState(), cellId: opener.cellId };
  const available = workbenchCommands.filter((command) => command.id !== 'palette.open' && isAvailable(command, context));

  const close = (): void => {
    setOpen(false);
    opener.element?.focus();
  };
  return (
    <div className="dialog-backdrop palette-backdrop" role="presentation" onMouseDown={(event) => event.target === event.currentTarget && close()}>
      <div role="dialog" aria-modal="true" aria-label="Command palette" className="palette" data-testid="command-palette">
        <Cmdk
          label="Commands"
          loop
          onKeyDown={(event) => {
            if (event.key === 'Escape') {
              event.preventDefault();
              event.stopPropagation();
              close();
            }
          }}
        >
          <Cmdk.Input autoFocus placeholder="Type a command…" aria-label="Search commands" className="palette-input" />
          <Cmdk.List className="palette-list">
            <Cmdk.Empty className="palette-empty">No command matches.</Cmdk.Empty>
            {available.map((command) => (
              <Cmdk.Item
                key={command.id}
                value={command.label}
                keywords={[command.id]}
                className="palette-item"
                data-testid="palette-item"
                onSelect={() => {
                  setOpen(false);
                  // The focus goes back first, so a command that moves it (edit, add) has the last word.
                  opener.element?.focus();
                  void command.perform({ ...context, state: store.getState() });
                }}
              >
                <span>{command.label}</span>
                <span className="palette-keys">
                  {command.shortcuts?.map((shortcut) => (
                    <kbd key={shortcut}>{formatShortcut(shortcut)}</kbd>
                  ))}
                </span>
              </Cmdk.Item>
            ))}
          </Cmdk.List>
        </Cmdk>
      </div>
    </div>
  );
}

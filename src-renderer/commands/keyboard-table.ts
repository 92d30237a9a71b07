import { formatShortcutPortable, type Command } from './registry';

const scopeWords = { command: 'command mode', cell: 'in a cell', anywhere: 'anywhere' } as const;

/** The shortcut table of docs/keyboard.md, made from the registry so the two cannot drift apart. */
export function keyboardTable(commands: readonly Command[]): string {
  const rows = commands
    .filter((command) => command.shortcuts?.length)
    .map((command) => {
      const keys = (command.shortcuts ?? []).map((shortcut) => formatShortcutPortable(shortcut)).join(', ');
      return `| ${keys.replaceAll('|', '\\|')} | ${command.label} | ${scopeWords[command.scope ?? 'command']} |`;
    });
  return ['| Keys | Action | Where |', '| --- | --- | --- |', ...rows].join('\n');
}

import type { WorkbenchError } from '../contract/errors';
import type { CommandIo } from './command-io';
import { processLineWriters } from './direct-output';
import { actionsUsage, dellmaUsage, dqaUsage, keysUsage, playbookUsage, queryUsage, reportUsage, runUsage, serveUsage, verifyUsage, whatifUsage } from './usage';

const usage = ['Decision Workbench command line', '', `  ${serveUsage}`, `  ${queryUsage}`, `  ${runUsage}`, `  ${reportUsage}`, `  ${verifyUsage}`, `  ${keysUsage}`, `  ${dqaUsage}`, `  ${whatifUsage}`, `  ${dellmaUsage}`, `  ${actionsUsage}`, `  ${playbookUsage}`].join('\n');

type Command = (args: string[], io: CommandIo) => Promise<number>;

/**
 * Each command's module is imported only when it runs (its own chunk in the bundle), so a
 * command loads only the drivers it needs and `dwb --help` loads none.
 */
const commands: Record<string, () => Promise<Command>> = {
  serve: async () => (await import('./serve-command')).runServeCommand,
  query: async () => (await import('./query-command')).runQueryCommand,
  run: async () => (await import('./run-command')).runRunCommand,
  report: async () => (await import('./report-command')).runReportCommand,
  verify: async () => (await import('./verify-command')).runVerifyCommand,
  dqa: async () => (await import('./dqa-command')).runDqaCommand,
  whatif: async () => (await import('./whatif-command')).runWhatifCommand,
  keys: async () => (await import('./keys-command')).runKeysCommand,
  dellma: async () => (await import('./dellma-command')).runDellmaCommand,
  actions: async () => (await import('./actions-command')).runActionsCommand,
  playbook: async () => (await import('./playbook-command')).runPlaybookCommand,
};

/** Runs one CLI invocation; every failure becomes one line on stderr and a non-zero exit. */
export async function runCli(argv: string[], io: CommandIo): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(usage);
    return name === undefined ? 2 : 0;
  }
  const load = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!load) {
    io.stderr(`dwb: unknown command "${name}"\n${usage}`);
    return 2;
  }
  try {
    const command = await load();
    return await command(args, io);
  } catch (error) {
    // Loaded here, not at start-up: it brings zod, which `dwb --help` does not need.
    const { WorkbenchError } = await import('../contract/errors');
    const failure = error instanceof WorkbenchError ? error : argumentError(error, WorkbenchError) ?? WorkbenchError.from(error);
    io.stderr(`dwb ${name}: ${failure.code}: ${failure.message}`);
    return failure.code === 'invalid-request' ? 2 : 1;
  }
}

/** node:util parseArgs throws TypeErrors with a code for unknown or malformed options. */
function argumentError(error: unknown, Failure: typeof WorkbenchError): WorkbenchError | null {
  const code = (error as { code?: string }).code;
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) return new Failure('invalid-request', (error as Error).message);
  return null;
}

/** Entry point used by bin/dwb.js. */
export function main(): void {
  const io: CommandIo = processLineWriters();
  void runCli(process.argv.slice(2), io).then((code) => {
    process.exitCode = code;
  });
}

import type { WorkbenchError } from '../contract/errors';
import type { CommandIo } from './command-io';
import { processLineWriters } from './direct-output';
import {
  actionsUsage,
  dellmaUsage,
  dellmaImportUsage,
  dqaImportUsage,
  dqaSolveUsage,
  dqaTechniqueUsage,
  dqaUsage,
  keysUsage,
  playbookUsage,
  queryUsage,
  reportUsage,
  runUsage,
  serveUsage,
  verifyUsage,
  whatifUsage,
} from './usage';

const usage = ['Decision Workbench command line', '', `  ${serveUsage}`, `  ${queryUsage}`, `  ${runUsage}`, `  ${reportUsage}`, `  ${verifyUsage}`, `  ${keysUsage}`, `  ${dqaUsage}`, `  ${whatifUsage}`, `  ${dellmaUsage}`, `  ${dellmaImportUsage}`, `  ${actionsUsage}`, `  ${playbookUsage}`].join('\n');

type Command = (args: string[], io: CommandIo) => Promise<number>;

/** Each command's usage, for `dwb <command> --help`; a subcommand named first narrows it. */
const commandUsage: Record<string, string | Record<string, string>> = {
  serve: serveUsage,
  query: queryUsage,
  run: runUsage,
  report: reportUsage,
  verify: verifyUsage,
  dqa: { '': dqaUsage, solve: `${dqaSolveUsage}\n  ${dqaTechniqueUsage}`, import: dqaImportUsage },
  whatif: whatifUsage,
  keys: keysUsage,
  dellma: { '': `${dellmaUsage}\n  ${dellmaImportUsage}`, solve: dellmaUsage, import: dellmaImportUsage },
  actions: actionsUsage,
  playbook: playbookUsage,
};

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
  const help = helpFor(name, args);
  if (help !== null) {
    io.stdout(`usage: ${help}${(await techniqueFlagsHelp(name, args)) ?? ''}`);
    return 0;
  }
  try {
    const command = await load();
    return await command(args, io);
  } catch (error) {
    // Loaded here, not at start-up: it brings zod, which `dwb --help` does not need.
    const { WorkbenchError } = await import('../contract/errors');
    const failure = error instanceof WorkbenchError ? error : argumentError(error, WorkbenchError, helpName(name, args)) ?? WorkbenchError.from(error);
    io.stderr(`dwb ${name}: ${failure.code}: ${failure.message}`);
    return failure.code === 'invalid-request' ? 2 : 1;
  }
}

/**
 * The usage to print when the arguments ask for help (`--help` or `-h` before any `--`), else
 * null. Answered before the command loads, so help never opens a database or needs its options.
 */
function helpFor(name: string, args: readonly string[]): string | null {
  const end = args.indexOf('--');
  const options = end === -1 ? args : args.slice(0, end);
  if (!options.includes('--help') && !options.includes('-h')) return null;
  const usage = commandUsage[name] ?? '';
  if (typeof usage === 'string') return usage;
  const subcommand = args[0] ?? '';
  return usage[Object.hasOwn(usage, subcommand) ? subcommand : ''] ?? '';
}

/**
 * The techniques' own flags under the usage of the commands that run a technique (`dwb run`,
 * `dwb dqa solve`), generated from each technique's options declaration. Only these load the
 * registry for their help; every other help stays without a package.
 */
async function techniqueFlagsHelp(name: string, args: readonly string[]): Promise<string | null> {
  if (name !== 'run' && !(name === 'dqa' && args[0] === 'solve')) return null;
  const text = (await import('./technique-flags')).techniqueFlagsUsage();
  return text === '' ? null : `\n${text}`;
}

/** `dqa solve` where the command has subcommands and one was named, else the command. */
function helpName(name: string, args: readonly string[]): string {
  const usage = commandUsage[name];
  const subcommand = args[0] ?? '';
  return typeof usage === 'object' && subcommand !== '' && Object.hasOwn(usage, subcommand) ? `${name} ${subcommand}` : name;
}

/** node:util parseArgs throws TypeErrors with a code for unknown or malformed options. */
function argumentError(error: unknown, Failure: typeof WorkbenchError, command: string): WorkbenchError | null {
  const code = (error as { code?: string }).code;
  if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS')) return null;
  // parseArgs's own text names the flag; its advice about '--' is noise for a mistyped option.
  const message = (error as Error).message.replace(/\. To specify a positional argument starting with a '-'.*$/s, '');
  return new Failure('invalid-request', `${message} (see dwb ${command} --help)`);
}

/** A stdout that went away (EPIPE from `| head`) fails the next write instead of crashing the process. */
let stdoutFailure: Error | null = null;

function writeStdout(text: string): Promise<void> {
  if (stdoutFailure === null && process.stdout.listenerCount('error') === 0) {
    process.stdout.on('error', (error) => {
      stdoutFailure = error;
      process.stdout.emit('drain');
    });
  }
  return new Promise((resolve, reject) => {
    if (stdoutFailure !== null) return reject(stdoutFailure);
    if (process.stdout.write(text)) return resolve();
    process.stdout.once('drain', () => (stdoutFailure === null ? resolve() : reject(stdoutFailure)));
  });
}

/** Entry point used by bin/dwb.js. */
export function main(): void {
  // Lines go straight to the descriptors; streamed output (`write`) settles only once the stream has drained, so the two never overtake each other.
  const io: CommandIo = { ...processLineWriters(), write: writeStdout };
  void runCli(process.argv.slice(2), io).then((code) => {
    process.exitCode = code;
  });
}

import { WorkbenchError } from '../contract/errors';
import { actionsUsage, runActionsCommand } from './actions-command';
import type { CommandIo } from './command-io';
import { dqaUsage, runDqaCommand } from './dqa-command';
import { queryUsage, runQueryCommand } from './query-command';
import { reportUsage, runReportCommand } from './report-command';
import { runRunCommand, runUsage } from './run-command';
import { runServeCommand, serveUsage } from './serve-command';
import { runVerifyCommand, verifyUsage } from './verify-command';
import { runWhatifCommand, whatifUsage } from './whatif-command';

const usage = ['Decision Workbench command line', '', `  ${serveUsage}`, `  ${queryUsage}`, `  ${runUsage}`, `  ${reportUsage}`, `  ${verifyUsage}`, `  ${dqaUsage}`, `  ${whatifUsage}`, `  ${actionsUsage}`].join('\n');

const commands: Record<string, (args: string[], io: CommandIo) => Promise<number>> = {
  serve: runServeCommand,
  query: runQueryCommand,
  run: runRunCommand,
  report: runReportCommand,
  verify: runVerifyCommand,
  dqa: runDqaCommand,
  whatif: runWhatifCommand,
  actions: runActionsCommand,
};

/** Runs one CLI invocation; every failure becomes one line on stderr and a non-zero exit. */
export async function runCli(argv: string[], io: CommandIo): Promise<number> {
  const [name, ...args] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    io.stdout(usage);
    return name === undefined ? 2 : 0;
  }
  const command = commands[name];
  if (!command) {
    io.stderr(`dwb: unknown command "${name}"\n${usage}`);
    return 2;
  }
  try {
    return await command(args, io);
  } catch (error) {
    const failure = error instanceof WorkbenchError ? error : argumentError(error) ?? WorkbenchError.from(error);
    io.stderr(`dwb ${name}: ${failure.code}: ${failure.message}`);
    return failure.code === 'invalid-request' ? 2 : 1;
  }
}

/** node:util parseArgs throws TypeErrors with a code for unknown or malformed options. */
function argumentError(error: unknown): WorkbenchError | null {
  const code = (error as { code?: string }).code;
  if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) return new WorkbenchError('invalid-request', (error as Error).message);
  return null;
}

/** Entry point used by bin/dwb.js. */
export function main(): void {
  const io: CommandIo = {
    stdout: (line) => process.stdout.write(`${line}\n`),
    stderr: (line) => process.stderr.write(`${line}\n`),
  };
  void runCli(process.argv.slice(2), io).then((code) => {
    process.exitCode = code;
  });
}

import { parseOptions } from './parse-options';
import { WorkbenchError } from '../contract/errors';
import { openConnector } from '../connectors/open-connector';
import { runWhatIfOnConnection, whatIfSupport, type Candidate, type WhatIfResult } from '../whatif';
import { describeCopiedTables, parseCandidateText, whatIfSpecSchema } from '../contract/whatif';
import { formatTable } from './format-table';
import { numberOption, positiveInteger, type CommandIo } from './command-io';
import { passwordFileOption, resolveDatabasePassword } from './secret-args';

import { whatifUsage } from './usage';

export { whatifUsage };

/** Comma-separated candidates; numeric ones become numbers (whole numbers bind as SQL integers). */
function parseCandidateList(text: string): Candidate[] {
  if (text.split(',').some((item) => item.trim() === '')) throw new WorkbenchError('invalid-request', '--candidates holds an empty item');
  return parseCandidateText(text.replace(/\n/g, ' '));
}

function printResult(result: WhatIfResult, io: CommandIo): void {
  io.stdout(
    formatTable({
      columns: ['rank', 'candidate', 'before', 'after', 'delta', 'changed rows'].map((name) => ({ name, type: '' })),
      rows: result.rows.map((row) => [row.rank, row.candidate, row.before, row.after, row.delta, row.changedRows]),
    }),
  );
  io.stdout(`best: ${String(result.best)} (${result.direction}; margin ${result.margin === null ? 'n/a, single candidate' : String(result.margin)})`);
  if (result.tied.length > 1) io.stdout(`tied: ${result.tied.map(String).join(', ')}`);
  for (const note of result.notes) io.stderr(`note: ${note}`);
  if (result.copiedTables) io.stderr(`copied from the server into a local DuckDB sandbox: ${describeCopiedTables(result.copiedTables)}`);
  io.stderr(`source unchanged: ${result.sourceDigestAfter}${result.copiedTables ? ' (rows read from the server)' : ''} (isolation: ${result.isolation})`);
}

/** `dwb whatif`: ranks candidate changes on a throwaway copy of the data behind a connection URI. */
export async function runWhatifCommand(args: string[], io: CommandIo): Promise<number> {
  const { values, positionals } = parseOptions({
    args,
    allowPositionals: true,
    options: {
      connection: { type: 'string', short: 'c' },
      change: { type: 'string' },
      objective: { type: 'string' },
      candidates: { type: 'string' },
      'candidates-query': { type: 'string' },
      minimize: { type: 'boolean', default: false },
      tolerance: { type: 'string' },
      'timeout-ms': { type: 'string' },
      json: { type: 'boolean', default: false },
      ...passwordFileOption,
    },
  });
  if (positionals.length > 0) throw new WorkbenchError('invalid-request', `unexpected argument "${positionals[0] ?? ''}": ${whatifUsage}`);
  for (const flag of ['connection', 'change', 'objective'] as const) {
    if (!values[flag]) throw new WorkbenchError('invalid-request', `--${flag} is required: ${whatifUsage}`);
  }
  if ((values.candidates === undefined) === (values['candidates-query'] === undefined)) {
    throw new WorkbenchError('invalid-request', `give exactly one of --candidates and --candidates-query: ${whatifUsage}`);
  }
  const connection = values.connection as string;
  const { target, password } = resolveDatabasePassword(connection, values['password-file']);
  const support = whatIfSupport(target);
  if (!support.supported) throw new WorkbenchError('unsupported', support.reason);
  const tolerance = numberOption(values.tolerance, '--tolerance');
  const spec = {
    ...(values.candidates !== undefined ? { candidates: parseCandidateList(values.candidates) } : { candidatesQuery: values['candidates-query'] as string }),
    change: values.change as string,
    objective: values.objective as string,
    direction: values.minimize ? ('minimize' as const) : ('maximize' as const),
    ...(tolerance !== undefined ? { tolerance } : {}),
    ...(values['timeout-ms'] !== undefined ? { timeoutMs: positiveInteger(values['timeout-ms'], '--timeout-ms') } : {}),
  };
  const parsed = whatIfSpecSchema.safeParse(spec);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new WorkbenchError('invalid-request', `what-if ${issue?.path.map(String).join('.') || 'parameters'}: ${issue?.message ?? 'invalid'}`);
  }
  const connector = await openConnector(target, password);
  let result: WhatIfResult;
  try {
    result = await runWhatIfOnConnection(target, connector, parsed.data);
  } finally {
    await connector.close();
  }
  if (values.json) io.stdout(JSON.stringify(result));
  else printResult(result, io);
  return 0;
}

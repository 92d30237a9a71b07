/**
 * Every command's usage line, kept apart from the commands themselves so that `dwb --help`
 * and an unknown command's message load no command (and so no database driver): main.ts
 * imports each command module only when that command runs.
 */
export const serveUsage = 'dwb serve [--port N] [--workspace DIR]';
export const queryUsage = 'dwb query --connection URI [--json] [--max-rows N] [--timeout-ms N] "QUERY"';
export const runUsage =
  'dwb run --connection URI --question-file F [--rules-file F] --technique singlerag|iterrag|planrag|planrag-norp --base-url URL --model M [--api-key K] [--tool-mode tools|text|auto] [--max-steps N] [--simulator stated|compat|off] [--whatif on|off] [--country C --home N | --goods G] [--replay TRANSCRIPT] --out DIR';
export const reportUsage =
  'dwb report (--run DIR | --bundle BUNDLE.json) --format html|pdf|md|json|ipynb --out FILE [--signed-by NAME [--comment TEXT]] [--max-rows N]';
export const verifyUsage = 'dwb verify [--head HASH] BUNDLE.json | dwb verify --replay BUNDLE.json --connection URI';
export const dqaSolveUsage =
  'dwb dqa solve --questions PATH/questions.json [--questions …] --engine simulator [--rules compat|stated] [--db rdb|gdb|rdb,gdb] [--target URI] [--out results.jsonl]';
export const dqaImportUsage = 'dwb dqa import --questions PATH/questions.json [--questions …] --target TARGET';
export const dqaUsage = `${dqaSolveUsage}\n  ${dqaImportUsage}`;
export const whatifUsage =
  'dwb whatif --connection sqlite:PATH|duckdb:PATH|csv:PATH|parquet:PATH|postgres://…|mysql://… --change SQL --objective SQL (--candidates a,b,c | --candidates-query SQL) [--minimize] [--tolerance X] [--timeout-ms N] [--json]';

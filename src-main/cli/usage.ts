/**
 * Every command's usage line, kept apart from the commands themselves so that `dwb --help`
 * and an unknown command's message load no command (and so no database driver): main.ts
 * imports each command module only when that command runs.
 */
export const serveUsage = 'dwb serve [--port N] [--workspace DIR]';
export const queryUsage = 'dwb query --connection URI [--password-file F] [--format table|csv|tsv|jsonl] [--json (= --format jsonl)] [--max-rows N] [--timeout-ms N] "QUERY"';
export const runUsage =
  'dwb run --connection URI --question-file F [--rules-file F] --technique planrag|iterrag|singlerag|planrag-norp|plan-dag|pearl|autoplan|dellma|… (--base-url URL --model M [--api-key-file F] [--tool-mode tools|text|auto] | --model-file PATH.gguf [--threads auto|N]) [--context N] [--max-tokens N] [--max-run-tokens N] [--password-file F] [--max-steps N] [--fidelity paper|product (default product)] [--temperature T] [--extension ID=on|off …] [--simulator stated|compat|off] [--whatif on|off] [--country C --home N | --goods G] [--playbook FILE (autoplan)] [--document FILE …] (dellma) [TECHNIQUE OPTIONS, listed by dwb run --help] [--replay TRANSCRIPT] --out DIR';
export const reportUsage =
  'dwb report (--run DIR | --bundle BUNDLE.json) --format html|pdf|md|json|ipynb --out FILE [--signed-by NAME [--comment TEXT]] [--max-rows N]';
export const verifyUsage =
  'dwb verify [--head HASH] [--trusted-keys DIR|FILE]... [--allow-unsigned] BUNDLE.json | dwb verify --replay BUNDLE.json --connection URI [--password-file F]';
export const dqaSolveUsage =
  'dwb dqa solve --questions PATH/questions.json [--questions …] --engine simulator [--rules compat|stated] [--db rdb|gdb|rdb,gdb] [--target URI [--password-file F]] [--out results.jsonl] [--no-dump-cache]';
export const dqaImportUsage = 'dwb dqa import --questions PATH/questions.json [--questions …] --target TARGET [--password-file F]';
export const dqaTechniqueUsage =
  'dwb dqa solve --questions F [--questions F2 …] --engine planrag|iterrag|singlerag|planrag-norp|… [--db rdb|gdb] (--base-url URL --model M [--api-key-file F | env DWB_API_KEY] [--tool-mode tools|text|auto] | --model-file PATH.gguf [--threads auto|N]) [--context N] [--max-tokens N] [--concurrency N] [--max-steps N] [--timeout-ms N] [--fidelity paper|product (default paper)] [--temperature T] [--extension ID=on|off …] [--playbook FILE|VERSION] [TECHNIQUE OPTIONS, listed by dwb dqa solve --help] [--workspace DIR] [--out DIR]';
export const dqaUsage = `${dqaSolveUsage}\n  ${dqaTechniqueUsage}\n  ${dqaImportUsage}`;
export const whatifUsage =
  'dwb whatif --connection sqlite:PATH|duckdb:PATH|csv:PATH|parquet:PATH|postgres://…|mysql://… [--password-file F] --change SQL --objective SQL (--candidates a,b,c | --candidates-query SQL) [--minimize] [--tolerance X] [--timeout-ms N] [--json]';
export const keysUsage = 'dwb keys create --name NAME | dwb keys show | dwb keys export [--out FILE]';
export const dellmaUsage =
  'dwb dellma solve --problems agriculture|stocks [--variant pairs|top1|naive|zero-shot|cot|sc] (--base-url URL --model M [--api-key-file F] | --model-file PATH.gguf [--threads N] [--context N] | --replay TRANSCRIPT) [--fidelity paper|product (default paper)] [--temperature T] [--samples N] [--batch B] [--overlap Q] [--alpha A] [--seed S] [--limit N] [--concurrency N] [--forecast FILE] [--data DIR] [--out DIR] [--dry-run]';
export const dellmaImportUsage = 'dwb dellma import --problems agriculture --target sqlite:FILE [--data DIR]';
export const actionsUsage =
  'dwb actions mine --questions F [--questions F …] --db rdb|gdb --base-url URL --model M [--api-key-file F] [--from LIB.json] [--shard-size 80] [--target 40] [--max-rounds 4] --out LIB.json\n  dwb actions refine --library LIB.json --questions F [--questions F …] (--db rdb|gdb | --connection URI [--password-file F]) (--base-url URL --model M [--api-key-file F] | --model-file PATH.gguf) --out LIB.json';
export const playbookUsage =
  'dwb playbook train --questions F [--db rdb|gdb] [--batch 4] [--iterations N] [--split SEED:TRAIN_FRACTION] --base-url URL --model M [--api-key-file F | env DWB_API_KEY] [--temperature T] [--max-actions N] [--no-reflection] [--timeout-ms N] --out DIR\n  dwb playbook list | import DIR | accept HASH | reject HASH | pin HASH [--workspace DIR]';

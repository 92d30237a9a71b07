import { WorkbenchError } from '../../contract/errors';

/**
 * Operators refused even though the read-only database would run them: LadybugDB's read-only mode
 * stops changes to the graph, not COPY … TO (which writes any file, including the database's
 * own), ATTACH, extension installs, configuration calls or explicit transactions.
 */
const refusedOperators = new Set([
  'COPY_TO', 'EXPORT_DATABASE', 'IMPORT_DATABASE', 'ATTACH_DATABASE', 'DETACH_DATABASE', 'USE_DATABASE',
  'INSTALL_EXTENSION', 'LOAD_EXTENSION', 'UNINSTALL_EXTENSION', 'STANDALONE_CALL', 'TRANSACTION',
]);
const refusedOperatorPrefixes = ['COPY', 'CREATE', 'DROP', 'ALTER', 'INSERT', 'SET', 'DELETE', 'MERGE'];

/**
 * Table functions a query may call: LadybugDB's internal scan of intermediate results and the
 * read-only catalog functions. File readers (LOAD FROM, read_csv, read_parquet…) are refused:
 * they read arbitrary files from the machine.
 */
const allowedTableFunctions = new Set([
  'READ_FTABLE', 'SHOW_TABLES', 'TABLE_INFO', 'SHOW_CONNECTION', 'DB_VERSION', 'CURRENT_SETTING',
  'SHOW_FUNCTIONS', 'SHOW_WARNINGS', 'SHOW_ATTACHED_DATABASES', 'SHOW_SEQUENCES', 'SHOW_INDEXES',
  'SHOW_MACROS', 'SHOW_PROJECTED_GRAPHS', 'SHOW_OFFICIAL_EXTENSIONS', 'SHOW_LOADED_EXTENSIONS',
  'QUERY_FTS_INDEX', 'QUERY_VECTOR_INDEX', 'STORAGE_INFO', 'STATS_INFO',
]);

/**
 * Second protection layer, decided by LadybugDB's own planner: the query is planned with EXPLAIN
 * (which does not execute it) and the physical plan's operators and table functions vetted.
 */
export function checkLadybugPlan(plan: string): void {
  for (const match of plan.matchAll(/\b([A-Z][A-Z0-9_]*)\[\d+\]/g)) {
    const operator = match[1] ?? '';
    if (refusedOperators.has(operator) || refusedOperatorPrefixes.some((prefix) => operator.startsWith(prefix))) {
      throw new WorkbenchError('read-only', `LadybugDB: the query plan contains ${operator}, which is not allowed (only reading queries run)`);
    }
  }
  for (const match of plan.matchAll(/Function: ([A-Z0-9_]+)/g)) {
    const name = match[1] ?? '';
    if (!allowedTableFunctions.has(name)) {
      throw new WorkbenchError('read-only', `LadybugDB: ${name.toLowerCase()} is not allowed (file readers and non-catalog procedures are refused)`);
    }
  }
}

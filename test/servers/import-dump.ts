import { basename, extname } from 'node:path';
import { importDump } from '../../src-main/importers/dump-writer';
import { readDump } from '../../src-main/importers/dump-files';
import { parseImportTarget } from '../../src-main/importers/import-target';
import { databaseNameFor } from '../../src-main/importers/relational/table-plan';
import { mariadbAdminUri } from './mariadb';

/**
 * Imports one relational DQA dump into a test server as `dwb dqa import` would (a database
 * named after the dump) and returns that database's URI, credentials included. On MariaDB the
 * import logs in as the privileged login (the URI's read-only one cannot write); the URI
 * returned keeps the login given.
 */
export async function importRelationalDump(serverUri: string, dumpPath: string): Promise<string> {
  const dump = readDump({ name: basename(dumpPath, extname(dumpPath)), kind: 'relational', path: dumpPath, reference: basename(dumpPath) });
  const writer = parseImportTarget(serverUri.startsWith('mysql:') ? mariadbAdminUri(serverUri) : serverUri).open();
  try {
    await importDump(writer, dump);
  } finally {
    await writer.close();
  }
  const url = new URL(serverUri);
  url.pathname = `/${databaseNameFor(dump.name)}`;
  return url.toString();
}

import { WorkbenchError } from '../../contract/errors';
import { leadingCypherNoise } from '../shared/cypher-text';

/** Clauses a Kùzu read query can start with. */
const queryStarts = new Set(['MATCH', 'OPTIONAL', 'RETURN', 'WITH', 'UNWIND', 'CALL']);

/** Every other word that starts a Kùzu statement. */
const knownStatementStarts = new Set([
  'CREATE', 'MERGE', 'SET', 'DELETE', 'DETACH', 'REMOVE', 'DROP', 'ALTER', 'COPY', 'LOAD', 'EXPORT', 'IMPORT',
  'ATTACH', 'USE', 'INSTALL', 'UNINSTALL', 'UPDATE', 'BEGIN', 'COMMIT', 'ROLLBACK', 'CHECKPOINT', 'FOREACH',
]);

function firstWord(text: string): { word: string; rest: string } {
  const body = text.slice(leadingCypherNoise.exec(text)?.[0].length ?? 0);
  const word = /^[A-Za-z_]+/.exec(body)?.[0] ?? '';
  return { word: word.toUpperCase(), rest: body.slice(word.length) };
}

/**
 * First protection layer, before Kùzu sees the text: the statement must start like a query
 * (optionally after EXPLAIN or PROFILE). It keeps statements such as EXPORT DATABASE away even
 * from the EXPLAIN pre-check, because planning them already has effects (EXPLAIN EXPORT
 * DATABASE creates the target directory). Words outside both lists go to Kùzu for its own
 * syntax error.
 */
export function checkKuzuStatement(text: string): void {
  const first = firstWord(text);
  const word = first.word === 'EXPLAIN' || first.word === 'PROFILE' ? firstWord(first.rest).word : first.word;
  if (word === '' || queryStarts.has(word)) return;
  if (knownStatementStarts.has(word)) {
    throw new WorkbenchError('read-only', `Kùzu: ${word} statements are not allowed; only queries starting with ${[...queryStarts].join(', ')} run`);
  }
}

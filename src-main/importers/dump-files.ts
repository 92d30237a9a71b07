import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { basename, dirname, extname, relative, resolve } from 'node:path';
import { z } from 'zod';
import { WorkbenchError, fileErrorReason } from '../contract/errors';
import { readBoundedText } from '../native/bounded-read';

/** Which kind of dump a file is: `.sql` relational (MySQL-flavoured), `.cql` graph (Neo4j Cypher). */
export type DumpKind = 'relational' | 'graph';

/** One dump file a questions file references. */
export interface DumpFile {
  /** File name without extension, e.g. `locating-1445-15b6e0aa`: names what the import creates. */
  name: string;
  kind: DumpKind;
  path: string;
  /** As the questions file writes it, e.g. `db/USA1836.sql`, for messages. */
  reference: string;
}

/** A dump file read into memory, with the digest that decides whether a re-import is needed. */
export interface DumpSource extends DumpFile {
  text: string;
  sha256: string;
}

const questionsSchema = z.array(
  z.looseObject({ rdb: z.string().min(1).optional(), gdb: z.string().min(1).optional() }),
  { error: 'expected a JSON list of questions' },
);

function dumpKind(path: string): DumpKind {
  if (/\.sql$/i.test(path)) return 'relational';
  if (/\.cql$/i.test(path)) return 'graph';
  throw new WorkbenchError('invalid-request', `${path}: cannot tell the dump kind (expected a .sql or .cql file)`);
}

/**
 * The dump files a DQA questions file references (`rdb` and `gdb`, relative to the questions
 * file), each once, in order of first mention. Missing files are reported all together.
 */
export function dumpsReferencedBy(questionsPath: string): DumpFile[] {
  const absolute = resolve(questionsPath);
  if (!existsSync(absolute)) throw new WorkbenchError('not-found', `No questions file at ${absolute}`);
  let text: string;
  try {
    text = readBoundedText(absolute);
  } catch (error) {
    throw new WorkbenchError('not-found', `Cannot read the questions file ${absolute}: ${fileErrorReason(error)}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new WorkbenchError('invalid-request', `${absolute} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const questions = questionsSchema.safeParse(parsed);
  if (!questions.success) throw new WorkbenchError('invalid-request', `${absolute}: ${questions.error.issues[0]?.message ?? 'not a questions file'}`);
  const folder = dirname(absolute);
  const dumps = new Map<string, DumpFile>();
  for (const question of questions.data) {
    for (const reference of [question.rdb, question.gdb]) {
      if (reference === undefined) continue;
      const path = resolve(folder, reference);
      if (!dumps.has(path)) dumps.set(path, { name: basename(path, extname(path)), kind: dumpKind(path), path, reference });
    }
  }
  const missing = [...dumps.values()].filter((dump) => !existsSync(dump.path));
  if (missing.length > 0) {
    throw new WorkbenchError('not-found', `${relative(process.cwd(), absolute) || absolute} references missing dumps: ${missing.map((dump) => dump.reference).join(', ')}`);
  }
  return [...dumps.values()];
}

export function readDump(file: DumpFile): DumpSource {
  let text: string;
  try {
    text = readBoundedText(file.path);
  } catch (error) {
    throw new WorkbenchError('not-found', `Cannot read the dump ${file.path}: ${fileErrorReason(error)}`);
  }
  return { ...file, text, sha256: createHash('sha256').update(text).digest('hex') };
}

import { join } from 'node:path';
import { WorkbenchError } from '../contract/errors';
import { readTranscript } from '../llm/transcript';
import type { JsonObject, RunNotebook } from './bundle-format';
import type { RunMaterials } from './create-bundle';
import { readBoundedText } from '../native/bounded-read';

/**
 * Reads what `dwb run --out DIR` wrote — run-log.jsonl, transcript.jsonl, notebook.json — as
 * the materials of a bundle. The log's chain is checked when the bundle is sealed; here each
 * file only has to be readable, and problems name the file and line.
 */
export function readRunDirectory(directory: string): RunMaterials {
  const events = jsonLines(readFile(directory, 'run-log.jsonl'), 'run-log.jsonl');
  const transcriptText = readFile(directory, 'transcript.jsonl');
  const transcript = readTranscript(transcriptText);
  const notebook = parseJson(readFile(directory, 'notebook.json'), 'notebook.json');
  if (typeof notebook !== 'object' || notebook === null || !Array.isArray((notebook as JsonObject)['cells'])) {
    throw new WorkbenchError('invalid-request', `${join(directory, 'notebook.json')} is not a Decision Workbench notebook (no "cells" list)`);
  }
  return {
    events,
    transcript: [transcript.header, ...transcript.exchanges],
    notebook: notebook as RunNotebook,
  };
}

function readFile(directory: string, name: string): string {
  try {
    return readBoundedText(join(directory, name));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new WorkbenchError('not-found', `Cannot read ${join(directory, name)} (${code}): is ${directory} the --out folder of dwb run?`);
  }
}

function jsonLines(text: string, name: string): unknown[] {
  return text
    .split(/\r?\n/)
    .map((line, index) => ({ line, number: index + 1 }))
    .filter(({ line }) => line.trim() !== '')
    .map(({ line, number }) => parseJson(line, `${name} line ${number}`));
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new WorkbenchError('invalid-request', `${where} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
}

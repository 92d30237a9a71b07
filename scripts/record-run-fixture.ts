/**
 * Records `fixtures/runs/planrag-locating`: a PlanRAG run made by the CLI of the day against the
 * scripted model server on the DQA Locating database, and its sealed report bundle. The
 * fixture pins the on-disk formats (run log, transcript, notebook, bundle) that later versions
 * must still read, verify and replay; re-record it only when a format change is deliberate and
 * readers of the old one are kept.
 *
 *   npx electron-vite build && npx tsx scripts/record-run-fixture.ts
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot, sqliteFromDqaDump } from '../test/support/fixtures';
import { startScriptedOpenAiServer } from '../test/support/scripted-openai';
import { recordedRunScript, recordedRunQuestion } from '../test/support/recorded-run';

async function main(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'dwb-record-'));
  const out = join(repoRoot, 'fixtures', 'runs', 'planrag-locating');
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const server = await startScriptedOpenAiServer(recordedRunScript);
  try {
    const database = sqliteFromDqaDump('locating/db/locating-1445-15b6e0aa.sql', scratch);
    const questionFile = join(scratch, 'question.txt');
    writeFileSync(questionFile, recordedRunQuestion);
    // Asynchronous on purpose: the scripted server answers from this same process.
    const dwb = (args: string[]) => promisify(execFile)(process.execPath, [join(repoRoot, 'bin', 'dwb.js'), ...args]);
    await dwb(['run', '--connection', `sqlite:${database}`, '--question-file', questionFile, '--technique', 'planrag', '--base-url', server.baseUrl, '--model', 'scripted',
      '--tool-mode', 'tools', '--simulator', 'compat', '--country', 'SWE', '--home', 'baltic_sea', '--out', out]);
    server.verify();
    await dwb(['report', '--run', out, '--format', 'json', '--out', join(out, 'bundle.json'), '--signed-by', 'Fixture Analyst']);
  } finally {
    await server.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

void main();

/**
 * What the technique benchmark adds per question on top of the run itself:
 * `npm run bench:benchmark` (reads DQA_DIR, default fixtures/dqa). No model and no database:
 * a recorded PlanRAG run log (fixtures/runs/planrag-before-plan-nodes) is judged as if it answered each Locating
 * question of the development subset. Prints, per question, the time to read the run log, to
 * judge it (candidate matching, the compat simulator, critical values, failure category) and
 * to record result.json, then the time to write the results table (JSON, Markdown, HTML) for
 * all of them. The simulator's database is loaded once per dump, as in a real batch, and that
 * load is reported apart.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { judgeRun } from '../src-main/benchmark/judge';
import { writeQuestionResult } from '../src-main/benchmark/question-result';
import { writeResultFiles } from '../src-main/benchmark/results-files';
import { readRunFacts } from '../src-main/benchmark/run-facts';
import { dqaRoot, readLocatingQuestions } from '../src-main/dqa/dataset';
import { loadLocatingDump } from '../src-main/dqa/load';
import { prepareScenario, type PreparedScenario } from '../src-main/dqa/prepared-scenario';

const REPEATS = 5;
const logPath = resolve(__dirname, '..', 'fixtures', 'runs', 'planrag-before-plan-nodes', 'run-log.jsonl');

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

function main(): void {
  const root = dqaRoot();
  const questions = readLocatingQuestions(root);
  const loadStarted = performance.now();
  const prepared = new Map<string, PreparedScenario>();
  for (const question of questions) {
    if (!prepared.has(question.rdb)) prepared.set(question.rdb, prepareScenario('locating', loadLocatingDump(readFileSync(join(root, 'locating', question.rdb), 'utf8'), 'relational', question.rdb)));
  }
  const loadMs = performance.now() - loadStarted;

  const readMs: number[] = [];
  const judgeMs: number[] = [];
  const recordMs: number[] = [];
  const tableMs: number[] = [];
  for (let repeat = 0; repeat < REPEATS; repeat += 1) {
    const out = mkdtempSync(join(tmpdir(), 'dwb-bench-benchmark-'));
    try {
      for (const question of questions) {
        let started = performance.now();
        const facts = readRunFacts(logPath);
        readMs.push(performance.now() - started);
        started = performance.now();
        const result = judgeRun({
          base: { id: question.id, scenario: 'locating', technique: 'planrag', db: 'rdb', dump: question.rdb, questionsFile: 'locating/questions.json' },
          annotation: question.answer,
          scenarioQuestion: { country: question.country, home: question.home },
          prepared: prepared.get(question.rdb) as PreparedScenario,
          outcome: { status: 'answered', decision: facts.decision, message: null, wallMs: 0 },
          facts,
        });
        judgeMs.push(performance.now() - started);
        started = performance.now();
        const dir = join(out, question.id);
        mkdirSync(dir);
        writeQuestionResult(dir, result);
        recordMs.push(performance.now() - started);
      }
      const started = performance.now();
      writeResultFiles(out);
      tableMs.push(performance.now() - started);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }
  const ms = (value: number): string => `${value.toFixed(3)} ms`;
  console.log(`technique benchmark overhead per question (${questions.length} Locating questions, median of ${REPEATS} passes; no model, no database)`);
  console.log(`  simulator data loaded once per dump: ${ms(loadMs)} for ${prepared.size} dumps`);
  console.log(`  read the run log:        ${ms(median(readMs))}`);
  console.log(`  judge (match, simulate, critical values, category): ${ms(median(judgeMs))}`);
  console.log(`  record result.json:      ${ms(median(recordMs))}`);
  console.log(`  total per question:      ${ms(median(readMs) + median(judgeMs) + median(recordMs))}`);
  console.log(`  results table (JSON, Markdown, HTML) for ${questions.length} questions: ${ms(median(tableMs))}`);
}

main();

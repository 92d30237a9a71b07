import { exactNotComparedReason, type DellmaExact } from '../../../contract/dellma';
import { WorkbenchError } from '../../../contract/errors';
import type { RunContext } from '../../run-context';
import type { BeliefFactor } from './belief';
import { EXACT_MAX_EVALUATIONS, planExactOutcomes, summariseExactOutcomes, type ExactPlan } from './exact-outcomes';
import type { ProblemResult } from './pipeline';
import { optionChange, type WhatIfMapping } from './whatif-mapping';
import { scenarioFailed, type ScenarioOutcome } from '../../../whatif/run-scenarios';

/**
 * [ext] The "exact outcomes" cell of a DeLLMa run with a what-if mapping: the sampled futures ×
 * options computed in the what-if sandbox (./exact-outcomes.ts), emitted as `dellma.exact`
 * after the expected utilities. A sandbox that cannot run (graph data, a failing change)
 * is reported in the cell; the decision stands either way.
 */
export async function emitExactOutcomes(run: RunContext, mapping: WhatIfMapping, result: ProblemResult, beliefs: readonly BeliefFactor[], maxEvaluations = EXACT_MAX_EVALUATIONS): Promise<void> {
  const detail = result.dellma;
  const actions = result.actions;
  // The paper's baselines sample no futures: the cell says so rather than staying silent.
  const plan: ExactPlan = detail ? planExactOutcomes(mapping, beliefs, detail.states, actions, maxEvaluations) : { changes: [], futures: [], optionProblems: actions.map(() => null), evaluations: [], overCap: 0 };
  const base: DellmaExact = {
    objective: mapping.objective,
    direction: mapping.direction,
    mapped: mapping.factors.map((factor) => ({ factor: factor.name, values: factor.values.map((entry) => ({ value: entry.value, change: entry.change })) })),
    options: actions.map((action) => {
      const mapped = optionChange(mapping, action);
      return { action, change: mapped?.change ?? null, mapped: mapped !== undefined };
    }),
    ...summariseExactOutcomes(plan, [], { mapping, actions, decision: result.chosen, maxEvaluations }),
    decision: result.chosen,
    maxEvaluations,
    sourceDigestBefore: null,
    sourceDigestAfter: null,
    isolation: null,
    error: null,
  };
  let record: DellmaExact = base;
  const sandbox = run.options.scenarios;
  if (!detail) record = { ...base, error: `the ${result.variant} baseline samples no futures, so there are none to compute` };
  else if (!sandbox) record = { ...base, error: 'no what-if sandbox is available for this run' };
  else if ('unsupported' in sandbox) record = { ...base, error: `no what-if sandbox on this data: ${sandbox.unsupported}` };
  else if (plan.evaluations.length > 0) {
    try {
      const ran = await sandbox.run({ changes: plan.changes, objective: mapping.objective, scenarios: plan.evaluations.map(({ steps, candidate }) => ({ steps, candidate })) }, run.signal);
      record = {
        ...base,
        ...summariseExactOutcomes(plan, ran.measures, { mapping, actions, decision: result.chosen, maxEvaluations }),
        sourceDigestBefore: ran.sourceDigestBefore,
        sourceDigestAfter: ran.sourceDigestAfter,
        isolation: ran.isolation,
        error: everyFailure(ran.measures),
      };
    } catch (error) {
      record = { ...base, error: WorkbenchError.from(error).message };
    }
  }
  run.emit({ type: 'tool', step: run.state.steps, node: 'exact', tool: 'dellma.exact', input: record, output: exactText(record) });
}

/** When not one evaluation succeeded (an objective that is never one number, say), the cell's error: the first message stands for all. */
function everyFailure(measures: readonly ScenarioOutcome[]): string | null {
  const first = measures[0];
  if (!scenarioFailed(first) || !measures.every(scenarioFailed)) return null;
  return `all ${measures.length} sandbox evaluations failed; the first: ${first.failed}`;
}

function exactText(record: DellmaExact): string {
  const head = '[ext] Exact outcomes in the what-if sandbox (beside the elicited utilities, not part of them)';
  if (record.error) return `${head}: not computed: ${record.error}.`;
  const computed = record.scenarios.filter((scenario) => scenario.status === 'computed').length;
  const notComputable = record.scenarios.filter((scenario) => scenario.status === 'not computable').length;
  const rows = record.rows.map((row) => `${row.action} ${row.expected === null ? 'not computable' : `${row.expected.toPrecision(6)} (covers p=${row.coverage.toFixed(3)})`}`).join(', ');
  const failed = record.scenarios.filter((scenario) => scenario.status === 'failed').length;
  const verdict = record.agrees === null ? `; not compared with DeLLMa's decision (${exactNotComparedReason(record)})` : `, which ${record.agrees ? 'agrees' : 'disagrees'} with DeLLMa's decision (${record.decision ?? 'none'})`;
  return `${head}: ${record.evaluations} sandbox evaluation(s), ${computed} future × option computed,${failed > 0 ? ` ${failed} failed (see each one's reason),` : ''} ${notComputable} not computable. Probability-weighted expected ${record.objective} (${record.direction}): ${rows}. Exactly-computed best: ${record.exactBest ?? 'none'}${verdict}.${record.capped ? ` ${record.capped}` : ''}`;
}

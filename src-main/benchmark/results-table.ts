/**
 * The benchmark's results in the paper's layout: one row per technique × scenario × database
 * kind with accuracy, accuracy with ties counted, mean steps, prompt and completion tokens and
 * wall time, plus where runs ended, the failure categories, and the questions without a
 * meaningful unique answer counted apart.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { techniqueIds, techniqueNamed } from '../engine/techniques/registry';
import type { ResultsRow, ResultsTable } from '../contract/benchmarks';
import { readQuestionResult, RESULT_FILE, type QuestionResult } from './question-result';
import { deciderLabel, modelText } from '../contract/produced-by';
import { rowProducedByLines } from './row-produced-by';

export type { ResultsRow, ResultsTable } from '../contract/benchmarks';

const scenarioOrder = ['locating', 'building'];
const dbOrder = ['rdb', 'gdb'];

/** A technique's label from the registry; a recorded id no longer registered is shown as it is. */
export function techniqueLabel(id: string): string {
  try {
    return techniqueNamed(id).label;
  } catch {
    return id;
  }
}

function techniqueOrder(id: string): number {
  const index = techniqueIds().indexOf(id);
  return index < 0 ? Number.MAX_SAFE_INTEGER : index;
}

export function endedAs(result: QuestionResult): string {
  return result.status ?? 'not started';
}

function mean(total: number, count: number): number {
  return count === 0 ? 0 : total / count;
}

/** A row's technique, with the DeLLMa variant its runs used. */
export function rowLabel(row: Pick<ResultsRow, 'technique' | 'variant'>): string {
  return row.variant === undefined ? techniqueLabel(row.technique) : `${techniqueLabel(row.technique)} (${row.variant})`;
}

/** A run's time along its plan's levels when its technique reports it, else its wall time (a plan of one chain). */
export function criticalPathMs(result: QuestionResult): number {
  return result.criticalPathMs ?? result.wallMs;
}

function distinct(values: readonly (string | null)[]): string[] {
  return [...new Set(values.filter((value) => value !== null))];
}

/**
 * A row's decisions counted by who made them, the technique's own first: a technique that hands
 * questions to a fallback (Pearl → PlanRAG) is credited only with its own, the fallback's apart.
 */
function decidersOf(group: readonly QuestionResult[]): NonNullable<ResultsRow['deciders']> {
  const deciders = new Map<string, NonNullable<ResultsRow['deciders']>[number]>();
  for (const result of group) {
    if (result.decidedBy === undefined) continue;
    const origin = result.producedBy?.decidedBy;
    const entry = deciders.get(result.decidedBy) ?? { key: result.decidedBy, label: origin ? deciderLabel(origin) : techniqueLabel(result.decidedBy), questions: 0, correct: 0, correctWithTies: 0 };
    entry.questions += 1;
    if (result.correct) entry.correct += 1;
    if (result.correctWithTies) entry.correctWithTies += 1;
    deciders.set(result.decidedBy, entry);
  }
  const technique = group[0]?.technique;
  return [...deciders.values()].sort((a, b) => Number(b.key === technique) - Number(a.key === technique) || a.key.localeCompare(b.key));
}

export function resultsTable(results: readonly QuestionResult[], now: () => string = () => new Date().toISOString()): ResultsTable {
  const groups = new Map<string, QuestionResult[]>();
  for (const result of results) {
    const key = `${result.technique}\n${result.variant ?? ''}\n${result.scenario}\n${result.db}`;
    groups.set(key, [...(groups.get(key) ?? []), result]);
  }
  const rows = [...groups.values()].map((group): ResultsRow => {
    const first = group[0] as QuestionResult;
    const sum = (pick: (result: QuestionResult) => number): number => group.reduce((total, result) => total + pick(result), 0);
    const count = (pick: (result: QuestionResult) => string | null): Record<string, number> => {
      const counts: Record<string, number> = {};
      for (const result of group) {
        const key = pick(result);
        if (key !== null) counts[key] = (counts[key] ?? 0) + 1;
      }
      return counts;
    };
    const clear = group.filter((result) => result.flags.length === 0);
    return {
      technique: first.technique,
      ...(first.variant !== undefined ? { variant: first.variant } : {}),
      scenario: first.scenario,
      db: first.db,
      questions: group.length,
      correct: group.filter((result) => result.correct).length,
      correctWithTies: group.filter((result) => result.correctWithTies).length,
      flagged: group.length - clear.length,
      clearCorrect: clear.filter((result) => result.correct).length,
      meanSteps: mean(sum((result) => result.steps), group.length),
      meanPromptTokens: mean(sum((result) => result.promptTokens), group.length),
      meanCompletionTokens: mean(sum((result) => result.completionTokens), group.length),
      promptTokens: sum((result) => result.promptTokens),
      completionTokens: sum((result) => result.completionTokens),
      wallMs: sum((result) => result.wallMs),
      meanWallMs: mean(sum((result) => result.wallMs), group.length),
      largestPromptTokens: Math.max(0, ...group.map((result) => result.largestPromptTokens ?? 0)),
      meanCriticalPathMs: mean(sum(criticalPathMs), group.length),
      playbooks: [...new Set(group.flatMap((result) => (result.playbook === undefined ? [] : [result.playbook])))],
      ended: count(endedAs),
      failures: count((result) => result.failure.category),
      deciders: decidersOf(group),
      toolAssisted: group.filter((result) => result.toolAssisted === true).length,
      models: distinct(group.map((result) => (result.producedBy ? modelText(result.producedBy.model) : null))),
      productVersions: distinct(group.map((result) => result.producedBy?.productVersion ?? null)),
      producedBy: rowProducedByLines(group.flatMap((result) => (result.producedBy ? [result.producedBy] : []))),
    };
  });
  rows.sort(
    (a, b) =>
      techniqueOrder(a.technique) - techniqueOrder(b.technique) ||
      scenarioOrder.indexOf(a.scenario) - scenarioOrder.indexOf(b.scenario) ||
      dbOrder.indexOf(a.db) - dbOrder.indexOf(b.db),
  );
  return { format: 'decision-workbench/benchmark-results', version: 1, generatedAt: now(), rows, questions: [...results] };
}

/**
 * Every recorded question under `root`: a CLI output directory (root/<id>/result.json) or an
 * app benchmark holding one such directory per technique and database kind.
 */
export function collectResults(root: string): QuestionResult[] {
  const found: QuestionResult[] = [];
  const visit = (dir: string, depth: number): void => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name === 'databases' || entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      if (existsSync(join(path, RESULT_FILE))) {
        const result = readQuestionResult(path);
        if (result) found.push(result);
      } else if (depth > 0) {
        visit(path, depth - 1);
      }
    }
  };
  visit(root, 1);
  return found.sort((a, b) => a.technique.localeCompare(b.technique) || a.db.localeCompare(b.db) || a.id.localeCompare(b.id, 'en', { numeric: true }));
}

/**
 * A technique's own steps and sections in a report, as the technique projects them (its
 * definition's `reports`): each step record whose tool name has a technique's prefix is offered to
 * that technique, and each technique that logged steps in the run may add sections of its own.
 * The renderers lay the resulting blocks out and name no technique.
 */
import type { ReportBlock, ReportSectionBlocks } from '../contract/report-blocks';
import type { StepRecord, TraceItem } from '../audit/run-trace';
import type { TechniqueDefinition } from '../engine/techniques/technique';

export type ReportItem = TraceItem | { kind: 'technique'; label: string; blocks: readonly ReportBlock[] };

export interface ReportStep extends Omit<StepRecord, 'items'> {
  items: ReportItem[];
}

export interface TechniqueProjections {
  steps: ReportStep[];
  /** The techniques' own sections, in the order of their first step in the run. */
  sections: ReportSectionBlocks[];
}

export function projectTechniqueSteps(steps: readonly StepRecord[], techniques: readonly TechniqueDefinition[]): TechniqueProjections {
  const ownerOf = (fields: Readonly<Record<string, unknown>>): TechniqueDefinition | undefined => {
    const tool = fields['tool'];
    return typeof tool === 'string' ? techniques.find((technique) => technique.reports && technique.cells?.toolPrefixes.some((prefix) => tool.startsWith(prefix))) : undefined;
  };
  const recordsOf = new Map<TechniqueDefinition, Readonly<Record<string, unknown>>[]>();
  const projected = steps.map((step): ReportStep => ({
    ...step,
    items: step.items.map((item): ReportItem => {
      if (item.kind !== 'other') return item;
      const owner = ownerOf(item.fields);
      if (!owner) return item;
      recordsOf.set(owner, [...(recordsOf.get(owner) ?? []), item.fields]);
      const shown = owner.reports?.item?.(item.fields) ?? null;
      return shown ? { kind: 'technique', label: shown.label, blocks: shown.blocks } : item;
    }),
  }));
  const sections = [...recordsOf].flatMap(([technique, records]) => technique.reports?.sections?.(records) ?? []);
  return { steps: projected, sections };
}

import { z } from 'zod';
import { fidelityText, resolvedFidelitySchema } from './fidelity';

/**
 * What produced a result (issue 25): the technique that made the decision, the model as the
 * server named it (or the GGUF file and its SHA-256), the endpoint, sampling and limits, how
 * each reply was held to its structure, the extensions and fallbacks, and the product version.
 * One record, written once into a run's `run-end` event and carried by every result and
 * report read from that run (benchmark result.json and results files, HTML/PDF/Markdown/
 * Jupyter reports, bundles). Logs written before it read through
 * `audit/produced-by-trace.ts`, which derives the same record from their events.
 */

/** The two tools whose result ranks candidates, so a decision can be copied from it. */
export const rankingToolSchema = z.enum(['simulate', 'whatif']);

/** Who made a run's decision: the technique that wrote it, the fallback it was, and whether it repeats a tool's ranking. */
export const decisionOriginSchema = z.object({
  technique: z.string(),
  label: z.string(),
  /** Set when the technique the run was started with handed the question to this one. */
  fallback: z.object({ of: z.string(), ofLabel: z.string(), reason: z.string() }).nullable(),
  /** Set when the decision is the best candidate of a `simulate` or `whatif` result the model saw before deciding. */
  toolAssisted: z.object({ tool: rankingToolSchema, step: z.number() }).nullable(),
});
export type DecisionOrigin = z.infer<typeof decisionOriginSchema>;

export const constrainedKindSchema = z.enum(['grammar', 'tool-choice', 'json-schema', 'none', 'unknown']);

export const producedBySchema = z.object({
  format: z.literal('decision-workbench/produced-by'),
  version: z.literal(1),
  /** The technique the run was started with, and its label. */
  technique: z.string(),
  techniqueLabel: z.string(),
  /** A technique's variant and sizes when it has them (DeLLMa: "pairs, s=16, b=32, q=0.25"); null otherwise. */
  variant: z.string().nullable(),
  /** Who decided; null when the run ended without a decision. */
  decidedBy: decisionOriginSchema.nullable(),
  model: z.object({
    /** The name the run was configured with (an endpoint's model, a GGUF file's name). */
    configured: z.string().nullable(),
    /** The names the server put in its responses (`model`), in the order first seen. */
    served: z.array(z.string()),
    /** The API root, credentials removed (a file: URL for a local model); null for a replay. */
    endpoint: z.string().nullable(),
    /** A local model's GGUF file. */
    file: z.object({ name: z.string(), sha256: z.string(), bytes: z.number() }).nullable(),
    description: z.string(),
  }),
  temperature: z.number().nullable(),
  maxTokensPerCall: z.number().nullable(),
  maxTokensPerRun: z.number().nullable(),
  maxSteps: z.number(),
  maxDurationMs: z.number(),
  toolMode: z.enum(['tools', 'text']),
  /** Per model call: how its reply was held to its structure (`unknown`: a log from before it was recorded). */
  structuredOutput: z.array(z.object({ step: z.number(), node: z.string().optional(), constrained: constrainedKindSchema })),
  /** The tools the model was offered at some point of the run. */
  toolsOffered: z.array(z.string()),
  /** The seed of a technique that samples (recorded by the run); null when none. */
  seed: z.union([z.number(), z.string()]).nullable(),
  /** Every extension the run recorded, on or off. */
  extensions: z.record(z.string(), z.boolean()),
  /** Every other setting the run's `run-start` recorded (mode, limits, playbook, and whatever a technique adds). */
  settings: z.record(z.string(), z.unknown()),
  /** Hand-overs from one technique to another during the run. */
  fallbacks: z.array(z.object({ from: z.string(), to: z.string(), reason: z.string(), step: z.number() })),
  /** The Decision Workbench version that ran; null in a log from before it was recorded. */
  productVersion: z.string().nullable(),
});
export type ProducedBy = z.infer<typeof producedBySchema>;

/** How results count a decision's maker: the technique's id, or "pearl → planrag fallback". */
export function decisionKey(origin: DecisionOrigin): string {
  return origin.fallback ? `${origin.fallback.of} → ${origin.technique} fallback` : origin.technique;
}

/** A decision maker as a results table names it: "Pearl" or "PlanRAG as Pearl's fallback". */
export function deciderLabel(origin: DecisionOrigin): string {
  return origin.fallback ? `${origin.label} as ${origin.fallback.ofLabel}'s fallback` : origin.label;
}

/** The decider as a table row names it, a copied tool said too: "PlanRAG as Pearl's fallback", "PlanRAG, tool-assisted (simulate)". */
export function deciderRowLabel(origin: DecisionOrigin): string {
  return origin.toolAssisted ? `${deciderLabel(origin)}, tool-assisted (${origin.toolAssisted.tool})` : deciderLabel(origin);
}

/** "PlanRAG (Pearl's fallback after 8 refused programs)", "PlanRAG", with ", tool-assisted (simulate)" when so. */
export function decidedByText(origin: DecisionOrigin): string {
  const who = origin.fallback ? `${origin.label} (${origin.fallback.ofLabel}'s fallback ${origin.fallback.reason})` : origin.label;
  return origin.toolAssisted ? `${who}, tool-assisted: copied from ${origin.toolAssisted.tool} at step ${origin.toolAssisted.step}` : who;
}

/** How the calls' replies were held to their structure, in words: "3 of 4 calls constrained (tool-choice 3), 1 not". */
export function structuredOutputText(calls: ProducedBy['structuredOutput']): string {
  if (calls.length === 0) return 'no model calls';
  const counts = new Map<string, number>();
  for (const call of calls) counts.set(call.constrained, (counts.get(call.constrained) ?? 0) + 1);
  const held = calls.filter((call) => call.constrained !== 'none' && call.constrained !== 'unknown').length;
  const kinds = [...counts].filter(([kind]) => kind !== 'none' && kind !== 'unknown').map(([kind, count]) => `${kind} ${count}`);
  const parts = [`${held} of ${calls.length} calls constrained${kinds.length ? ` (${kinds.join(', ')})` : ''}`];
  if (counts.get('none')) parts.push(`${counts.get('none')} not`);
  if (counts.get('unknown')) parts.push(`${counts.get('unknown')} not recorded`);
  return parts.join(', ');
}

/** The model in words: the served name (and the configured one when it differs), or the GGUF file with its hash. */
export function modelText(model: ProducedBy['model']): string {
  if (model.file) return `${model.file.name} (GGUF, sha256 ${model.file.sha256})`;
  const served = model.served.join(', ');
  if (served && model.configured && !model.served.includes(model.configured)) return `${served} (configured as ${model.configured})`;
  return served || model.configured || model.description;
}

/**
 * The record as label/value lines, the one way every result and report says it (HTML and
 * Markdown tables, a notebook's cell, the Benchmarks view).
 */
export function producedByLines(record: ProducedBy): { label: string; value: string }[] {
  const lines: { label: string; value: string }[] = [
    { label: 'Technique', value: `${record.techniqueLabel} (${record.technique})${record.variant ? `, ${record.variant}` : ''}` },
    { label: 'Decided by', value: record.decidedBy ? decidedByText(record.decidedBy) : 'no decision' },
    { label: 'Model', value: modelText(record.model) },
    { label: 'Endpoint', value: record.model.endpoint ?? 'none (replayed)' },
    { label: 'Temperature', value: record.temperature === null ? 'the provider default' : String(record.temperature) },
    { label: 'Token limit per call', value: record.maxTokensPerCall === null ? 'none' : String(record.maxTokensPerCall) },
    { label: 'Token limit per run', value: record.maxTokensPerRun === null ? 'none' : String(record.maxTokensPerRun) },
    { label: 'Step limit', value: String(record.maxSteps) },
    { label: 'Tool mode', value: record.toolMode },
    { label: 'Structured output', value: structuredOutputText(record.structuredOutput) },
    { label: 'Tools offered', value: record.toolsOffered.length ? record.toolsOffered.join(', ') : 'none' },
    { label: 'Seed', value: record.seed === null ? 'none' : String(record.seed) },
    { label: 'Extensions', value: Object.keys(record.extensions).length ? Object.entries(record.extensions).map(([name, on]) => `${name} ${on ? 'on' : 'off'}`).join(', ') : 'none recorded' },
    { label: 'Fallbacks', value: record.fallbacks.length ? record.fallbacks.map((fallback) => `${fallback.from} → ${fallback.to} ${fallback.reason}`).join('; ') : 'none' },
    { label: 'Product version', value: record.productVersion ?? 'not recorded' },
  ];
  for (const [name, value] of Object.entries(record.settings)) lines.push(settingLine(name, value));
  return lines;
}

/** A setting run-start recorded, in words: the resolved fidelity as the run said it, anything else by its values, never as JSON. */
function settingLine(name: string, value: unknown): { label: string; value: string } {
  const fidelity = name === 'fidelity' ? resolvedFidelitySchema.safeParse(value) : null;
  if (fidelity?.success) return { label: 'Fidelity', value: fidelityText(fidelity.data) };
  return { label: `Setting ${name}`, value: valueText(value) };
}

function valueText(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (Array.isArray(value)) return value.length ? value.map((item) => nestedText(item)).join(', ') : 'none';
  if (typeof value === 'object') {
    const entries = Object.entries(value);
    return entries.length ? entries.map(([key, item]) => `${key} ${nestedText(item)}`).join(', ') : 'none';
  }
  return String(value);
}

/** A value inside a list or record: bracketed when it is one itself, so its commas do not run into the outer ones. */
function nestedText(value: unknown): string {
  return value !== null && typeof value === 'object' ? `(${valueText(value)})` : valueText(value);
}

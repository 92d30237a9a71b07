import { z } from 'zod';
import { WorkbenchError } from '../../contract/errors';
import type { SimulationResult, SimulationSpec, Verification } from '../../contract/simulation';
import { formatSimulationForModel, verifyDecision } from '../../simulators/run-simulation';
import type { RunSimulator } from '../../simulators/run-simulator';
import { jsonAction } from '../text-protocol';
import { defineTool } from './tool';
import type { ToolContext } from './tool-context';

const name = z.string().trim().min(1).max(200);
const simulateArguments = z.object({
  candidates: z.array(name).max(500).optional(),
  country: name.optional(),
  home: name.optional(),
  goods: name.optional(),
});
type SimulateArguments = z.infer<typeof simulateArguments>;

/** `simulate`: the exact business rules run for candidate decisions (offered only where a simulator fits the data). */
export const simulateTool = defineTool({
  name: 'simulate',
  arguments: simulateArguments,
  description: () =>
    'Simulate the business rules exactly for candidate decisions and get each one\'s objective before and after, ranked, with the best, its margin and ties. Give the candidates to compare (all when omitted) and the scenario parameters: country and home node for trade-node (Locating) questions, goods for building (Building) questions.',
  textForm: 'Action: simulate\nAction Input:\n{"candidates": ["<option>", "<option>"], "country": "…", "home": "…"}  (or {"goods": "…"})',
  fromText: (reply) => jsonAction(reply, 'simulate'),
  perform: async (args, { step, node }, tools) => {
    const { simulator } = tools;
    if (!simulator) return { reply: 'No simulator fits this database.' };
    const spec = specFor(simulator, args);
    if (typeof spec === 'string') return { reply: `Not simulated: ${spec}.`, failed: true };
    try {
      const result = await simulator.run(spec);
      tools.emit({ type: 'simulation', step, ...(node ? { node } : {}), requested: args.candidates ?? null, result });
      const unknown = (args.candidates ?? []).filter((name) => !result.candidates.some((row) => row.candidate.toLowerCase() === name.toLowerCase()));
      const shown = args.candidates?.length
        ? { ...result, candidates: result.candidates.filter((row) => row.rank === 1 || args.candidates?.some((name) => name.toLowerCase() === row.candidate.toLowerCase())) }
        : result;
      return { reply: `${formatSimulationForModel(shown)}${unknown.length ? `\nNot candidates here: ${unknown.join(', ')}` : ''}`, stateChanges: { lastSimulation: result } };
    } catch (error) {
      return { reply: `Simulation failed: ${WorkbenchError.from(error).message}`, failed: true };
    }
  },
  cells: {
    simulation: (event, at, cells) => {
      const cellId = cells.add(event.step, { kind: 'simulation', author: 'engine', source: JSON.stringify(event.result.spec), connectionId: cells.connectionId, node: event.node, data: { requested: event.requested } });
      cells.saveOutput(cellId, { status: 'simulated', simulation: event.result, ranAt: at, connectionId: cells.connectionId ?? '' });
    },
  },
});

function specFor(simulator: RunSimulator, args: Omit<SimulateArguments, 'candidates'>): SimulationSpec | string {
  if (simulator.scenario === 'locating') {
    const country = args.country ?? simulator.known.country;
    const home = args.home ?? simulator.known.home;
    return country && home ? { scenario: 'locating', country, home, rules: simulator.rules } : 'give the country and its home trade node ("country", "home")';
  }
  const goods = args.goods ?? simulator.known.goods;
  return goods ? { scenario: 'building', goods, rules: simulator.rules } : 'give the goods whose price should fall ("goods")';
}

/** When the question's parameters are known, the decision is checked even if the model never simulated. */
export async function simulateKnown(tools: ToolContext, step: number): Promise<SimulationResult | null> {
  const { simulator } = tools;
  if (!simulator) return null;
  const spec = specFor(simulator, {});
  if (typeof spec === 'string') return null;
  try {
    const result = await simulator.run(spec);
    tools.emit({ type: 'simulation', step, requested: null, result, check: true });
    return result;
  } catch (error) {
    // Verification is a bonus; a failing simulator must not cost the decision, but the decision says it went unchecked.
    tools.memo.knownFailure = `the simulator failed: ${WorkbenchError.from(error).message}`;
    return null;
  }
}

/** The parameter a simulator still lacks, as the analyst reads it after "not checked:". */
function missingParameter(simulator: RunSimulator): string | null {
  if (simulator.scenario === 'locating') {
    if (!simulator.known.country) return 'the question names no country';
    return simulator.known.home ? null : 'the question names no home node';
  }
  return simulator.known.goods ? null : 'the question names no goods';
}

/**
 * Why a run's decision went unchecked when no simulation checked it, in words shown after "not
 * checked:" by the decision cell, the run bar and the reports: the run set-up's reason (the
 * check plan: no simulator fits, the check is off, a parameter is missing or not in the data),
 * else the parameter the simulator lacks, else why its simulation failed.
 */
export function uncheckedReason(tools: ToolContext): string {
  const { simulator } = tools;
  return (
    tools.uncheckedReason ??
    (simulator ? (missingParameter(simulator) ?? tools.memo.knownFailure ?? 'the simulator gave no result') : 'no simulator recognises this schema')
  );
}

/**
 * The simulator's verdict on a decision, or why there is none: the model's last simulation or
 * one run with the question's parameters checks it; otherwise `unchecked` says why not.
 */
export async function checkDecision(tools: ToolContext, step: number, decision: string): Promise<{ verification: Verification | null; unchecked?: string }> {
  const simulation = tools.known.lastSimulation ?? (await simulateKnown(tools, step));
  return simulation ? { verification: verifyDecision(decision, simulation) } : { verification: null, unchecked: uncheckedReason(tools) };
}

/**
 * The decisions the run's simulator would compare: those of the model's last simulation, or of
 * one run quietly (no event) with the parameters the question gives; null when no simulator
 * fits or the parameters are unknown. The answer is checked against them and offered as an enum.
 * They are sorted by name: the simulator lists them best first, and an enum in that order would
 * hand the model the answer (a small model takes the first value it is offered).
 */
export async function candidateIds(tools: ToolContext): Promise<string[] | null> {
  const last = tools.known.lastSimulation;
  if (last) return byName(last.candidates.map((row) => row.candidate));
  const { simulator } = tools;
  if (!simulator) return null;
  const spec = specFor(simulator, {});
  if (typeof spec === 'string') return null;
  tools.memo.knownCandidates ??= simulator.run(spec).then(
    (result) => byName(result.candidates.map((row) => row.candidate)),
    () => null,
  );
  return tools.memo.knownCandidates;
}

function byName(candidates: string[]): string[] {
  return [...candidates].sort((a, b) => a.localeCompare(b, 'en'));
}

import type { Connector } from '../connectors/connector';
import { WorkbenchError } from '../contract/errors';
import type { CheckPlan, ParameterProblem, Scenario } from '../contract/simulation';
import { loadBuildingFromConnector, loadLocatingFromConnector } from '../dqa/from-connector';
import { parameterLabels, parametersFromQuestion, parametersNeeded, type ScenarioParameters } from './question-parameters';
import { simulatorFor, type RunSimulator, type SimulatorChoice } from './run-simulator';

/** The names a scenario's parameters may take in this data. */
type NamesInData = Record<keyof ScenarioParameters, string[]>;

async function namesInData(connector: Connector, scenario: Scenario): Promise<NamesInData> {
  if (scenario === 'locating') {
    const { data } = await loadLocatingFromConnector(connector);
    return { country: data.countries.map((country) => country.name), home: data.tradeNodes.map((node) => node.name), goods: [] };
  }
  const { data } = await loadBuildingFromConnector(connector);
  return { country: [], home: [], goods: data.goods.map((goods) => goods.name) };
}

/** Case, and spaces versus underscores, do not make another name ("Baltic Sea" is baltic_sea). */
const sameName = (a: string, b: string): boolean => a.trim().toLowerCase().replace(/[\s_]+/g, '_') === b.trim().toLowerCase().replace(/[\s_]+/g, '_');

/**
 * A name of the data that the parser read only the first word of: "the price of luxury
 * furniture" reads "luxury", and luxury_furniture is written out whole in the question. Only
 * names beginning with the word read are considered, so a short name elsewhere in the text (a
 * country tag such as ONE in "one merchant") is never taken for the parameter.
 */
function completedName(question: string, first: string, names: readonly string[]): string | undefined {
  const text = ` ${question.toLowerCase().replace(/[\s_]+/g, ' ')} `;
  const prefix = `${first.toLowerCase()} `;
  const written = names.filter((name) => {
    const spaced = name.toLowerCase().replace(/_+/g, ' ');
    return spaced.startsWith(prefix) && new RegExp(`[^a-z0-9]${spaced.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[^a-z0-9]`).test(text);
  });
  return written.length === 1 ? written[0] : undefined;
}

/**
 * What the simulator will check a run's decision with, decided before the run starts: the
 * scenario the schema fits, the parameters read from the question (question-parameters.ts)
 * or given by the analyst (which win), each validated against the data and spelled as the data
 * spells it, and — when the decision cannot be checked — why, in the words the decision cell,
 * the run bar and the reports show after "not checked:".
 */
export async function planCheck(connector: Connector, choice: SimulatorChoice & { question: string }): Promise<CheckPlan & { simulator: RunSimulator | null }> {
  const nothing = { parsed: {}, parameters: {}, problems: [] };
  if (choice.rules === 'off') return { scenario: null, ...nothing, unchecked: 'the simulator check is turned off for this run', simulator: null };
  const simulator = await simulatorFor(connector, { rules: choice.rules, known: {} });
  if (!simulator) return { scenario: null, ...nothing, unchecked: 'no simulator recognises this schema', simulator: null };
  const { scenario } = simulator;
  const parsed = parametersFromQuestion(choice.question, scenario);
  let names: NamesInData;
  try {
    names = await namesInData(connector, scenario);
  } catch (error) {
    return { scenario, parsed, parameters: {}, problems: [], unchecked: `the simulator cannot read this data: ${WorkbenchError.from(error).message}`, simulator: null };
  }

  const parameters: ScenarioParameters = {};
  const problems: ParameterProblem[] = [];
  const missing: string[] = [];
  for (const parameter of parametersNeeded[scenario]) {
    const label = parameterLabels[parameter];
    const given = choice.known[parameter]?.trim();
    // A field the analyst emptied means "none", not "read it from the question".
    if (given === '') {
      missing.push(`no ${label} is given`);
      continue;
    }
    const source = given !== undefined ? 'analyst' : 'question';
    const named = given ?? parsed[parameter];
    if (named === undefined) {
      missing.push(`the question names no ${label}`);
      continue;
    }
    const inData = names[parameter].find((name) => sameName(name, named)) ?? (given === undefined ? completedName(choice.question, named, names[parameter]) : undefined);
    if (inData === undefined) {
      problems.push({ parameter, source, value: named, message: `the ${label} "${named}" ${source === 'analyst' ? 'given' : 'the question names'} is not in this data` });
      continue;
    }
    parameters[parameter] = inData;
  }
  const unchecked = [...problems.map((problem) => problem.message), ...missing].join('; ') || null;
  return { scenario, parsed, parameters, problems, unchecked, simulator: { ...simulator, known: parameters } };
}

/** Refuses a run whose analyst-given parameters are not in the data (a question's own slips only leave it unchecked). */
export function refuseAnalystProblems(plan: CheckPlan): void {
  const given = plan.problems.filter((problem) => problem.source === 'analyst');
  if (given.length > 0) throw new WorkbenchError('invalid-request', `${given.map((problem) => problem.message.replace(/^the /, 'The ')).join('; ')}: correct it or leave it empty`);
}

import { z } from 'zod';

/** The DQA scenarios the workbench can simulate exactly. */
export const scenarioSchema = z.enum(['locating', 'building']);
export type Scenario = z.infer<typeof scenarioSchema>;

/** Which business rules to apply: as the question states them, or as the DQA annotations did. */
export const ruleSetSchema = z.enum(['stated', 'compat']);

/** What to simulate: the scenario and the question's own parameters. */
export const simulationSpecSchema = z.discriminatedUnion('scenario', [
  z.object({
    scenario: z.literal('locating'),
    /** The country placing its merchant, e.g. "SWE". */
    country: z.string().trim().min(1),
    /** Its home trade node, where profit is measured. */
    home: z.string().trim().min(1),
    rules: ruleSetSchema,
  }),
  z.object({
    scenario: z.literal('building'),
    /** The goods whose price should fall, e.g. "furniture". */
    goods: z.string().trim().min(1),
    rules: ruleSetSchema,
  }),
]);
export type SimulationSpec = z.infer<typeof simulationSpecSchema>;

export const simulationResultSchema = z.object({
  spec: simulationSpecSchema,
  /** Every candidate, best first. */
  candidates: z.array(z.object({ candidate: z.string(), before: z.number(), after: z.number(), delta: z.number(), rank: z.number() })),
  best: z.string(),
  /** Objective gap between the best and the runner-up; null when there is no runner-up. */
  margin: z.number().nullable(),
  tied: z.array(z.string()),
  objective: z.string(),
  direction: z.enum(['maximize', 'minimize']),
  candidateSet: z.string(),
  notes: z.array(z.string()),
  elapsedMs: z.number(),
});
export type SimulationResult = z.infer<typeof simulationResultSchema>;

/** How a decision compares with the simulator's optimum. */
export const verificationSchema = z.object({
  decision: z.string(),
  best: z.string(),
  tied: z.array(z.string()),
  /** True when the decision is the best or tied with it. */
  agrees: z.boolean(),
  /** How much worse the decision's objective is than the best (0 when it agrees); null when the decision is not a candidate. */
  regret: z.number().nullable(),
  objective: z.string(),
});
export type Verification = z.infer<typeof verificationSchema>;

/** The parameters a simulator checks a decision with (Locating: country and home node; Building: goods). */
export const scenarioParametersSchema = z.object({ country: z.string().optional(), home: z.string().optional(), goods: z.string().optional() });

/**
 * How a run's decision is checked: the simulator's rules (`off`: not checked, and no `simulate`
 * tool) and the scenario parameters the question names (a DQA question's country and home
 * node, or goods), which are the simulator's to read, not the technique's.
 */
export const simulatorChoiceSchema = z.object({
  rules: z.enum(['stated', 'compat', 'off']).default('stated'),
  known: scenarioParametersSchema.default({}),
});

/** A parameter named by the question or the analyst that the data does not have. */
export const parameterProblemSchema = z.object({
  parameter: z.enum(['country', 'home', 'goods']),
  /** Who named it: a slip in the question leaves the run unchecked, the analyst's is refused at start. */
  source: z.enum(['question', 'analyst']),
  value: z.string(),
  message: z.string(),
});
export type ParameterProblem = z.infer<typeof parameterProblemSchema>;

/**
 * How a run's decision will be checked, known before it starts (simulators/check-plan.ts): the
 * scenario the data fits, the parameters read from the question and those the simulator will
 * use (spelled as in the data), and — when it will not be checked — why ("no simulator
 * recognises this schema", "the question names no home node").
 */
export const checkPlanSchema = z.object({
  scenario: scenarioSchema.nullable(),
  parsed: scenarioParametersSchema,
  parameters: scenarioParametersSchema,
  problems: z.array(parameterProblemSchema),
  unchecked: z.string().nullable(),
});
export type CheckPlan = z.infer<typeof checkPlanSchema>;

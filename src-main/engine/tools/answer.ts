import { z } from 'zod';
import { verifyDecision } from '../../simulators/run-simulation';
import { defineTool } from './tool';
import { simulateKnown } from './simulate';

/** `answer`: the final decision and its rationale; checked by the simulator when one fits. Ends the run. */
export const answerTool = defineTool({
  name: 'answer',
  arguments: z.object({ decision: z.string().trim().min(1), rationale: z.string().trim().min(1) }),
  description: () => 'Give the final decision (just the chosen option, e.g. a name or an id) and the rationale citing the evidence.',
  textForm: 'Final Answer: <the decision only>\nRationale: <the evidence>',
  textSections: ['Final Answer', 'Rationale'],
  fromText: (reply) => {
    const answer = reply.section('final answer');
    if (answer === undefined) return undefined;
    return { decision: answer.split('\n')[0]?.trim() ?? '', rationale: (reply.section('rationale') ?? answer).trim() };
  },
  final: true,
  perform: async (answer, { step }, run) => {
    const check = run.state.lastSimulation ?? (await simulateKnown(run, step));
    run.emit({
      type: 'decision',
      step,
      decision: answer.decision,
      rationale: answer.rationale,
      evidence: [...run.state.evidence],
      verification: check ? verifyDecision(answer.decision, check) : null,
    });
    return { answer };
  },
  cells: {
    decision: (event, _at, cells) => {
      cells.add(event.step, {
        kind: 'decision',
        // A decision computed in code (e.g. DeLLMa's expected utility) is the engine's, not the model's.
        author: event.computedBy ? 'engine' : 'model',
        source: `**Decision${event.computedBy ? ` (computed: ${event.computedBy})` : ''}:** ${event.decision}\n\n${event.rationale}`,
        data: {
          decision: event.decision,
          rationale: event.rationale,
          evidence: event.evidence.map((queryId) => cells.queryCells.get(queryId) ?? queryId),
          verification: event.verification ?? null,
        },
      });
    },
  },
});

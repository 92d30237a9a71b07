/**
 * Benchmark of DeLLMa's arithmetic: `npm run bench:dellma`. For the paper's setting (s = 64
 * states per action, b = 32, q = 0.25) and |A| = 2…7 it builds the rankings a model with a
 * noisy preference would give, then times the Bradley–Terry fit (Pairs and Top-1), the
 * bootstrap (1000 resamples) and the sensitivity scan, and prints ILSR iterations. Each
 * iteration solves a banded system (n = 64·|A| items, half-width < b): n·b² per solve.
 */
import { normaliseFactor, type BeliefFactor } from '../src-main/engine/techniques/dellma/belief';
import { fitPairs, fitTop1 } from '../src-main/engine/techniques/dellma/bradley-terry';
import { windows } from '../src-main/engine/techniques/dellma/minibatch';
import { seededRandom } from '../src-main/engine/techniques/dellma/random';
import { rankToPairs, rankToTop1, type Choice, type Pair } from '../src-main/engine/techniques/dellma/ranking';
import { pairedSample } from '../src-main/engine/techniques/dellma/sampling';
import { bootstrap, sensitivity, utilities } from '../src-main/engine/techniques/dellma/utility';

const timed = <T>(run: () => T): [T, number] => {
  const started = performance.now();
  const result = run();
  return [result, performance.now() - started];
};

console.log('|A|  items  windows  pairs fit (iter)   top-1 fit (iter)   bootstrap   sensitivity');
for (let actions = 2; actions <= 7; actions++) {
  const random = seededRandom(actions);
  const factors: BeliefFactor[] = Array.from({ length: 2 + 2 * actions }, (_, index) =>
    normaliseFactor({ name: `f${index}`, scope: { kind: 'shared' }, values: [{ value: 'a', likelihood: 'likely' }, { value: 'b', likelihood: 'somewhat likely' }, { value: 'c', likelihood: 'unlikely' }] }),
  );
  const sample = pairedSample(random, factors, actions, 64);
  const score = sample.items.map((item) => item.action + 2 * (sample.states[item.stateId]?.[0] ?? 0) + random.next() * 3);
  const pairs: Pair[] = [];
  const choices: Choice[] = [];
  const plan = windows(sample.items.length, 32, 0.25);
  for (const window of plan) {
    const order = Array.from({ length: window.size }, (_, local) => window.start + local).sort((a, b) => (score[b] ?? 0) - (score[a] ?? 0));
    pairs.push(...rankToPairs(order));
    const choice = rankToTop1(order);
    if (choice) choices.push(choice);
  }
  const [pairFit, pairMs] = timed(() => fitPairs(sample.items.length, pairs, { alpha: 2e-3 }));
  const [topFit, topMs] = timed(() => fitTop1(sample.items.length, choices, { alpha: 1e-3 }));
  const u = utilities(pairFit.theta, 1);
  const [, bootMs] = timed(() => bootstrap(sample.items, u, actions, sample.states.length, { resamples: 1000, seed: 1 }));
  const [, sensMs] = timed(() => sensitivity(factors, sample.states, sample.items, u, actions));
  console.log(
    `${String(actions).padStart(3)}  ${String(sample.items.length).padStart(5)}  ${String(plan.length).padStart(7)}  ${pairMs.toFixed(0).padStart(8)} ms (${pairFit.iterations})  ${topMs.toFixed(0).padStart(10)} ms (${topFit.iterations})  ${bootMs.toFixed(0).padStart(7)} ms  ${sensMs.toFixed(0).padStart(9)} ms`,
  );
}

import { dqaQuestionText } from '../../../src-main/benchmark/dqa-question-text';
import { simulate, type DqaQuestion } from '../../support/dqa-technique-model';
import { messageText, type ReceivedChatRequest, type ScriptedTurn } from '../../support/scripted-openai';

/**
 * A scripted model for DeLLMa runs: it answers the forecast prompt with three outcomes and
 * fixed likelihoods for every unknown it is asked about, and ranks every scenario whose option
 * is `preferred` above all others (ties in ascending scenario number). It reads only what the
 * prompt shows, as a model would.
 */
export function lastUserText(request: ReceivedChatRequest): string {
  const users = request.chat.messages.filter((message) => message.role === 'user');
  return messageText(users[users.length - 1] ?? { role: 'user', content: '' });
}

export function isForecast(request: ReceivedChatRequest): boolean {
  return /give exactly 3 distinct outcomes/.test(messageText(request.chat.messages[1] ?? { role: 'user', content: '' }));
}

export function forecastAnswer(request: ReceivedChatRequest): string {
  const text = messageText(request.chat.messages[1] ?? { role: 'user', content: '' });
  const names = text
    .split('The unknowns:\n')[1]!
    .split('\n\n')[0]!
    .split('\n')
    .map((line) => line.replace(/^\d+\.\s*/, ''));
  return JSON.stringify({
    factors: names.map((name) => ({
      name,
      values: [
        { value: 'worse', likelihood: 'somewhat likely' },
        { value: 'same', likelihood: 'Very_Likely' },
        { value: 'better', likelihood: 'unlikely' },
      ],
    })),
  });
}

export function scenariosOf(request: ReceivedChatRequest): { number: number; option: string }[] {
  return [...messageText(request.chat.messages[1] ?? { role: 'user', content: '' }).matchAll(/^Scenario (\d+)\. Future: .*\. Option: (\S+) \(/gm)].map((match) => ({ number: Number(match[1]), option: match[2]! }));
}

export function rankingPreferring(request: ReceivedChatRequest, preferred: string): number[] {
  const scenarios = scenariosOf(request);
  return [...scenarios.filter((s) => s.option === preferred), ...scenarios.filter((s) => s.option !== preferred)].map((s) => s.number);
}

/** One turn of the model that always prefers `preferred`; `partial` answers with only the preferred scenarios (exercising repair). */
export function preferring(preferred: string, options: { partial?: boolean } = {}): (request: ReceivedChatRequest) => ScriptedTurn {
  return (request) => {
    if (isForecast(request)) return { label: 'forecast', content: forecastAnswer(request) };
    const rank = rankingPreferring(request, preferred);
    const kept = options.partial ? rank.filter((number) => scenariosOf(request).find((s) => s.number === number)?.option === preferred) : rank;
    return { label: 'rank', content: JSON.stringify({ decision: rank[0], rank: kept, explanation: `Futures where I plant ${preferred} look best.` }) };
  };
}

/**
 * Ranks every scenario of `preferred` above every other; among one option's scenarios, those
 * whose future says the option turns out better come first, then same, then worse (ties by
 * number). So the futures drawn, and with them the utilities, depend on the forecast, while
 * `preferred` stays first. Reads the factor names a run on a database uses ("how X turns out").
 */
export function rankingReadingFutures(request: ReceivedChatRequest, preferred: string): number[] {
  const text = messageText(request.chat.messages[1] ?? { role: 'user', content: '' });
  const scenarios = [...text.matchAll(/^Scenario (\d+)\. Future: (.*)\. Option: (\S+) \(/gm)].map((match) => ({ number: Number(match[1]), future: match[2] ?? '', option: match[3] ?? '' }));
  const outlook = (scenario: { future: string; option: string }): number => (['worse', 'same', 'better'] as const).findIndex((value) => scenario.future.includes(`how ${scenario.option} turns out = ${value}`));
  const score = (scenario: { future: string; option: string }): number => (scenario.option === preferred ? 10 : 0) + outlook(scenario);
  return [...scenarios].sort((a, b) => score(b) - score(a) || a.number - b.number).map((scenario) => scenario.number);
}

/**
 * DeLLMa on DQA questions (`dwb dqa solve --engine dellma`, the app's Benchmarks): for whichever
 * of `questions` the prompt names, shortlists with the simulator's best first, lists the
 * candidates and the context by query, forecasts, and ranks the best's scenarios first.
 */
export function dqaPrefersBest(questions: readonly DqaQuestion[]): (request: ReceivedChatRequest) => ScriptedTurn {
  return (request) => {
    const text = messageText(request.chat.messages.find((message) => message.role === 'user') ?? { role: 'user', content: '' });
    const question = questions.find((candidate) => text.includes(dqaQuestionText(candidate)));
    if (!question) return { label: 'unknown question', content: 'I cannot tell which question this is.' };
    const best = simulate('locating', question).best;
    if (/Keep at most \d+ candidates/.test(text)) {
      const candidates = (/The candidates:\n(.*)\n/.exec(text)?.[1] ?? '').split(', ');
      return { label: 'shortlist', content: JSON.stringify({ keep: [best, ...candidates.filter((name) => name !== best)].slice(0, 7) }) };
    }
    if (text.includes('first column lists every candidate')) return { label: 'candidates', content: '```sql\nSELECT trade_node FROM trade_node ORDER BY trade_node\n```' };
    if (text.includes('Write one query that retrieves')) return { label: 'query', content: '```sql\nSELECT count(*) AS nodes FROM trade_node\n```' };
    if (isForecast(request)) return { label: 'forecast', content: forecastAnswer(request) };
    const rank = rankingPreferring(request, best);
    return { label: 'rank', content: JSON.stringify({ decision: rank[0], rank, explanation: `${best} first.` }) };
  };
}

/**
 * For DeLLMa questions with what-if lines (./exact-outcomes.test.ts and the server suite). The
 * query step reads the sales table; the forecast lists every unknown the prompt names, an
 * analyst-fixed one with exactly its values (likely, somewhat likely, unlikely in that order),
 * any other with worse/same/better all likely; every ranking puts `preferred`'s scenarios
 * first. Options are matched by their whole name, so names with spaces, quotes or any script work.
 */
export function whatIfModel(preferred: string): (request: ReceivedChatRequest) => ScriptedTurn {
  return (request) => {
    const text = messageText(request.chat.messages.find((message) => message.role === 'user') ?? { role: 'user', content: '' });
    if (text.includes('Write one query that retrieves')) return { label: 'query', content: '```sql\nSELECT region, qty, price FROM sales\n```' };
    if (text.includes('give exactly 3 distinct outcomes')) {
      const names = (text.split('The unknowns:\n')[1] ?? '').split('\n\n')[0]!.split('\n').map((line) => line.replace(/^\d+\.\s*/, ''));
      const fixedLines = text.split('\n').filter((line) => line.startsWith('- '));
      const likelihoods = ['likely', 'somewhat likely', 'unlikely'];
      const factors = names.map((name) => {
        const fixed = fixedLines.find((line) => line.startsWith(`- ${name}: `))?.slice(`- ${name}: `.length).split('; ');
        return { name, values: (fixed ?? ['worse', 'same', 'better']).map((value, index) => ({ value, likelihood: fixed ? likelihoods[index] : 'likely' })) };
      });
      return { label: 'forecast', content: JSON.stringify({ factors }) };
    }
    if (text.includes('Which one option should I take?')) return { label: 'zero-shot answer', content: JSON.stringify({ decision: preferred, explanation: `${preferred}.` }) };
    const scenarios = [...lastUserText(request).matchAll(/^Scenario (\d+)\. Future: .*$/gm)].map((match) => ({ number: Number(match[1]), preferred: match[0].includes(`. Option: ${preferred} (`) }));
    const rank = [...scenarios.filter((s) => s.preferred), ...scenarios.filter((s) => !s.preferred)].map((s) => s.number);
    return { label: 'rank', content: JSON.stringify({ decision: rank[0], rank, explanation: `${preferred} first.` }) };
  };
}

/** The sales questions' model: options north and south, north preferred. */
export const salesWhatIfModel = whatIfModel('north');

import type { ChatMessage, ModelProvider } from '../../../llm/types';
import { actionLine, seedLibrary, type ActionLibrary, type LibraryAction } from './library';
import { parseProgram } from './program';

/**
 * Action mining (Pearl §3.1, SPECS.md §2.1 stage A) for decision questions: one model call per
 * training question proposes new actions and a sample program; proposals are merged by name
 * (the last definition wins, as in the reference code); then simplification rounds cut the
 * list into shards of 80 and ask, per shard, to merge the same, abstract the over-specific and
 * drop negations, until the library is small. Every round is kept so the analyst sees what
 * merged into what before accepting the result.
 *
 * The DQA development set has only two question templates, so mining over its questions alone
 * yields a handful of near-identical actions. Mining therefore also draws on the business rules:
 * each distinct rules text gets a call of its own asking for one action per formula term (TPR,
 * IV, profit; TD, TS, CP), because every term is a quantity some analysis must compute [ext].
 */
export interface MiningQuestion {
  id: string;
  question: string;
  rules: string;
}

export interface MiningOptions {
  questions: readonly MiningQuestion[];
  provider: ModelProvider;
  /** Starts from this library (default: the seed); its scenario and schema are kept. */
  library?: ActionLibrary;
  scenario: string;
  schema: string;
  shardSize?: number;
  /** Simplify until at most this many actions remain (or a round stops shrinking the list). */
  target?: number;
  maxRounds?: number;
  signal?: AbortSignal;
  onProgress?: (line: string) => void;
}

export interface Proposal {
  source: string;
  newActions: { name: string; params: string[]; definition: string }[];
  program: string;
  /** Whether the sample program parses against the library and its own new actions. */
  programValid: boolean;
}

export type MiningRound =
  | { round: 0; kind: 'proposals'; calls: number; before: number; after: number; proposals: Proposal[]; actions: string[] }
  | { round: number; kind: 'simplify'; calls: number; shards: number; before: number; after: number; merges: { into: string; from: string[] }[]; actions: string[]; problems: string[] };

export interface MiningResult {
  library: ActionLibrary;
  rounds: MiningRound[];
}

export const defaultShardSize = 80;
export const defaultMiningTarget = 40;
export const defaultMiningRounds = 4;
/** Actions the executor needs whatever a simplification round says (CONCAT runs in code). */
const pinned = new Set(['CONCAT']);

export async function mineActions(options: MiningOptions): Promise<MiningResult> {
  const start = options.library ?? seedLibrary();
  const shardSize = options.shardSize ?? defaultShardSize;
  const target = options.target ?? defaultMiningTarget;
  const maxRounds = options.maxRounds ?? defaultMiningRounds;
  const byName = new Map<string, LibraryAction>(start.actions.map((action) => [action.name, action]));
  const rounds: MiningRound[] = [];

  // Round 0: one call per question, and one per distinct rules text (its formula terms).
  const sources: MiningQuestion[] = [...options.questions];
  const rulesTexts = [...new Set(options.questions.map((question) => question.rules.trim()).filter(Boolean))];
  rulesTexts.forEach((rules, index) => sources.push({ id: `rules-${index + 1}`, question: 'Compute, one by one, every quantity these business rules define (each formula term), as a decision of this kind needs them.', rules }));
  const proposals: Proposal[] = [];
  const before = byName.size;
  for (const source of sources) {
    const reply = await ask(options, miningMessages([...byName.values()], start, source), 512);
    const { newActions, program } = readProposal(reply);
    for (const action of newActions) {
      byName.set(action.name, { name: action.name, params: action.params, definition: action.definition, usage: byName.get(action.name)?.usage ?? 0, provenance: `mined: ${source.id}` });
    }
    const signatures = [...byName.values()].map((action) => ({ name: action.name, params: action.params, ...(action.variadic ? { variadic: true } : {}) }));
    proposals.push({ source: source.id, newActions, program, programValid: program !== '' && parseProgram(`New actions:\n- None\n\n${program}`, signatures).ok });
    options.onProgress?.(`proposed by ${source.id}: ${newActions.map((action) => action.name).join(', ') || 'nothing new'}`);
  }
  rounds.push({ round: 0, kind: 'proposals', calls: sources.length, before, after: byName.size, proposals, actions: [...byName.keys()] });

  // Simplification rounds over shards of `shardSize`.
  let actions = [...byName.values()];
  for (let round = 1; round <= maxRounds && actions.length > target; round++) {
    const fixed = actions.filter((action) => pinned.has(action.name));
    const free = actions.filter((action) => !pinned.has(action.name));
    const shards: LibraryAction[][] = [];
    for (let index = 0; index < free.length; index += shardSize) shards.push(free.slice(index, index + shardSize));
    const next = new Map<string, LibraryAction>(fixed.map((action) => [action.name, action]));
    const merges: { into: string; from: string[] }[] = [];
    const problems: string[] = [];
    for (const [shardIndex, shard] of shards.entries()) {
      const reply = await ask(options, simplifyMessages(shard), 2048);
      const simplified = readSimplified(reply);
      if (simplified.length === 0) {
        problems.push(`shard ${shardIndex + 1}: the reply listed no actions; the shard is kept as it was`);
        for (const action of shard) next.set(action.name, action);
        continue;
      }
      for (const action of simplified) {
        const from = action.from.filter((name) => shard.some((candidate) => candidate.name === name));
        const usage = shard.filter((candidate) => from.includes(candidate.name) || candidate.name === action.name).reduce((sum, candidate) => sum + candidate.usage, 0);
        next.set(action.name, { name: action.name, params: action.params, definition: action.definition, usage, provenance: `mined: round ${round}${from.length ? ` from ${from.join(', ')}` : ''}` });
        if (from.length > 1 || (from.length === 1 && from[0] !== action.name)) merges.push({ into: action.name, from });
      }
    }
    const after = [...next.values()];
    rounds.push({ round, kind: 'simplify', calls: shards.length, shards: shards.length, before: actions.length, after: after.length, merges, actions: after.map((action) => action.name), problems });
    options.onProgress?.(`round ${round}: ${actions.length} → ${after.length} actions in ${shards.length} shard${shards.length === 1 ? '' : 's'}`);
    const shrank = after.length < actions.length;
    actions = after;
    if (!shrank) break;
  }
  return { library: { ...start, scenario: options.scenario, schema: options.schema, actions }, rounds };
}

async function ask(options: MiningOptions, messages: ChatMessage[], maxTokens: number): Promise<string> {
  const response = await options.provider.generate({ messages, temperature: 0, maxTokens }, options.signal ? { signal: options.signal } : {});
  return response.content;
}

function miningMessages(actions: readonly LibraryAction[], library: ActionLibrary, source: MiningQuestion): ChatMessage[] {
  return [
    {
      role: 'system',
      content: [
        'You help build a vocabulary of analysis actions for business decision questions answered from a database. An action is like a function: it takes arguments and gives an output, and one action\'s output can be the argument of another. A parameter named DB means the action reads the database. You have not seen the data.',
        `# Actions so far\n${actions.map((action) => `- ${actionLine(action)}`).join('\n')}`,
        ...(library.demonstrations.length ? [`# Examples\n${library.demonstrations.map((demo) => `Question: ${demo.question}\n${demo.program}`).join('\n\n')}`] : []),
        [
          '# Rules',
          '1. Propose the actions this question needs that the list lacks; reuse the listed ones wherever they fit.',
          '2. A new action must be general enough for other questions of the kind, with a signature and one sentence saying what it does.',
          '3. Then show a short program using them: minimal, specific, covering every detail of the question.',
          'Reply exactly in this form:\nNew actions:\n- NAME(ARG1, ARG2) : one sentence     (or "- None")\n\n1. out1 = ACTION(arguments) : what this step finds\n2. …',
        ].join('\n'),
      ].join('\n\n'),
    },
    { role: 'user', content: `${source.rules.trim() ? `# Business rules\n${source.rules.trim()}\n\n` : ''}# Question\n${source.question.trim()}` },
  ];
}

function simplifyMessages(shard: readonly LibraryAction[]): ChatMessage[] {
  return [
    {
      role: 'system',
      content:
        'You simplify a list of analysis actions for decision questions over a database. Merge actions that do the same or nearly the same thing; replace over-specific actions with a general one; drop an action that only negates another (NOT_…) when the positive one can be negated; keep the definitions one sentence long. Aim for at most a third as many actions as you are given.',
    },
    {
      role: 'user',
      content: `# Actions\n${shard.map((action) => `- ${actionLine(action)}`).join('\n')}\n\nReply with the simplified list only, one action per line, naming the actions each one replaces:\n- NAME(ARG1, ARG2) : one sentence [from: OLD_NAME, OTHER_OLD_NAME]`,
    },
  ];
}

const actionPattern = /^\s*[-*•]?\s*([A-Z][A-Z0-9_]*)\s*\(([^()]*)\)\s*:\s*(.+?)\s*$/;

/** The "New actions" lines of a mining reply (others ignored) and the program after them. */
export function readProposal(reply: string): { newActions: Proposal['newActions']; program: string } {
  const lines = reply.replace(/\r\n?/g, '\n').split('\n');
  const newActions: Proposal['newActions'] = [];
  let index = lines.findIndex((line) => /^\s*new actions/i.test(line));
  index = index < 0 ? 0 : index + 1;
  for (; index < lines.length; index++) {
    const line = lines[index] as string;
    if (line.trim() === '') break;
    const action = actionFrom(line);
    if (action) newActions.push(action);
  }
  const program = lines
    .slice(index)
    .filter((line) => /^\s*\d+\s*[.)]/.test(line))
    .map((line) => line.trim())
    .join('\n');
  return { newActions, program };
}

/** The simplified list: each action and the old names it replaces. */
export function readSimplified(reply: string): { name: string; params: string[]; definition: string; from: string[] }[] {
  return reply
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .flatMap((line) => {
      const from = /\[from:\s*([^\]]*)\]\s*$/i.exec(line);
      const action = actionFrom(from ? line.slice(0, from.index) : line);
      return action ? [{ ...action, from: from ? (from[1] ?? '').split(',').map((name) => name.trim()).filter(Boolean) : [action.name] }] : [];
    });
}

function actionFrom(line: string): { name: string; params: string[]; definition: string } | null {
  const match = actionPattern.exec(line);
  if (!match) return null;
  const params = (match[2] ?? '').split(',').map((param) => param.trim().replace(/[^A-Za-z0-9_]/g, '')).filter(Boolean);
  if (params.length === 0) return null;
  return { name: match[1] ?? '', params, definition: match[3] ?? '' };
}

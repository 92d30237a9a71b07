/**
 * AutoPlan's formalizer (Ouyang & Li 2023): a free-form action becomes exactly one valid
 * action, `Query[<SQL or Cypher>]` or `Finish[<decision>]`. The deterministic fast path
 * reads an action already in (or close to) that syntax without a model call; only text it
 * cannot read goes to the formalizer model call, whose reply is read by the same path.
 * When several actions were written, only the first is kept.
 */
export type FormalAction = { kind: 'query'; text: string } | { kind: 'finish'; decision: string };

const OPENER = /\b(query|finish)\s*\[/i;

/** The text inside the brackets that open at `start` (nested brackets balanced; unclosed runs to the end). */
function bracketBody(text: string, start: number): string {
  let depth = 0;
  for (let index = start; index < text.length; index += 1) {
    const char = text[index];
    if (char === '[') depth += 1;
    else if (char === ']') {
      depth -= 1;
      if (depth === 0) return text.slice(start + 1, index);
    }
  }
  return text.slice(start + 1);
}

function stripFences(text: string): string {
  return text.replace(/^\s*```[a-z]*\s*\n?/i, '').replace(/\n?\s*```\s*$/, '').trim();
}

/**
 * The fast path: `Query[…]` / `Finish[…]` anywhere in the text (the first one wins), or a line
 * `Query: …` / `Finish: …`. Null when the text follows neither form.
 */
export function formalizeFast(raw: string): FormalAction | null {
  const text = raw.replace(/^\s*action\s*:\s*/i, '');
  const opener = OPENER.exec(text);
  if (opener) {
    const body = stripFences(bracketBody(text, opener.index + opener[0].length - 1));
    if (body === '') return null;
    return opener[1]?.toLowerCase() === 'query' ? { kind: 'query', text: body } : { kind: 'finish', decision: body };
  }
  const labelled = /^\s*(query|finish)\s*:\s*([\s\S]*)$/i.exec(text);
  if (labelled) {
    const kind = labelled[1]?.toLowerCase();
    const rest = labelled[2] ?? '';
    // A later action label starts the next action, which is dropped.
    const first = stripFences(rest.split(/\n\s*(?:query|finish)\s*[:[]/i)[0] ?? '');
    if (first === '') return null;
    return kind === 'query' ? { kind: 'query', text: first } : { kind: 'finish', decision: first.split('\n')[0]?.trim() ?? first };
  }
  return null;
}

/** How an action is written back into the conversation. */
export function actionText(action: FormalAction): string {
  return action.kind === 'query' ? `Query[${action.text}]` : `Finish[${action.decision}]`;
}

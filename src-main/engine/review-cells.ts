import type { RunEvent } from '../contract/run';

type ReviewEvent = Extract<RunEvent, { type: 'analyst-review' }>;

const subjectNames = { query: 'query', replan: 'plan', plan: 'plan graph', forecast: 'forecast', ranking: 'ranking' } as const;
const fenceLanguages = { query: 'sql', replan: '', plan: 'json', forecast: '', ranking: '' } as const;

/**
 * What the analyst did at a review point, as the note cell the notebook keeps of it: the
 * model's original beside an edit, the text of a skipped query, the note, a stop. A plain
 * approval leaves no cell (the report's review table lists it). Null when there is nothing to keep.
 */
export function reviewNoteSource(event: ReviewEvent): string | null {
  const what = subjectNames[event.subject];
  const proposed = markdownFence(event.original, fenceLanguages[event.subject]);
  const note = event.note ? `\n\n**Analyst note:** ${event.note}` : '';
  switch (event.action) {
    case 'approve':
      // A plain approval leaves no cell; one carrying a note (a Plan*RAG node re-run [ext]) keeps it.
      return event.note ? `**Analyst note (${event.subject}):** ${event.note}` : null;
    case 'note':
      return `**Analyst note (${event.subject}):** ${event.note ?? ''}`;
    case 'edit':
      return `**The analyst edited the model's ${what}.** The model proposed:\n\n${proposed}${note}`;
    case 'skip':
      return `**The analyst skipped the model's ${what}:**\n\n${proposed}${note}`;
    case 'stop':
      return `**The analyst stopped the run here to continue by hand.** The pending ${what}:\n\n${proposed}`;
  }
}

/** A fenced block that no backtick run inside the text can close. */
function markdownFence(text: string, language = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${text}\n${fence}`;
}

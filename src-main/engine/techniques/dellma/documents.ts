import { documentLimits, type RunDocument } from '../../../contract/documents';
import type { DellmaDocumentUse } from '../../../contract/dellma';

/** Characters of attached documents a DeLLMa context takes, all together (why: contract/documents.ts). */
export const documentContextBudget = documentLimits.contextChars;

/**
 * The documents the analyst attached, as context text the model reads, within `budget`
 * characters: documents in the order attached, each given an equal share of what is left
 * (a short one leaves its unused share to the ones after it). A cut document says so in the
 * text, with how many of its characters were used, so the model knows it read a part.
 */
export function documentContext(documents: readonly RunDocument[], budget: number = documentContextBudget): { text: string; used: DellmaDocumentUse[] } {
  let remaining = Math.max(0, budget);
  const used: DellmaDocumentUse[] = [];
  const sections: string[] = [];
  documents.forEach((document, index) => {
    const share = Math.floor(remaining / (documents.length - index));
    let usedChars = Math.min(document.text.length, share);
    // Never split a surrogate pair at the cut.
    if (usedChars > 0 && usedChars < document.text.length && /[\uD800-\uDBFF]/.test(document.text.charAt(usedChars - 1))) usedChars--;
    remaining -= usedChars;
    const truncated = usedChars < document.text.length;
    used.push({ name: document.name, chars: document.text.length, usedChars, truncated });
    const note = truncated ? `\n[Document truncated: the first ${usedChars.toLocaleString('en-US')} of ${document.text.length.toLocaleString('en-US')} characters are used.]` : '';
    sections.push(`Document "${document.name}" (attached by the analyst):\n${document.text.slice(0, usedChars)}${note}`);
  });
  return { text: sections.join('\n\n'), used };
}

/** "report.txt (8,000 of 55,966 characters, truncated); notes.md (1,204 characters)". */
export function describeDocumentUse(used: readonly DellmaDocumentUse[]): string {
  return used.map((document) => `${document.name} (${document.truncated ? `${document.usedChars.toLocaleString('en-US')} of ${document.chars.toLocaleString('en-US')} characters, truncated` : `${document.chars.toLocaleString('en-US')} characters`})`).join('; ');
}

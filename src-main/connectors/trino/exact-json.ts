/**
 * Trino's protocol writes BIGINT values as bare JSON numbers, which JSON.parse rounds past 2^53.
 * Before parsing, every number literal with more than 15 digits is put in quotes, so it arrives
 * as the exact text the server wrote (cell-values.ts then keeps it as text unless it is safe).
 * Strings are skipped whole, so digits inside text are never touched.
 */
export function parseExactJson(text: string): unknown {
  return JSON.parse(quoteLongNumbers(text));
}

export function quoteLongNumbers(text: string): string {
  let out = '';
  let copied = 0;
  let index = 0;
  while (index < text.length) {
    const char = text[index];
    if (char === '"') {
      index = stringEnd(text, index);
      continue;
    }
    if (char === '-' || (char !== undefined && char >= '0' && char <= '9')) {
      const end = numberEnd(text, index);
      const literal = text.slice(index, end);
      if (literal.replace(/[^0-9]/g, '').length > 15 && /^-?\d+$/.test(literal)) {
        out += `${text.slice(copied, index)}"${literal}"`;
        copied = end;
      }
      index = end;
      continue;
    }
    index += 1;
  }
  return out + text.slice(copied);
}

function stringEnd(text: string, start: number): number {
  let index = start + 1;
  while (index < text.length) {
    const char = text[index];
    if (char === '\\') index += 2;
    else if (char === '"') return index + 1;
    else index += 1;
  }
  return text.length;
}

function numberEnd(text: string, start: number): number {
  let index = start + 1;
  while (index < text.length && /[0-9eE+.-]/.test(text[index] ?? '')) index += 1;
  return index;
}

/**
 * A small CSV reader for the DeLLMa data files that keeps each physical line's number, so a
 * malformed row can be reported as file:line. Fields follow RFC 4180 quoting ("a, b" is one
 * field, "" inside quotes is a quote); a quoted field spanning lines is reported as malformed
 * (none of these files has one).
 */
export interface CsvRow {
  line: number;
  fields: string[];
  raw: string;
}

export interface CsvProblem {
  file: string;
  line: number;
  message: string;
  raw: string;
}

export function splitCsvLine(text: string): string[] | null {
  const fields: string[] = [];
  let field = '';
  let quoted = false;
  let wasQuoted = false;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') {
        field += '"';
        index++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"' && field === '' && !wasQuoted) {
      quoted = true;
      wasQuoted = true;
    } else if (char === ',') {
      fields.push(field);
      field = '';
      wasQuoted = false;
    } else field += char;
  }
  if (quoted) return null;
  fields.push(field);
  return fields;
}

/** Splits a file into its header and rows; unbalanced quotes become problems, blank lines are skipped. */
export function readCsv(file: string, text: string): { header: string[]; rows: CsvRow[]; problems: CsvProblem[] } {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const rows: CsvRow[] = [];
  const problems: CsvProblem[] = [];
  let header: string[] | null = null;
  lines.forEach((raw, position) => {
    const line = position + 1;
    if (raw.trim() === '') return;
    const fields = splitCsvLine(raw);
    if (!fields) {
      problems.push({ file, line, message: 'unbalanced quotes', raw });
      return;
    }
    if (header === null) header = fields.map((field) => field.trim());
    else rows.push({ line, fields, raw });
  });
  return { header: header ?? [], rows, problems };
}

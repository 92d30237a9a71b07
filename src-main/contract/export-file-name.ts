/**
 * A readable name for a file exported from a query cell: the notebook's title and the cell's
 * place in it ("Sales-review-cell-3.csv"), where `query-1f2e3d4c.csv` said nothing. Only
 * letters, digits, '-', '_' and '.' are kept, so the name is safe on every file system and in
 * a download header; a title with none of them falls back to the query's first table.
 */
export function exportFileName(parts: { notebookTitle: string; position: number; query?: string }, extension = 'csv'): string {
  const title = sanitizeFileNamePart(parts.notebookTitle) || sanitizeFileNamePart(firstTableOf(parts.query ?? '') ?? '') || 'query';
  return `${title}-cell-${parts.position}.${extension}`;
}

const maxTitleChars = 80;

export function sanitizeFileNamePart(text: string): string {
  return text
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}._-]+/gu, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, maxTitleChars)
    .replace(/[-.]+$/g, '');
}

/** The first table a SQL query reads (`FROM name`), or a Cypher query's first label (`(n:Label`). */
function firstTableOf(query: string): string | undefined {
  return /\bfrom\s+["`[]?([\p{L}\p{N}_.]+)/iu.exec(query)?.[1] ?? /\(\s*\w*\s*:\s*`?([\p{L}\p{N}_]+)/u.exec(query)?.[1];
}

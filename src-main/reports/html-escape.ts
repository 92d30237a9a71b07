/**
 * Text made safe for HTML content and attribute values. Everything the model, the data or the
 * analyst wrote goes through this before it reaches a report's markup.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => entities[character] ?? character);
}

const entities: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** A tagged template that escapes every interpolated value unless it is already `Html`. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

export type HtmlPart = Html | string | number | null | undefined | false | readonly HtmlPart[];

export function html(strings: TemplateStringsArray, ...values: HtmlPart[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, index) => {
    out += render(value) + (strings[index + 1] ?? '');
  });
  return new Html(out);
}

/** Joins parts, escaping plain strings; null, undefined and false render as nothing. */
export function render(value: HtmlPart): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

/** Marks markup this module built itself (never text from outside) as safe to insert. */
export function trusted(markup: string): Html {
  return new Html(markup);
}

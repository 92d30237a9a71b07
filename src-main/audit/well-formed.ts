/**
 * Replaces every lone surrogate in the strings (and keys) of a JSON-like value with U+FFFD.
 * A model can write "\ud83d" in its tool-call JSON and a cut at a fixed length can split a
 * pair; JSON.stringify then writes a lone surrogate, which other readers replace or keep
 * differently, and which the strict bundle reader (strict-json.ts) refuses. Run events and
 * transcript lines pass through here before they are hashed and written, so what is signed
 * reads one way. Returns the value itself when nothing needs replacing.
 */
export function wellFormed<T>(value: T): T {
  return clean(value) as T;
}

const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

function clean(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(loneSurrogate, '\ufffd');
  if (Array.isArray(value)) {
    let changed: unknown[] | null = null;
    value.forEach((item, index) => {
      const cleaned = clean(item);
      if (cleaned !== item) (changed ??= [...value])[index] = cleaned;
    });
    return changed ?? value;
  }
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    let changed = false;
    const entries = Object.entries(value).map(([key, item]) => {
      const cleanKey = key.replace(loneSurrogate, '\ufffd');
      const cleaned = clean(item);
      if (cleanKey !== key || cleaned !== item) changed = true;
      return [cleanKey, cleaned] as const;
    });
    return changed ? Object.fromEntries(entries) : value;
  }
  return value;
}

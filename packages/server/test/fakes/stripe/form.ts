/**
 * Stripe's request encoding (vendor-apis.md §6.1): `application/x-www-form-urlencoded` with bracket
 * nesting, `metadata[order]=42`, `line_items[0][price]=price_1`. Parsed into nested objects; an object
 * whose keys are exactly 0..n-1 becomes an array. Every leaf stays a string, as Stripe receives it.
 */
export type FormValue = string | FormValue[] | { [key: string]: FormValue };
export type FormObject = { [key: string]: FormValue };

export function parseForm(text: string): FormObject {
  const root: FormObject = {};
  if (text.trim() === '') return root;
  for (const pair of text.split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const rawKey = eq === -1 ? pair : pair.slice(0, eq);
    const rawValue = eq === -1 ? '' : pair.slice(eq + 1);
    const key = decodeURIComponent(rawKey.replace(/\+/g, ' '));
    const value = decodeURIComponent(rawValue.replace(/\+/g, ' '));
    const path = keyPath(key);
    let node: Record<string, FormValue> = root;
    for (let i = 0; i < path.length - 1; i++) {
      const segment = path[i]!;
      const next = node[segment];
      if (typeof next !== 'object' || next === null) node[segment] = {};
      node = node[segment] as Record<string, FormValue>;
    }
    node[path[path.length - 1]!] = value;
  }
  return arraysFromIndexedObjects(root) as FormObject;
}

/** `a[b][0]` → `['a', 'b', '0']`; `a[]` appends (its index is the next free one). */
function keyPath(key: string): string[] {
  const first = key.indexOf('[');
  if (first === -1) return [key];
  const segments = [key.slice(0, first)];
  const re = /\[([^\]]*)\]/g;
  let match: RegExpExecArray | null;
  while ((match = re.exec(key.slice(first))) !== null) segments.push(match[1] === '' ? `__append_${appendCounter++}` : match[1]!);
  return segments;
}
let appendCounter = 0;

function arraysFromIndexedObjects(value: FormValue): FormValue {
  if (typeof value === 'string' || Array.isArray(value)) return value;
  const keys = Object.keys(value);
  const converted: Record<string, FormValue> = {};
  for (const k of keys) converted[k] = arraysFromIndexedObjects(value[k]!);
  if (keys.length > 0 && keys.every((k) => k.startsWith('__append_'))) return keys.map((k) => converted[k]!);
  if (keys.length > 0 && keys.every((k) => /^\d+$/.test(k)) && keys.map(Number).sort((a, b) => a - b).every((n, i) => n === i)) {
    return keys.map(Number).sort((a, b) => a - b).map((n) => converted[String(n)]!);
  }
  return converted;
}

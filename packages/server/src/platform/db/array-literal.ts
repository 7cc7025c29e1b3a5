/**
 * A PostgreSQL array literal (`{"a","b",NULL}`) for an array parameter of a set-based statement
 * (`unnest(${arrayLiteral(ids)}::uuid[])`). Both drivers send a string parameter as it is (node-postgres
 * as text, PGlite's array serializer passes non-arrays through), and the cast parses it on the
 * server. The drivers' own encoding runs two regular expressions over every element; for a batch of
 * 500 events (20 columns) that was a tenth of its Node CPU (ADR 0029). Elements are always quoted, so
 * any text is safe; a quote or backslash inside one is escaped.
 */
export function arrayLiteral(values: readonly (string | null)[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (i > 0) out += ',';
    if (v === null) out += 'NULL';
    else if (v.includes('"') || v.includes('\\')) out += `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
    else out += `"${v}"`;
  }
  return `${out}}`;
}

/**
 * A jsonb column of a set-based statement as its distinct documents and, per row, the 1-based index
 * of its document (NULL for a NULL): `(${docs}::jsonb[])[v.doc]` in place of `v.doc` from
 * `${arrayLiteral(values)}::jsonb[]`. PostgreSQL parses every jsonb element of an array parameter
 * (about 18 µs for a context of seven keys, here), and the rows of one statement often carry the same
 * document (the ledger metadata of a batch's draws by one weight, the check's `{"allowed":true}`):
 * each distinct one is now parsed once. Parsing 1,000 such contexts was 20 ms against 2.4 ms as
 * text, inside the transaction that holds a mixed batch's pool and counter locks.
 */
export function distinctDocuments(values: readonly (string | null)[]): { docs: string; index: string } {
  const position = new Map<string, number>();
  const docs: string[] = [];
  const index: (string | null)[] = [];
  for (const v of values) {
    if (v === null) {
      index.push(null);
      continue;
    }
    let at = position.get(v);
    if (at === undefined) {
      docs.push(v);
      position.set(v, (at = docs.length));
    }
    index.push(String(at));
  }
  return { docs: arrayLiteral(docs), index: arrayLiteral(index) };
}

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

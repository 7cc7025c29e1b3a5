/**
 * Splits a SQL script into its statements at the top-level semicolons: not inside '…' strings,
 * "…" identifiers, $tag$…$tag$ bodies, -- line comments or /* … *\/ block comments (nested, as
 * PostgreSQL nests them). Empty statements are dropped; comments stay with the statement they precede.
 * Used where a server refuses several statements in one query (Citus propagating DDL, ADR 0023).
 */
export function splitSqlStatements(script: string): string[] {
  const out: string[] = [];
  let start = 0;
  let i = 0;
  const n = script.length;
  while (i < n) {
    const ch = script[i]!;
    const next = script[i + 1];
    if (ch === "'" || ch === '"') {
      i = closeQuoted(script, i, ch);
    } else if (ch === '-' && next === '-') {
      const end = script.indexOf('\n', i);
      i = end < 0 ? n : end + 1;
    } else if (ch === '/' && next === '*') {
      let depth = 1;
      i += 2;
      while (i < n && depth > 0) {
        const pair = script.slice(i, i + 2);
        depth += pair === '/*' ? 1 : pair === '*/' ? -1 : 0;
        i += pair === '/*' || pair === '*/' ? 2 : 1;
      }
    } else if (ch === '$') {
      const tag = /^\$[A-Za-z_]?[A-Za-z0-9_]*\$/.exec(script.slice(i, i + 64))?.[0];
      if (tag && !/[A-Za-z0-9_]/.test(script[i - 1] ?? '')) {
        const end = script.indexOf(tag, i + tag.length);
        i = end < 0 ? n : end + tag.length;
      } else i += 1;
    } else if (ch === ';') {
      push(out, script.slice(start, i));
      start = i + 1;
      i += 1;
    } else i += 1;
  }
  push(out, script.slice(start));
  return out;
}

function closeQuoted(script: string, at: number, quote: string): number {
  let i = at + 1;
  while (i < script.length) {
    if (script[i] === quote) {
      if (script[i + 1] === quote) i += 2; // a doubled quote inside
      else return i + 1;
    } else i += 1;
  }
  return script.length;
}

function push(out: string[], statement: string) {
  const code = statement.replace(/--[^\n]*/g, '').trim();
  if (code.length > 0) out.push(statement.trim());
}

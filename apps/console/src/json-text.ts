/**
 * A payload as JSON text, exactly: the exact codec of `@tally/client` (decimal amounts travel as
 * decimal strings and are written back as the number lexemes they arrived as, digit for digit),
 * indented token by token. No number is ever parsed here. Pure: the unit tests run it in Node.
 */
import { stringifyJson } from '@tally/client';

/** `value` (as the console's exact codec read it) as indented JSON text, its amounts as they were sent. */
export function jsonText(value: unknown): string {
  return indentJson(stringifyJson(value));
}

/** Compact JSON text indented by two spaces; strings and numbers are copied character for character. */
export function indentJson(text: string): string {
  let out = '';
  let depth = 0;
  const newline = () => `\n${'  '.repeat(depth)}`;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '"') {
      const end = endOfString(text, i);
      out += text.slice(i, end);
      i = end - 1;
    } else if (ch === '{' || ch === '[') {
      const close = ch === '{' ? '}' : ']';
      let j = i + 1;
      while (/\s/.test(text[j] ?? '')) j++;
      if (text[j] === close) {
        out += ch + close;
        i = j;
      } else {
        depth++;
        out += ch + newline();
      }
    } else if (ch === '}' || ch === ']') {
      depth--;
      out += newline() + ch;
    } else if (ch === ',') out += `,${newline()}`;
    else if (ch === ':') out += ': ';
    else if (!/\s/.test(ch)) out += ch;
  }
  return out;
}

/** The index just past the string starting at `start` (a `"`), escapes skipped. */
function endOfString(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i + 1;
}

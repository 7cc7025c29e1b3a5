/**
 * Stage 1 of validation: the JSON shape, field by field (methodology 4.1/4.2).
 *
 * The messages are the upstream schema library's default wording, which the
 * failure envelope exposes verbatim, so they are reproduced literally here
 * rather than produced by a dependency.
 */
import { isCalendarDate } from './dates.js';
import { isCanonicalDecimal } from './decimal.js';
import type { ValidationIssue } from './types.js';

export type ShapeNode =
  | { readonly kind: 'text' } // non-empty string
  | { readonly kind: 'decimal' }
  | { readonly kind: 'date' }
  | { readonly kind: 'integer' }
  | { readonly kind: 'scenarioKey' }
  | { readonly kind: 'record' } // object of arbitrary JSON values
  | { readonly kind: 'array'; readonly element: ShapeNode }
  | { readonly kind: 'object'; readonly fields: readonly ShapeField[] };

export interface ShapeField {
  readonly name: string;
  readonly node: ShapeNode;
  readonly optional?: boolean;
}

export interface ShapeReport {
  readonly issues: ValidationIssue[];
  /** A fatal issue (missing key, wrong type, bad scenario key) blocks stage 2. */
  readonly fatal: boolean;
}

const MESSAGES = {
  required: 'Required',
  decimal: 'must be a canonical base-10 decimal string with at most 12 fractional digits',
  date: 'must be an ISO 8601 date-only string in YYYY-MM-DD form',
  empty: 'String must contain at least 1 character(s)',
  float: 'Expected integer, received float',
} as const;

const SCENARIO_KEYS: readonly string[] = ['low', 'base', 'high'];
const SCENARIO_KEY_LIST = "'low' | 'base' | 'high'";

const DECIMAL_PATH_SUFFIXES = [
  '.allocation',
  '.lowBalanceThreshold',
  '.creditsUsed',
  '.current',
  '.creditDelta',
  '.burnMultiplier',
  '.estimatedUnits',
  '.creditsPerUnit',
];

/** Issue code for a stage-1 issue: kind first, then the field the path names. */
function stageOneCode(kind: 'required' | 'unrecognized' | 'value', path: string): string {
  if (kind === 'required') return 'REQUIRED_FIELD';
  if (kind === 'unrecognized') return 'UNRECOGNIZED_FIELD';
  if (path.endsWith('Date') || path.endsWith('.asOf') || path.endsWith('.date')) return 'INVALID_DATE';
  if (DECIMAL_PATH_SUFFIXES.some((suffix) => path.endsWith(suffix))) return 'INVALID_DECIMAL';
  return 'INVALID_VALUE';
}

/** The "received" word of a type message, in the schema library's vocabulary. */
export function receivedType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  if (type === 'number') return Number.isNaN(value) ? 'nan' : 'number';
  if (type !== 'object') return type;
  if (value instanceof Date) return 'date';
  if (value instanceof Map) return 'map';
  if (value instanceof Set) return 'set';
  return 'object';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return receivedType(value) === 'object';
}

const EXPECTED_TYPE: Record<ShapeNode['kind'], string> = {
  text: 'string',
  decimal: 'string',
  date: 'string',
  scenarioKey: 'string',
  integer: 'number',
  record: 'object',
  object: 'object',
  array: 'array',
};

class ShapeWalker {
  readonly issues: ValidationIssue[] = [];
  fatal = false;

  private add(kind: 'required' | 'unrecognized' | 'value', path: string, message: string, fatal: boolean): void {
    this.issues.push({ code: stageOneCode(kind, path), path, message });
    if (fatal) this.fatal = true;
  }

  visit(value: unknown, node: ShapeNode, path: string): void {
    if (value === undefined) {
      this.add('required', path, MESSAGES.required, true);
      return;
    }
    if (node.kind === 'scenarioKey') {
      this.visitScenarioKey(value, path);
      return;
    }
    if (!this.hasExpectedType(value, node)) {
      this.add('value', path, `Expected ${EXPECTED_TYPE[node.kind]}, received ${receivedType(value)}`, true);
      return;
    }
    switch (node.kind) {
      case 'text':
        if (value === '') this.add('value', path, MESSAGES.empty, false);
        return;
      case 'decimal':
        if (!isCanonicalDecimal(value as string)) this.add('value', path, MESSAGES.decimal, false);
        return;
      case 'date':
        if (!isCalendarDate(value as string)) this.add('value', path, MESSAGES.date, false);
        return;
      case 'integer':
        if (!Number.isInteger(value)) this.add('value', path, MESSAGES.float, false);
        return;
      case 'record':
        return;
      case 'array':
        (value as unknown[]).forEach((element, index) => this.visit(element, node.element, `${path}[${index}]`));
        return;
      case 'object':
        this.visitObject(value as Record<string, unknown>, node.fields, path);
        return;
    }
  }

  private hasExpectedType(value: unknown, node: ShapeNode): boolean {
    switch (node.kind) {
      case 'integer':
        return receivedType(value) === 'number';
      case 'record':
      case 'object':
        return isPlainObject(value);
      case 'array':
        return Array.isArray(value);
      default:
        return typeof value === 'string';
    }
  }

  private visitScenarioKey(value: unknown, path: string): void {
    if (typeof value !== 'string') {
      this.add('value', path, `Expected ${SCENARIO_KEY_LIST}, received ${receivedType(value)}`, true);
    } else if (!SCENARIO_KEYS.includes(value)) {
      this.add('value', path, `Invalid enum value. Expected ${SCENARIO_KEY_LIST}, received '${value}'`, true);
    }
  }

  private visitObject(value: Record<string, unknown>, fields: readonly ShapeField[], path: string): void {
    for (const field of fields) {
      const child = value[field.name];
      if (child === undefined && field.optional) continue;
      this.visit(child, field.node, `${path}.${field.name}`);
    }
    const known = new Set(fields.map((field) => field.name));
    const unknown = Object.keys(value).filter((key) => !known.has(key));
    if (unknown.length > 0) {
      const quoted = unknown.map((key) => `'${key}'`).join(', ');
      this.add('unrecognized', path, `Unrecognized key(s) in object: ${quoted}: ${unknown.join(', ')}`, false);
    }
  }
}

/** Walks `input` against `root` depth first, keeping every issue found. */
export function checkShape(input: unknown, root: ShapeNode): ShapeReport {
  const walker = new ShapeWalker();
  walker.visit(input, root, 'input');
  return { issues: walker.issues, fatal: walker.fatal };
}

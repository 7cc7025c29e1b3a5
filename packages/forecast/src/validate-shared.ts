/**
 * Stage-2 pieces shared by the forecast and the plan (methodology 4.4, 4.5).
 */
import type { ShapeNode } from './shape.js';
import type { ScenarioAssumption, ValidationIssue } from './types.js';

export const SCENARIO_SHAPE: ShapeNode = {
  kind: 'array',
  element: {
    kind: 'object',
    fields: [
      { name: 'key', node: { kind: 'scenarioKey' } },
      { name: 'burnMultiplier', node: { kind: 'decimal' } },
    ],
  },
};

export function issue(code: string, path: string, message: string): ValidationIssue {
  return { code, path, message };
}

function compareMagnitudeText(left: string, right: string): number {
  const leftParts = left.split('.');
  const rightParts = right.split('.');
  const leftInteger = leftParts[0] ?? '';
  const rightInteger = rightParts[0] ?? '';
  if (leftInteger.length !== rightInteger.length) return leftInteger.length < rightInteger.length ? -1 : 1;
  if (leftInteger !== rightInteger) return leftInteger < rightInteger ? -1 : 1;
  const leftFraction = (leftParts[1] ?? '').padEnd(12, '0');
  const rightFraction = (rightParts[1] ?? '').padEnd(12, '0');
  if (leftFraction === rightFraction) return 0;
  return leftFraction < rightFraction ? -1 : 1;
}

/**
 * Stage-2 comparison of decimal strings. It works on the text (4.5) rather
 * than parsed values because stage 2 also runs when stage 1 found malformed
 * (non-fatal) decimals, and the extra issues it then reports must match
 * upstream. For canonical strings it is plain numeric order.
 */
export function compareDecimalText(left: string, right: string): number {
  const leftNegative = left.startsWith('-');
  const rightNegative = right.startsWith('-');
  if (leftNegative !== rightNegative) return leftNegative ? -1 : 1;
  const magnitude = compareMagnitudeText(leftNegative ? left.slice(1) : left, rightNegative ? right.slice(1) : right);
  return leftNegative ? -magnitude : magnitude;
}

const SCENARIO_ORDER = ['low', 'base', 'high'] as const;

/** Rules S1–S4. */
export function scenarioIssues(scenarios: readonly ScenarioAssumption[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const ordered =
    scenarios.length === SCENARIO_ORDER.length && scenarios.every((s, i) => s.key === SCENARIO_ORDER[i]);
  if (!ordered) {
    issues.push(
      issue(
        'INVALID_SCENARIO_ORDER',
        'input.scenarios',
        'scenarios must contain exactly low, base, and high in that order',
      ),
    );
  }
  scenarios.forEach((scenario, index) => {
    if (compareDecimalText(scenario.burnMultiplier, '0') < 0) {
      issues.push(
        issue(
          'NEGATIVE_BURN_MULTIPLIER',
          `input.scenarios[${index}].burnMultiplier`,
          'burnMultiplier must be non-negative',
        ),
      );
    }
  });
  const [low, base, high] = scenarios;
  if (ordered && low && base && high) {
    // Compared as raw text: "1.0" is not the base multiplier even though it equals 1.
    if (base.burnMultiplier !== '1') {
      issues.push(
        issue('INVALID_BASE_MULTIPLIER', 'input.scenarios[1].burnMultiplier', 'base burnMultiplier must equal "1"'),
      );
    }
    if (
      compareDecimalText(low.burnMultiplier, base.burnMultiplier) >= 0 ||
      compareDecimalText(base.burnMultiplier, high.burnMultiplier) >= 0
    ) {
      issues.push(
        issue(
          'INVALID_SCENARIO_MULTIPLIERS',
          'input.scenarios',
          'scenario burnMultipliers must satisfy low < base < high',
        ),
      );
    }
  }
  return issues;
}

const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9_-]*[A-Za-z0-9])?';
const NAMESPACE = new RegExp(`^${LABEL}(?:\\.${LABEL})+$`);

/** Extension rule: every key must be a dotted namespace (3.3). */
export function extensionIssues(extensions: Record<string, unknown> | undefined): ValidationIssue[] {
  if (extensions === undefined) return [];
  return Object.keys(extensions)
    .filter((key) => !NAMESPACE.test(key))
    .map((key) =>
      issue(
        'INVALID_EXTENSION_NAMESPACE',
        `input.extensions.${key}`,
        'extension keys must use a collision-resistant namespace',
      ),
    );
}

const PATH_TOKEN = /\[([0-9]+)\]|([^.[\]]+)|./g;

/**
 * Rewrites a stage-2 path into name/index tokens (4.4). Identity for every
 * path built here except extension keys holding `.`, `[` or `]`, where it
 * reproduces upstream's (lossy) normalisation.
 */
export function normalisePath(path: string): string {
  const rest = path.startsWith('input.') ? path.slice('input.'.length) : path;
  let normalised = 'input';
  for (const match of rest.matchAll(PATH_TOKEN)) {
    const [, index, name] = match;
    if (index !== undefined) normalised += `[${BigInt(index).toString()}]`;
    else if (name !== undefined) normalised += `.${name}`;
  }
  return normalised;
}

/**
 * Plan input validation: stage 1 (shape) then stage 2 (methodology 4.4b).
 */
import { checkShape, type ShapeNode } from './shape.js';
import type { PlanInput, ValidationIssue } from './types.js';
import {
  SCENARIO_SHAPE,
  compareDecimalText,
  extensionIssues,
  issue,
  normalisePath,
  scenarioIssues,
} from './validate-shared.js';

const PLAN_SHAPE: ShapeNode = {
  kind: 'object',
  fields: [
    { name: 'schemaVersion', node: { kind: 'text' } },
    { name: 'methodologyVersion', node: { kind: 'text' } },
    {
      name: 'period',
      node: {
        kind: 'object',
        fields: [
          { name: 'startDate', node: { kind: 'date' } },
          { name: 'endDate', node: { kind: 'date' } },
        ],
      },
    },
    {
      name: 'metricEstimates',
      node: {
        kind: 'array',
        element: {
          kind: 'object',
          fields: [
            { name: 'key', node: { kind: 'text' } },
            { name: 'label', node: { kind: 'text' }, optional: true },
            { name: 'estimatedUnits', node: { kind: 'decimal' } },
            { name: 'creditsPerUnit', node: { kind: 'decimal' } },
          ],
        },
      },
    },
    { name: 'allocation', node: { kind: 'decimal' }, optional: true },
    { name: 'scenarios', node: SCENARIO_SHAPE },
    { name: 'extensions', node: { kind: 'record' }, optional: true },
  ],
};

/** All issues for a plan input; an empty list means it is valid. */
export function validatePlanInput(input: unknown): ValidationIssue[] {
  const shape = checkShape(input, PLAN_SHAPE);
  if (shape.fatal) return shape.issues;
  const rules = planRuleIssues(input as PlanInput);
  return [...shape.issues, ...rules.map((found) => ({ ...found, path: normalisePath(found.path) }))];
}

function planRuleIssues(input: PlanInput): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  if (input.schemaVersion !== '1.0') {
    issues.push(issue('UNSUPPORTED_SCHEMA_VERSION', 'input.schemaVersion', 'schemaVersion must equal "1.0"'));
  }
  if (input.methodologyVersion !== '1.0') {
    issues.push(
      issue('UNSUPPORTED_METHODOLOGY_VERSION', 'input.methodologyVersion', 'methodologyVersion must equal "1.0"'),
    );
  }
  if (input.period.endDate <= input.period.startDate) {
    issues.push(
      issue('INVALID_PLAN_PERIOD', 'input.period.endDate', 'period.endDate must be later than period.startDate'),
    );
  }
  if (input.metricEstimates.length === 0) {
    issues.push(
      issue(
        'EMPTY_METRIC_ESTIMATES',
        'input.metricEstimates',
        'metricEstimates must contain at least one metric estimate',
      ),
    );
  }
  const seenKeys = new Set<string>();
  input.metricEstimates.forEach((metric, index) => {
    const path = `input.metricEstimates[${index}]`;
    if (seenKeys.has(metric.key)) {
      issues.push(issue('DUPLICATE_METRIC_KEY', `${path}.key`, `metricEstimates contains duplicate key ${metric.key}`));
    }
    seenKeys.add(metric.key);
    if (compareDecimalText(metric.estimatedUnits, '0') < 0) {
      issues.push(issue('NEGATIVE_ESTIMATED_UNITS', `${path}.estimatedUnits`, 'estimatedUnits must be non-negative'));
    }
    if (compareDecimalText(metric.creditsPerUnit, '0') < 0) {
      issues.push(issue('NEGATIVE_CREDITS_PER_UNIT', `${path}.creditsPerUnit`, 'creditsPerUnit must be non-negative'));
    }
  });
  if (input.allocation !== undefined && compareDecimalText(input.allocation, '0') <= 0) {
    issues.push(
      issue('NON_POSITIVE_ALLOCATION', 'input.allocation', 'allocation must be greater than zero when supplied'),
    );
  }
  issues.push(...scenarioIssues(input.scenarios));
  issues.push(...extensionIssues(input.extensions));
  return issues;
}

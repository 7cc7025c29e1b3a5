/**
 * @tally/forecast — client-side credit burndown forecasts and credit plans.
 *
 * Pure and deterministic: no clock, files, network, environment, randomness
 * or credentials; exact decimal arithmetic on canonical decimal strings.
 */
export { forecastCreditUsage } from './forecast.js';
export { planCreditUsage } from './plan.js';
export { ForecastValidationError, PlanValidationError } from './errors.js';
export type * from './types.js';

import { tariffPublishWarnings } from '../credits/index.js';
import { tariffWarnings } from './margin/service.js';

/**
 * How spend joins the modules below it (called at startup by runtime.ts when the spend module is
 * on): it answers the credits tariff's publish with the negative-margin guard's warnings.
 */
export function registerHooks(): void {
  tariffPublishWarnings.provide(tariffWarnings);
}

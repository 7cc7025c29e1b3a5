import type { AppContext } from '../../platform/context.js';
import type { Job } from '../../platform/jobs/scheduler.js';

/** The spend module's scheduled jobs (UTC cron, each slot once across nodes). */
export function jobs(_ctx: AppContext): Job[] {
  return [];
}

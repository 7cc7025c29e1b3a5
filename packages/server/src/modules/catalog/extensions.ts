import type { Executor } from '../../platform/db/database.js';
import { defineExtension } from '../../platform/hooks.js';

/**
 * Credit allocations of plans, by plan id, as the plan views show them (`creditAllocations`).
 * The credits module provides it at startup; without it a plan shows no allocations.
 */
export const planCreditAllocations = defineExtension(
  'catalog.plan_credit_allocations',
  async (_db: Executor, _accountId: string, _planIds: string[]): Promise<Map<string, Record<string, unknown>[]>> => new Map(),
);

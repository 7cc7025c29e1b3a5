import type { AppContext } from '../../platform/context.js';

/**
 * Gateway enforcement (contract §7.5, vendor-apis.md §5.4): pushes a unit's effective monthly
 * ceiling to the LiteLLM proxy of the account's LITELLM connection as `max_budget` (dollars) for
 * BLOCK budgets on units with a LiteLLM rule, `null` otherwise, and records the outcome on the
 * budget row (`enforcement_target`, `enforced_at`, `enforcement_error`). Never inside a transaction.
 *
 * Seam: called after budget writes and by the evaluation when it drops an expired bump. The stub
 * does nothing until gateway enforcement lands.
 */
export async function enforceUnitBudget(_ctx: AppContext, _accountId: string, _unitId: string): Promise<void> {}

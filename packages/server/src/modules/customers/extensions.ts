import type { AppContext } from '../../platform/context.js';
import { defineExtension } from '../../platform/hooks.js';

/**
 * A customer's subscriptions as the client customer view shows them (`subscriptions`). The billing
 * module provides it at startup; without it the view has no `subscriptions` field.
 */
export const customerSubscriptions = defineExtension(
  'customers.subscriptions',
  async (_ctx: AppContext, _accountId: string, _customerId: string): Promise<Record<string, unknown>[] | undefined> => undefined,
);

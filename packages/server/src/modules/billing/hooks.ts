import { customerSubscriptions } from '../customers/index.js';
import { listCustomerSubscriptionViews } from './subscriptions.js';

/** How billing joins the modules below it (called once at startup by runtime.ts): customer views list their subscriptions. */
export function registerHooks(): void {
  customerSubscriptions.provide(listCustomerSubscriptionViews);
}

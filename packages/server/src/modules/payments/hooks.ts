import { checkSubscribePayment, collectInitialPayment } from '../billing/index.js';
import * as subscribe from './subscribe.js';

/** How payments joins billing (called once at startup by runtime.ts): it collects paid subscribes. */
export function registerHooks(): void {
  checkSubscribePayment.provide(subscribe.checkSubscribePayment);
  collectInitialPayment.provide(subscribe.collectInitialPayment);
}

export function jobs(): [] {
  return [];
}

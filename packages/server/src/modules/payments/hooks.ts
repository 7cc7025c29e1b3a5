import { checkSubscribePayment, collectInitialPayment, subscribeThroughProcessor } from '../billing/index.js';
import { subscribeThroughProcessor as processorSubscribe } from './processor-subscribe.js';
import * as subscribe from './subscribe.js';

/** How payments joins billing (called once at startup by runtime.ts): it collects paid subscribes. */
export function registerHooks(): void {
  checkSubscribePayment.provide(subscribe.checkSubscribePayment);
  collectInitialPayment.provide(subscribe.collectInitialPayment);
  subscribeThroughProcessor.provide(processorSubscribe);
}

export function jobs(): [] {
  return [];
}
